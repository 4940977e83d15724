package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/linkauth"
)

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
