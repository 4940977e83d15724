package ckpt

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/ssi"
)

func TestParseTarget(t *testing.T) {
	cases := []struct {
		in   string
		want Target
		err  bool
	}{
		{"4711", Target{Node: -1, PID: 4711}, false},
		{"0:4711", Target{Node: 0, PID: 4711}, false},
		{"n3:12", Target{Node: 3, PID: 12}, false},
		{"0", Target{}, true},
		{"-5", Target{}, true},
		{"x", Target{}, true},
		{":5", Target{}, true},
		{"1:", Target{}, true},
		{"-1:5", Target{}, true},
		{"99999999999", Target{}, true},
	}
	for _, c := range cases {
		got, err := ParseTarget(c.in)
		if (err != nil) != c.err || !c.err && got != c.want {
			t.Errorf("ParseTarget(%q) = %+v, %v", c.in, got, err)
		}
	}
}

// run runs the tool on args without a lamd (the session prefix is
// empty) and returns its exit code and standard error.
func run(t *testing.T, name string, args ...string) (int, string) {
	t.Helper()
	var out, errb strings.Builder
	env := &lamcli.Env{Stdout: &out, Stderr: &errb, Euid: 1000,
		Environ: []string{"LAM_MPI_SESSION_PREFIX=" + t.TempDir(), "HOME=" + t.TempDir()}}
	code := lamcli.Run(context.Background(), Tool(name), &Cmd{}, args, env)
	return code, errb.String()
}

func TestCommandLine(t *testing.T) {
	pid := "1" // exists; no lamd answers, so a good command line ends there
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"-h"}, 0, "Synopsis:"},
		{"nothing", nil, lamcli.ExitUsage, "Synopsis:"},
		{"both", []string{"-pid", pid, pid}, lamcli.ExitUsage, "give mpirun's pid once"},
		{"two", []string{pid, "2"}, lamcli.ExitUsage, "one job at a time"},
		{"bad pid", []string{"-pid", "abc"}, lamcli.ExitUsage, `bad process id "abc"`},
		{"bad timeout", []string{"-timeout", "-3", pid}, lamcli.ExitUsage, "-timeout"},
		{"blcr", []string{"-ssi", "cr", "blcr", "-pid", pid}, ExitRefused, `cr module "blcr" is not available`},
		{"no lamd", []string{"-pid", pid}, lamcli.ExitNoDaemon, "could not reach a LAM daemon"},
		{"lam form", []string{"-ssi", "cr", "self", "-pid", pid, "-stop", "-timeout", "2m"}, lamcli.ExitNoDaemon, "could not reach"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := run(t, "lamcheckpoint", c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, c.code, stderr, c.want)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	s := ssi.NewSettings(nil, []string{"LAM_MPI_SSI_cr_base_timeout=7"})
	cases := []struct {
		opt  string
		want time.Duration
	}{{"", 7 * time.Second}, {"1.5", 1500 * time.Millisecond}, {"2m", 2 * time.Minute}}
	for _, c := range cases {
		got, err := (&Cmd{Timeout: c.opt}).timeout(s)
		if err != nil || got != c.want {
			t.Errorf("timeout %q = %v, %v; want %v", c.opt, got, err, c.want)
		}
	}
	if _, err := (&Cmd{Timeout: "0"}).timeout(s); !errors.Is(err, lamcli.ErrUsage) {
		t.Errorf("-timeout 0: %v", err)
	}
}

func TestAlive(t *testing.T) {
	if err := alive(int32(os.Getpid())); err != nil {
		t.Errorf("alive(self): %v", err)
	}
	var ee *lamcli.ExitError
	if err := alive(1 << 30); !errors.As(err, &ee) || ee.Code != ExitNoProcess {
		t.Errorf("alive(no such pid): %v", err)
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"4711", "0:4711", "n3:12", "-1:5", ":", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		if tg.PID <= 0 || tg.Node < -1 {
			t.Fatalf("ParseTarget(%q) accepted %+v", s, tg)
		}
		if !strings.Contains(s, ":") && tg.Node != -1 {
			t.Fatalf("ParseTarget(%q) found a node in a bare pid", s)
		}
	})
}
