package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newLocal is a local session prefix like bootLocal's, with nothing
// booted yet; whatever the test boots is halted and wiped at its end.
func newLocal(t *testing.T, d time.Duration) (context.Context, *local) {
	t.Helper()
	ctx := testContext(t, d)
	sp := t.TempDir()
	l := &local{t: t, prefix: sp, env: append(os.Environ(),
		"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
	t.Cleanup(func() {
		l.run(context.Background(), "lamhalt", "-H")
		l.run(context.Background(), "lamwipe", "-H")
	})
	return ctx, l
}

// writeSchema writes a boot schema into the session prefix.
func (l *local) writeSchema(name, text string) string {
	l.t.Helper()
	p := filepath.Join(l.prefix, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		l.t.Fatal(err)
	}
	return p
}

// A cpu count beyond what the node table carries is reported against its
// line, which is skipped as LAM skips a bad line; it never reaches a lamd.
func TestSchemaCPUCount(t *testing.T) {
	ctx, l := newLocal(t, 2*time.Minute)
	only := l.writeSchema("only", "localhost cpu=16777217\n")
	r := l.run(ctx, "lamboot", "-H", only)
	if r.code == 0 || !strings.Contains(r.stderr, only+`:1: cpu count "16777217" for host "localhost" is larger than 16777216`) ||
		strings.Contains(r.stderr, "node table") {
		t.Errorf("lamboot with cpu=16777217 on the only line: %v", r)
	}
	if d := l.sessionDir(); d != "" {
		t.Errorf("session directory %s left by a refused boot", d)
	}
	two := l.writeSchema("two", "localhost cpu=2\nlocalhost cpu=16777217\n")
	r = l.run(ctx, "lamboot", "-H", two)
	if r.code != 0 || !strings.Contains(r.stderr, two+`:2: cpu count "16777217" for host "localhost" is larger than 16777216`) {
		t.Errorf("lamboot with cpu=16777217 on line 2: %v", r)
	}
	if r := l.run(ctx, "lamnodes"); r.code != 0 || !strings.Contains(r.stdout, ":2:origin,this_node") {
		t.Errorf("lamnodes after skipping line 2: %v", r)
	}
}

// A line of raw high bytes is not a host name: it is reported against its
// line and skipped, never handed to the resolver.
func TestSchemaHostName(t *testing.T) {
	ctx, l := newLocal(t, 2*time.Minute)
	p := l.writeSchema("hosts", "localhost\n\xff\xfe\xc3\x28\n")
	r := l.run(ctx, "lamboot", "-H", p)
	if r.code != 0 || !strings.Contains(r.stderr, p+`:2: invalid host name "\xff\xfe\xc3("`) || strings.Contains(r.stderr, "resolve") {
		t.Errorf("lamboot with a line of high bytes: %v", r)
	}
}

// The session directory of a lamd killed with SIGKILL is proved dead and
// removed by the next lamboot, which says so with -v; a live universe is
// still refused.
func TestStaleSessionDirectory(t *testing.T) {
	ctx, l := newLocal(t, 2*time.Minute)
	if r := l.run(ctx, "lamboot", "-H"); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	dir := l.sessionDir()
	pid := lamdPID(t, dir)
	syscall.Kill(pid, syscall.SIGKILL)
	if err := waitGone(pid, 10*time.Second); err != nil {
		t.Fatalf("lamd %d: %v", pid, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "lam-kernel-socket")); err != nil {
		t.Fatalf("a killed lamd should leave its socket: %v", err)
	}
	r := l.run(ctx, "lamboot", "-H", "-v")
	if r.code != 0 || !strings.Contains(r.stderr, "removed the stale session directory "+dir) {
		t.Errorf("lamboot over a dead lamd's session: %v", r)
	}
	if r := l.run(ctx, "lamnodes"); r.code != 0 {
		t.Errorf("lamnodes after the reboot: %v", r)
	}
	if r := l.run(ctx, "lamboot", "-H", "-v"); r.code == 0 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("lamboot over a live universe: %v", r)
	}
}
