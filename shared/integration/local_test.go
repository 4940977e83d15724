package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// local is a universe on this host, in a private session prefix.
type local struct {
	t      testing.TB
	prefix string // session prefix
	env    []string
}

// bootLocal boots a local universe, halted and wiped when the test ends,
// and returns it with the test's context, which ends after d.
func bootLocal(t testing.TB, d time.Duration) (context.Context, *local) {
	t.Helper()
	ctx := testContext(t, d)
	sp := t.TempDir()
	l := &local{t: t, prefix: sp, env: append(os.Environ(),
		"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
	l.boot(ctx)
	return ctx, l
}

func (l *local) run(ctx context.Context, tool string, args ...string) result {
	l.t.Helper()
	cmd := exec.CommandContext(ctx, bin(tool), args...)
	cmd.Env = l.env
	cmd.Dir = l.prefix
	r := runCmd(l.t, cmd)
	r.stderr = withoutRootWarning(r.stderr)
	return r
}

// withEnv is l with variables added to the environment of what it runs.
func (l *local) withEnv(kv ...string) *local {
	c := *l
	c.env = append(slices.Clip(l.env), kv...)
	return &c
}

func (l *local) boot(ctx context.Context) {
	l.t.Helper()
	if r := l.run(ctx, "lamboot", "-H"); r.code != 0 {
		l.t.Fatalf("lamboot: %v", r)
	}
	l.t.Cleanup(func() {
		l.run(context.Background(), "lamhalt", "-H")
		l.run(context.Background(), "lamwipe", "-H")
	})
}

func (l *local) sessionDir() string {
	host, _ := os.Hostname()
	matches, _ := filepath.Glob(filepath.Join(l.prefix, "lam-*@"+host+"*"))
	if len(matches) == 1 {
		return matches[0]
	}
	return ""
}

func TestLocalSession(t *testing.T) {
	ctx, l := bootLocal(t, 2*time.Minute)
	dir := l.sessionDir()
	if dir == "" {
		t.Fatal("no session directory after lamboot")
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("session directory mode: %v %v", st.Mode(), err)
	}
	// lamnodes: LAM's format.
	r := l.run(ctx, "lamnodes")
	if r.code != 0 || !regexp.MustCompile(`^n0\t[^:]+:1:origin,this_node\n$`).MatchString(r.stdout) {
		t.Errorf("lamnodes: %v", r)
	}
	if r := l.run(ctx, "lamnodes", "-n", "-c"); r.code != 0 || strings.Contains(r.stdout, "n0") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("lamnodes -n -c: %v", r)
	}
	if r := l.run(ctx, "lamnodes", "n0", "n5", "c3"); r.stdout != strings.SplitAfter(l.run(ctx, "lamnodes").stdout, "\n")[0]+"n5\tinvalid node\ninvalid CPU specifier\n" {
		t.Errorf("lamnodes n0 n5 c3: %v", r)
	}
	// tping: per-round and summary lines.
	r = l.run(ctx, "tping", "-c", "3", "-d", "0", "N")
	if r.code != 0 || strings.Count(r.stdout, "  1 byte from n0 (o): ") != 3 ||
		!regexp.MustCompile(`\n3 messages, 3 bytes \(0\.003K\), [0-9.]+ secs \([0-9.]+K/sec\)\nroundtrip min/avg/max: [0-9.]+/[0-9.]+/[0-9.]+\n$`).MatchString(r.stdout) {
		t.Errorf("tping: %v", r)
	}
	if r := l.run(ctx, "tping", "-c", "1", "n5"); r.code != 226 || !strings.Contains(r.stderr, "invalid node n5") {
		t.Errorf("tping n5: %v", r)
	}
	// lamexec: output, status, errors.
	host, _ := os.Hostname()
	if r := l.run(ctx, "lamexec", "N", "hostname"); r.code != 0 || r.stdout != host+"\n" {
		t.Errorf("lamexec N hostname: %v", r)
	}
	// LAM's lamexec prints the failure on standard output.
	if r := l.run(ctx, "lamexec", "N", "sh", "-c", "echo out; echo err >&2; exit 3"); r.code != 3 || r.stderr != "err\n" ||
		!regexp.MustCompile(`^out\n\d+ \(n0\) exited with status 3\n$`).MatchString(r.stdout) {
		t.Errorf("lamexec exit 3: %v", r)
	}
	if r := l.run(ctx, "lamexec", "N", "no-such-program-xyz"); r.code != 2 || !strings.Contains(r.stderr, "cannot start no-such-program-xyz on n0 (o): No such file or directory") {
		t.Errorf("lamexec missing program: %v", r)
	}
	if r := l.run(ctx, "lamexec", "n5", "true"); r.code != 229 || !strings.Contains(r.stderr, "cannot start true on n5: invalid node") {
		t.Errorf("lamexec n5: %v", r)
	}
	if r := l.run(ctx, "lamexec", "-x", "FOO=1", "-x", "BAR=2,BAZ=3", "N", "sh", "-c", "echo $FOO$BAR$BAZ"); r.stdout != "123\n" {
		t.Errorf("several -x: %v", r)
	}
	// lamclean -v: LAM's phase lines.
	if r := l.run(ctx, "lamclean", "-v"); r.code != 0 || !strings.HasPrefix(r.stdout, "killing processes,           \b\b\b\b\b\b\b\b\b\bn0 (o)... \b\b\b\b\b\b\b\b\b\bdone      \n") || strings.Count(r.stdout, "\n") != 5 {
		t.Errorf("lamclean -v: %q", r.stdout)
	}
	// recon checks without booting; lamgrow cannot grow a loopback universe.
	if r := l.run(ctx, "recon"); r.code != 0 || !strings.Contains(r.stdout, "Woo hoo!") {
		t.Errorf("recon: %v", r)
	}
	if r := l.run(ctx, "lamgrow", "otherhost.invalid"); r.code == 0 {
		t.Errorf("lamgrow on a one-node loopback universe: %v", r)
	}
	if r := l.run(ctx, "lamshrink", "0"); r.code != 226 {
		t.Errorf("lamshrink 0 (LAM wants n0): %v", r)
	}
	// A second lamboot is refused while this universe runs.
	if r := l.run(ctx, "lamboot", "-H"); r.code == 0 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("second lamboot: %v", r)
	}
	// lamhalt removes everything.
	if r := l.run(ctx, "lamhalt", "-v", "-H"); r.code != 0 || !strings.Contains(r.stdout, "hreq: received HALT_ACK from n0") || !strings.HasSuffix(r.stdout, "LAM halted\n") {
		t.Errorf("lamhalt: %v", r)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory left after lamhalt: %v", err)
	}
	if r := l.run(ctx, "lamnodes"); r.code != 253 {
		t.Errorf("lamnodes with no lamd: %v", r)
	}
	if r := l.run(ctx, "tping", "-c", "1", "N"); r.code != 215 {
		t.Errorf("tping with no lamd: %v", r)
	}
}

func TestLamwipeAndForce(t *testing.T) {
	ctx, l := bootLocal(t, 2*time.Minute)
	pid := lamdPID(t, l.sessionDir())
	// lamboot -f replaces a running universe.
	if r := l.run(ctx, "lamboot", "-H", "-f"); r.code != 0 {
		t.Fatalf("lamboot -f: %v", r)
	}
	if waitGone(pid, 10*time.Second) != nil {
		t.Errorf("old lamd %d still running after lamboot -f", pid)
	}
	pid = lamdPID(t, l.sessionDir())
	// lamwipe needs no working lamd.
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGCONT)
	if r := l.run(ctx, "lamwipe", "-H"); r.code != 0 {
		t.Errorf("lamwipe: %v", r)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	if waitGone(pid, 10*time.Second) != nil {
		t.Errorf("lamd %d survived lamwipe", pid)
	}
	if d := l.sessionDir(); d != "" {
		t.Errorf("session directory %s left after lamwipe", d)
	}
}

func TestRemovedSessionDirStopsLamd(t *testing.T) {
	_, l := bootLocal(t, time.Minute)
	dir := l.sessionDir()
	pid := lamdPID(t, dir)
	os.RemoveAll(dir)
	if err := waitGone(pid, 10*time.Second); err != nil {
		t.Errorf("lamd kept running after its session directory was removed: %v", err)
	}
}

func lamdPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "lam-killfile"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("kill file: %v", err)
	}
	return pid
}

// waitGone waits until pid is gone (or a zombie).
func waitGone(pid int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return nil
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("still running")
}
