package restart

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/crset"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/ssi"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"-np 4 ./a", []string{"-np", "4", "./a"}, false},
		{"  -np\t4  ./a  ", []string{"-np", "4", "./a"}, false},
		{`./a "two words" 'single $x' x\ y`, []string{"./a", "two words", "single $x", "x y"}, false},
		{`a "" b`, []string{"a", "", "b"}, false},
		{`a"b"c`, []string{"abc"}, false},
		{`"a\"b"`, []string{`a"b`}, false},
		{"", nil, false},
		{`"open`, nil, true},
		{`'open`, nil, true},
		{`trail\`, nil, true},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func desc() *crset.Desc {
	return &crset.Desc{Format: crset.Format, Seq: 3, World: 3, Wd: "/w",
		SSI: []string{"rpi=crtcp", "cr=self"},
		Env: []string{"LAM_MPI_SSI_rpi=crtcp", "LAM_MPI_SSI_coll=smp", "LAM_MPI_FOO=1", "LAM_MPI_SESSION_SUFFIX=old", "LAMTRACE=on", "LAMCRRESTART=/old"},
		Apps: []crset.App{{Program: "./a", Args: []string{"1"}, NP: 2, Where: []string{"n3"}, Source: "n1", Export: []string{"X=1", "LAMCRRESTART=/older"}},
			{Program: "./b", NP: 1, Wd: "/b"}}}
}

func TestSettings(t *testing.T) {
	got := Settings([]ssi.Arg{{Key: "rpi", Value: "tcp"}}, desc())
	want := []ssi.Arg{{Key: "rpi", Value: "tcp"}, {Key: "cr", Value: "self"}, {Key: "coll", Value: "smp"}}
	if !slices.Equal(got, want) {
		t.Errorf("Settings = %v, want %v (the command line's first, then the job's, once each)", got, want)
	}
}

func TestLines(t *testing.T) {
	lines := Lines(desc(), "/sets/ckpt-3", []string{"LAM_MPI_SESSION_SUFFIX=new", "LAM_MPI_BAR=2", "HOME=/h"})
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	a, b := lines[0], lines[1]
	if a.Program != "./a" || a.NP != 2 || len(a.Where) != 0 || a.Source != "" || !slices.Equal(a.Args, []string{"1"}) {
		t.Errorf("line 0: %+v (placed by -np alone, no where, no -s)", a)
	}
	wantEnv := []string{"X=1", "LAM_MPI_FOO=1", "LAMTRACE=on", "LAM_MPI_SESSION_SUFFIX=new", "LAMCRRESTART=/sets/ckpt-3"}
	if !slices.Equal(a.Export, wantEnv) {
		t.Errorf("line 0's environment %q, want %q", a.Export, wantEnv)
	}
	if b.Program != "./b" || b.NP != 1 || b.Wd != "/b" || b.Export[len(b.Export)-1] != "LAMCRRESTART=/sets/ckpt-3" {
		t.Errorf("line 1: %+v", b)
	}
}

func TestCommandLine(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"-h"}, 0, "Synopsis:"},
		{"nothing", nil, lamcli.ExitUsage, "Synopsis:"},
		{"two", []string{"a", "b"}, lamcli.ExitUsage, "one checkpoint set at a time"},
		{"blcr", []string{"-ssi", "cr", "blcr", "x"}, ExitBadSet, `cr module "blcr" is not available`},
		{"missing", []string{"/no/such/set"}, ExitBadSet, "cannot restart: "},
		{"bad args", []string{"-ssi", "cr_restart_args", `"open`}, lamcli.ExitUsage, "unclosed"},
		{"sa and sf", []string{"-sa", "-sf", "x"}, lamcli.ExitUsage, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb strings.Builder
			env := &lamcli.Env{Stdout: &out, Stderr: &errb, Euid: 1000, Environ: []string{"LAM_MPI_SESSION_PREFIX=" + t.TempDir()}}
			code := lamcli.Run(context.Background(), Tool("lamrestart"), &Cmd{}, c.args, env)
			if code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, c.code, errb.String(), c.want)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{`-np 4 ./a`, `"a b" 'c d' e\ f`, `"open`, `x\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err != nil {
			return
		}
		// Words without blanks, quotes or backslashes come back as they
		// were written, joined by one blank.
		plain := true
		for _, r := range s {
			if strings.ContainsRune("\"'\\", r) {
				plain = false
			}
		}
		fields := strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isBlank(byte(r)) })
		if plain && strings.Join(words, " ") != strings.Join(fields, " ") {
			t.Fatalf("Split(%q) = %q", s, words)
		}
	})
}
