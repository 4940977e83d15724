package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestTkill stops a local universe's lamd through its kill file: -N
// names the lamd and stops nothing, then tkill stops it and removes the
// session directory, and a second tkill finds nothing to kill.
func TestTkill(t *testing.T) {
	ctx, l := bootLocal(t, time.Minute)
	dir := l.sessionDir()
	pid := lamdPID(t, dir)
	if r := l.run(ctx, "tkill", "-N"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("tkill: would kill lamd %d\n", pid)) {
		t.Fatalf("tkill -N: %v", r)
	}
	if err := waitGone(pid, 100*time.Millisecond); err == nil {
		t.Fatal("tkill -N stopped the lamd")
	}
	if r := l.run(ctx, "tkill", "-f", "/tmp/elsewhere"); r.code == 0 || !strings.Contains(r.stderr, "lam-killfile") {
		t.Errorf("tkill -f with another file: %v", r)
	}
	r := l.run(ctx, "tkill", "-d")
	if r.code != 0 || !strings.Contains(r.stdout, "tkill: got killname back: "+dir+"/lam-killfile\n") ||
		!strings.Contains(r.stdout, fmt.Sprintf("tkill: killed lamd %d\n", pid)) {
		t.Fatalf("tkill -d: %v", r)
	}
	if err := waitGone(pid, 10*time.Second); err != nil {
		t.Errorf("lamd %d: %v after tkill", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("session directory after tkill: %v", err)
	}
	if r := l.run(context.Background(), "tkill", "-v"); r.code != 0 || !strings.Contains(r.stdout, "tkill: nothing to kill") {
		t.Errorf("second tkill: %v", r)
	}
	if r := l.run(ctx, "tkill", "-debug-output", "syslog", "-setsid"); r.code != 0 {
		t.Errorf("tkill with LAM's no-op options: %v", r)
	}
}
