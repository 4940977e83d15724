package rsh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/ssi"
)

func TestQuote(t *testing.T) {
	tests := map[string]string{
		"plain":           "plain",
		"/a/b-c_d.e:f=g":  "/a/b-c_d.e:f=g",
		"two words":       "'two words'",
		"it's":            `'it'\''s'`,
		"":                "''",
		"$HOME":           "'$HOME'",
		"-H 1.2.3.4 -P 5": "'-H 1.2.3.4 -P 5'",
	}
	for in, want := range tests {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Quote([]string{"hboot", "-I", "-H x"}); got != "hboot -I '-H x'" {
		t.Errorf("Quote = %q", got)
	}
}

func TestNeedsProfile(t *testing.T) {
	for sh, want := range map[string]bool{"/bin/bash": false, "/usr/bin/zsh": false, "/bin/tcsh": false, "/bin/csh": false, "/bin/sh": true, "/bin/ksh": true, "/bin/dash": true, "": false} {
		if got := needsProfile(sh); got != want {
			t.Errorf("needsProfile(%q) = %v", sh, got)
		}
	}
}

func TestAgent(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		args []ssi.Arg
		env  map[string]string
		want string
	}{
		{nil, nil, "ssh -x"},
		{nil, map[string]string{"LAMRSH": "rsh -n"}, "rsh -n"},
		{[]ssi.Arg{{Key: ParamAgent, Value: "ssh -p 2222"}}, map[string]string{"LAMRSH": "rsh"}, "ssh -p 2222"},
	}
	for _, tt := range tests {
		m := &Module{settings: ssi.NewSettings(tt.args, nil), getenv: env(tt.env)}
		if got := strings.Join(m.Agent(), " "); got != tt.want {
			t.Errorf("Agent() = %q, want %q", got, tt.want)
		}
	}
	// The environment variable LAM_MPI_SSI_boot_rsh_agent beats LAMRSH.
	m := &Module{settings: ssi.NewSettings(nil, []string{"LAM_MPI_SSI_boot_rsh_agent=myssh"}), getenv: env(map[string]string{"LAMRSH": "rsh"})}
	if got := strings.Join(m.Agent(), " "); got != "myssh" {
		t.Errorf("Agent() with env = %q", got)
	}
}

// fakeAgent writes a remote-shell stand-in that logs its arguments and
// stdin, runs the command locally, and says what $SHELL is.
func fakeAgent(t *testing.T, shell, stderr string) (agent, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "log")
	script := "#!/bin/sh\necho \"ARGS $*\" >> " + log + "\n"
	if stderr != "" {
		script += "echo '" + stderr + "' >&2\n"
	}
	script += `for last; do :; done
if [ "$last" = 'echo $SHELL' ]; then echo ` + shell + `; exit 0; fi
cat >> ` + log + `
sh -c "$last"
`
	agent = filepath.Join(dir, "agent")
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return agent, log
}

func TestLaunch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := filepath.Join(t.TempDir(), "out")
	argv := []string{"sh", "-c", "echo ran > " + out}
	tests := []struct {
		name, shell, stderr string
		args                []ssi.Arg
		user                string
		wantErr             string
		wantLog             []string
	}{
		{name: "bash login shell", shell: "/bin/bash", wantLog: []string{"ARGS host1 echo $SHELL", "ARGS host1 sh -c 'echo ran > ", "SECRET"}},
		{name: "sh sources .profile", shell: "/bin/sh", wantLog: []string{"( ! [ -e ./.profile ] || . ./.profile; sh -c"}},
		{name: "fast skips the probe", shell: "/bin/sh", args: []ssi.Arg{{Key: ParamFast, Value: "1"}}, wantLog: []string{"ARGS host1 sh -c"}},
		{name: "user", shell: "/bin/bash", user: "alice", wantLog: []string{"ARGS host1 -l alice sh -c"}},
		{name: "stderr fails", shell: "/bin/bash", stderr: "Warning: motd", wantErr: "wrote to stderr: Warning: motd"},
		{name: "stderr ignored", shell: "/bin/bash", stderr: "Warning: motd", args: []ssi.Arg{{Key: ParamIgnoreStderr, Value: "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(out)
			agent, log := fakeAgent(t, tt.shell, tt.stderr)
			m := &Module{settings: ssi.NewSettings(append(tt.args, ssi.Arg{Key: ParamAgent, Value: agent}), nil), getenv: func(string) string { return "" }}
			err := m.Launch(ctx, &boot.Node{ID: 1, Host: "host1", User: tt.user}, argv, []byte("SECRET\n"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(out); string(b) != "ran\n" {
				t.Errorf("the command did not run: %q", b)
			}
			b, _ := os.ReadFile(log)
			for _, w := range tt.wantLog {
				if !strings.Contains(string(b), w) {
					t.Errorf("agent log lacks %q:\n%s", w, b)
				}
			}
			if tt.name == "fast skips the probe" && strings.Contains(string(b), "echo $SHELL") {
				t.Errorf("fast still probed the shell:\n%s", b)
			}
		})
	}
	// The local node runs without the agent.
	m := &Module{settings: ssi.NewSettings([]ssi.Arg{{Key: ParamAgent, Value: "/nonexistent/agent"}}, nil)}
	os.Remove(out)
	if err := m.Launch(ctx, &boot.Node{Origin: true}, argv, nil); err != nil {
		t.Fatalf("local launch: %v", err)
	}
	if err := m.Launch(ctx, &boot.Node{ID: 2, Host: "h"}, argv, nil); err == nil || !strings.Contains(err.Error(), "/nonexistent/agent") {
		t.Errorf("missing agent: %v", err)
	}
	if err := m.Launch(ctx, &boot.Node{Origin: true}, []string{"sh", "-c", "echo boom >&2; exit 4"}, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failing local command: %v", err)
	}
}

func TestNodes(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "hosts")
	os.WriteFile(schema, []byte("a cpu=2 user=bob\nb schedule=no prefix=/opt/lam\nbad cpu=x\n"), 0o644)
	var warnings []string
	m := &Module{}
	nodes, err := m.Nodes(context.Background(), &boot.Request{Schema: schema, Getenv: func(string) string { return "" }, Cwd: dir,
		Settings: ssi.NewSettings([]ssi.Arg{{Key: ParamUsername, Value: "root"}}, nil), Warn: func(w string) { warnings = append(warnings, w) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].CPUs != 2 || nodes[0].User != "root" || nodes[1].Schedule || nodes[1].Prefix != "/opt/lam" || nodes[1].ID != 1 {
		t.Errorf("nodes %+v", nodes)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "hosts:3:") {
		t.Errorf("warnings %q", warnings)
	}
	nodes, err = m.Nodes(context.Background(), &boot.Request{Host: "newhost", Settings: ssi.NewSettings(nil, nil)})
	if err != nil || len(nodes) != 1 || nodes[0].Host != "newhost" {
		t.Errorf("lamgrow host: %+v %v", nodes, err)
	}
}

func TestAgentHost(t *testing.T) {
	tests := []struct {
		agent []string
		host  string
		want  string
	}{
		{[]string{"ssh", "-x"}, "node1", "node1"},
		{[]string{"ssh", "-x"}, "vsock:5", "-o ProxyCommand=socat - VSOCK-CONNECT:5:22 vsock-5"},
		{[]string{"/usr/bin/ssh"}, "vsock:7:2222", "-o ProxyCommand=socat - VSOCK-CONNECT:7:2222 vsock-7"},
		{[]string{"rsh"}, "vsock:5", "vsock:5"},
		{[]string{"ssh"}, "10.0.0.1", "10.0.0.1"},
	}
	for _, tt := range tests {
		if got := strings.Join(agentHost(tt.agent, tt.host), " "); got != tt.want {
			t.Errorf("agentHost(%q, %q) = %q, want %q", tt.agent, tt.host, got, tt.want)
		}
	}
}
