// Package rsh is the boot module that reaches other hosts through a
// remote shell: ssh by default (boot_rsh_agent, or $LAMRSH), with the
// per-host user= of the boot schema or boot_rsh_username. The local node
// is started directly, without the agent.
//
// The universe secret travels on the remote shell's standard input, so the
// agent is never given -n.
package rsh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"strings"
	"time"

	"github.com/lamgo/lam/shared/bhost"
	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/ssi"
)

// Parameter names.
const (
	ParamAgent        = "boot_rsh_agent"
	ParamUsername     = "boot_rsh_username"
	ParamNoProfile    = "boot_rsh_no_profile"
	ParamFast         = "boot_rsh_fast"
	ParamIgnoreStderr = "boot_rsh_ignore_stderr"
)

// DefaultAgent is the remote shell used when nothing else is set.
const DefaultAgent = "ssh -x"

// Module is the rsh boot module.
type Module struct {
	settings *ssi.Settings
	getenv   func(string) string
}

func init() { boot.Register(&Module{}) }

// SSI describes the module.
func (*Module) SSI() ssi.Info {
	return ssi.Info{
		Framework: ssi.Boot, Name: "rsh",
		API: ssi.APIVersion[ssi.Boot], Version: buildinfo.ModuleVersion, Priority: 10,
		Params: []ssi.Param{
			{Name: "agent", Default: DefaultAgent, Help: "Remote shell command, split on spaces ($LAMRSH is read too)"},
			{Name: "username", Help: "User name on every remote host (overrides the boot schema's user=)"},
			{Name: "no_profile", Default: "0", Type: ssi.Bool, Help: "Never source .profile on hosts whose shell is not csh- or bash-like"},
			{Name: "fast", Default: "0", Type: ssi.Bool, Help: "Assume the remote shell is the local one (lamboot -b): skip probing it"},
			{Name: "ignore_stderr", Default: "0", Type: ssi.Bool, Help: "Do not treat output on the remote shell's stderr as a failure"},
		},
	}
}

// Query makes the module available everywhere: the local node needs no
// agent, and a missing agent is reported for the node that needs it.
func (m *Module) Query(ctx context.Context, s *ssi.Settings) (int, error) {
	m.settings = s
	return m.SSI().Priority, nil
}

// Nodes reads the boot schema (or lamgrow's host).
func (m *Module) Nodes(ctx context.Context, req *boot.Request) ([]boot.Node, error) {
	m.settings, m.getenv = req.Settings, req.Getenv
	user := req.Settings.String(ParamUsername)
	if req.Host != "" {
		return []boot.Node{{Host: req.Host, User: user, CPUs: 1, Schedule: true}}, nil
	}
	path, err := bhost.Lookup{Arg: req.Schema, Getenv: req.Getenv, Cwd: req.Cwd, Sysconfdir: req.Sysconfdir}.Find()
	if err != nil {
		return nil, err
	}
	sch, err := bhost.ParseFile(path)
	if err != nil {
		return nil, err
	}
	for _, w := range sch.Warnings {
		if req.Warn != nil {
			req.Warn(w.String())
		}
	}
	if len(sch.Hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts", path)
	}
	nodes := make([]boot.Node, len(sch.Hosts))
	for i, h := range sch.Hosts {
		u := h.User
		if user != "" {
			u = user
		}
		nodes[i] = boot.Node{ID: int32(i), Host: h.Name, User: u, CPUs: int32(h.CPU), Schedule: h.Schedule, Prefix: h.Prefix}
	}
	return nodes, nil
}

// Agent returns the remote shell command line, split on spaces as LAM did.
func (m *Module) Agent() []string {
	a := ""
	if m.settings != nil && m.settings.IsSet(ParamAgent) {
		a = m.settings.String(ParamAgent)
	} else if m.getenv != nil && m.getenv("LAMRSH") != "" {
		a = m.getenv("LAMRSH")
	} else if m.settings != nil {
		a = m.settings.String(ParamAgent)
	}
	if strings.TrimSpace(a) == "" {
		a = DefaultAgent
	}
	return strings.Fields(a)
}

func (m *Module) flag(name string) bool {
	if m.settings == nil {
		return false
	}
	b, _ := m.settings.Bool(name)
	return b
}

// Launch runs argv on node n: directly for the local node, through the
// agent for the others.
func (m *Module) Launch(ctx context.Context, n *boot.Node, argv []string, stdin []byte) error {
	if n.Origin {
		return run(ctx, exec.CommandContext(ctx, argv[0], argv[1:]...), stdin, false)
	}
	agent := m.Agent()
	if _, err := exec.LookPath(agent[0]); err != nil {
		return fmt.Errorf("remote shell %q: %w", agent[0], err)
	}
	remote := Quote(argv)
	if !m.flag(ParamFast) && !m.flag(ParamNoProfile) {
		shell, err := m.remoteShell(ctx, n, agent)
		if err != nil {
			return err
		}
		if needsProfile(shell) {
			remote = "( ! [ -e ./.profile ] || . ./.profile; " + remote + " )"
		}
	}
	return run(ctx, m.agentCmd(ctx, n, agent, remote), stdin, m.flag(ParamIgnoreStderr))
}

func (m *Module) agentCmd(ctx context.Context, n *boot.Node, agent []string, remote string) *exec.Cmd {
	args := append(append([]string(nil), agent[1:]...), agentHost(agent, n.Host)...)
	if n.User != "" {
		args = append(args, "-l", n.User)
	}
	args = append(args, remote)
	return exec.CommandContext(ctx, agent[0], args...)
}

// agentHost is how the agent is told the host. ssh reaches a vsock guest
// (vsock:CID[:port], port 22 when absent) through socat as its proxy, under
// the name vsock-CID (the name its known_hosts and ssh_config see); any
// other agent is given the host as written.
func agentHost(agent []string, host string) []string {
	cid, port, err := linknet.ParseVsock(host)
	if err != nil || path.Base(agent[0]) != "ssh" {
		return []string{host}
	}
	if port == 0 {
		port = 22
	}
	return []string{"-o", fmt.Sprintf("ProxyCommand=socat - VSOCK-CONNECT:%d:%d", cid, port), fmt.Sprintf("vsock-%d", cid)}
}

// remoteShell asks the host which login shell it runs.
func (m *Module) remoteShell(ctx context.Context, n *boot.Node, agent []string) (string, error) {
	cmd := m.agentCmd(ctx, n, agent, "echo $SHELL")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return "", remoteError(cmd, err, errb.Bytes())
	}
	if errb.Len() > 0 && !m.flag(ParamIgnoreStderr) {
		return "", fmt.Errorf("the remote shell wrote to stderr: %s", strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// needsProfile says whether a non-interactive remote shell skips
// .profile, so it must be sourced by hand: shells that are neither csh- nor
// bash-like.
func needsProfile(shell string) bool {
	if shell == "" {
		return false // unknown: do not guess
	}
	switch path.Base(shell) {
	case "csh", "tcsh", "bash", "zsh":
		return false
	}
	return true
}

// run runs cmd with stdin; a failure, or any stderr output unless
// ignoreStderr, is an error carrying that output.
func run(ctx context.Context, cmd *exec.Cmd, stdin []byte, ignoreStderr bool) error {
	var out, errb bytes.Buffer
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return remoteError(cmd, err, append(errb.Bytes(), out.Bytes()...))
	}
	if errb.Len() > 0 && !ignoreStderr {
		return fmt.Errorf("%s wrote to stderr: %s", path.Base(cmd.Path), strings.TrimSpace(errb.String()))
	}
	return nil
}

func remoteError(cmd *exec.Cmd, err error, output []byte) error {
	msg := strings.TrimSpace(string(output))
	var ee *exec.ExitError
	if errors.As(err, &ee) && msg != "" {
		return fmt.Errorf("%s failed (%v): %s", path.Base(cmd.Path), err, msg)
	}
	if msg != "" {
		return fmt.Errorf("%s: %w: %s", path.Base(cmd.Path), err, msg)
	}
	return fmt.Errorf("%s: %w", path.Base(cmd.Path), err)
}

// Quote joins argv into one POSIX shell command line.
func Quote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
