// Command hboot starts the LAM daemon on this host, as lamboot does on
// every node (locally, or through the remote shell). It reads the process
// schema (lam-conf.lamd), stops a stale lamd of the same session first
// with -t, starts the lamd detached from the terminal and the remote shell
// (new session, standard streams closed), and returns at once so that the
// remote shell can exit.
//
// With -k, hboot reads the universe secret on its standard input and hands
// it to the lamd through a pipe.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/tkill"
)

var tool = &lamcli.Tool{
	Name: "hboot",
	Syntax: lamcli.Syntax{Long: map[string]int{
		"sessionprefix": 1, "sessionsuffix": 1, "prefix": 1, "c": 1, "I": 1,
	}},
	NoRootWarning: true,
}

type cmd struct {
	Conf          string `short:"c" default:"lam-conf.lamd" help:"Process schema."`
	Debug         bool   `short:"d" help:"Print debugging output; the lamd logs next to its session directory."`
	Topo          string `short:"I" help:"Topology arguments for lamd ($inet_topo)."`
	Pretend       bool   `short:"N" help:"Pretend: start nothing."`
	CloseStdio    bool   `short:"s" help:"Close the standard streams of the daemon (always done)."`
	Kill          bool   `short:"t" help:"Stop a stale lamd of this session first."`
	Verbose       bool   `short:"v" help:"Report progress."`
	ShowSchema    bool   `short:"V" help:"Print the process schema."`
	Key           bool   `short:"k" help:"Read the universe secret on standard input."`
	Prefix        string `name:"prefix" help:"LAM/Go's installation directory."`
	SessionPrefix string `name:"sessionprefix"`
	SessionSuffix string `name:"sessionsuffix"`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	say := func(format string, args ...any) {
		if c.Debug || c.Verbose {
			fmt.Fprintf(env.Stdout, "hboot: "+format+"\n", args...)
		}
	}
	paths := env.Paths
	if c.Prefix != "" {
		paths.Bindir = filepath.Join(c.Prefix, "bin")
		paths.Sysconfdir = filepath.Join(c.Prefix, "etc")
	}
	dir, err := session.Resolve(session.Options{Prefix: c.SessionPrefix, Suffix: c.SessionSuffix, Getenv: env.Getenv})
	if err != nil {
		return err
	}
	if c.Kill {
		say("performing tkill")
		res, err := tkill.Kill(ctx, dir, 5*time.Second)
		if err != nil {
			return fmt.Errorf("stop the stale lamd: %w", err)
		}
		if len(res.Killed) > 0 {
			say("stopped stale lamd %v", res.Killed)
		}
	}
	confPath, err := findConf(c.Conf, env, paths.Sysconfdir)
	if err != nil {
		return err
	}
	vars := map[string][]string{"$inet_topo": strings.Fields(c.Topo)}
	if c.Debug {
		vars["$debug"] = []string{"-d"}
	}
	if c.SessionPrefix != "" {
		vars["$session_prefix"] = []string{"-sessionprefix", c.SessionPrefix}
	}
	if c.SessionSuffix != "" {
		vars["$session_suffix"] = []string{"-sessionsuffix", c.SessionSuffix}
	}
	progs, err := parseSchema(confPath, vars)
	if err != nil {
		return err
	}
	if c.ShowSchema {
		for _, p := range progs {
			fmt.Fprintln(env.Stdout, strings.Join(p, " "))
		}
	}
	if c.Pretend {
		return nil
	}
	var secret *linkauth.Secret
	if c.Key {
		s, err := linkauth.ReadSecret(env.Stdin)
		if err != nil {
			return err
		}
		secret = &s
	}
	say("booting...")
	for i, argv := range progs {
		path := resolveProgram(argv[0], paths.Bindir)
		args := append([]string(nil), argv[1:]...)
		if c.Debug && filepath.Base(path) == "lamd" {
			args = append(args, "-log", dir.Path+".log")
		}
		say("fork %s", path)
		pid, err := startDetached(path, args, secret)
		if err != nil {
			return fmt.Errorf("start %s: %w", path, err)
		}
		if c.Debug {
			fmt.Fprintf(env.Stdout, "[%d]  %d %s %s\n", i+1, pid, argv[0], strings.Join(args, " "))
		}
	}
	return nil
}

// findConf locates the process schema like a boot schema: as given if it
// has a slash, else in the current directory, $LAMHOME/etc,
// $TROLLIUSHOME/etc, then the installation's etc.
func findConf(name string, env *lamcli.Env, sysconfdir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	var tried []string
	dirs := []string{"."}
	for _, v := range []string{"LAMHOME", "TROLLIUSHOME"} {
		if h := env.Getenv(v); h != "" {
			dirs = append(dirs, filepath.Join(h, "etc"))
		}
	}
	dirs = append(dirs, sysconfdir)
	for _, d := range dirs {
		p := filepath.Join(d, name)
		tried = append(tried, p)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("process schema %q not found; looked for %s", name, strings.Join(tried, ", "))
}

// resolveProgram prefers the installation's own programs to $PATH.
func resolveProgram(name, bindir string) string {
	if strings.Contains(name, "/") {
		return name
	}
	if p := filepath.Join(bindir, name); isExec(p) {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// startDetached starts a daemon in a new session with its standard streams
// on /dev/null, handing it the secret on a pipe as fd 3 (-k 3).
func startDetached(path string, args []string, secret *linkauth.Secret) (int, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var w *os.File
	if secret != nil {
		r, pw, err := os.Pipe()
		if err != nil {
			return 0, err
		}
		defer r.Close()
		w = pw
		cmd.ExtraFiles = []*os.File{r}
		cmd.Args = append(cmd.Args, "-k", "3")
	}
	if err := cmd.Start(); err != nil {
		if w != nil {
			w.Close()
		}
		return 0, err
	}
	if w != nil {
		_, err = fmt.Fprintln(w, secret.String())
		w.Close()
		if err != nil {
			cmd.Process.Kill()
			return 0, fmt.Errorf("hand over the secret: %w", err)
		}
	}
	pid := cmd.Process.Pid
	// Do not wait: the daemon outlives hboot. Release it so no zombie is
	// kept by this short-lived process.
	cmd.Process.Release()
	return pid, nil
}

func main() { lamcli.Main(tool, &cmd{}) }
