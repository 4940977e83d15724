package integration

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	inspectToolsOnce sync.Once
	inspectToolsErr  error
)

// buildInspectTools builds mpitask and mpimsg into the test prefix (the
// shared build list predates them).
func buildInspectTools(t *testing.T) {
	t.Helper()
	inspectToolsOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", filepath.Join(prefix, "bin")+"/", "./mpitask", "./mpimsg")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			inspectToolsErr = &buildError{err: err, out: string(out)}
		}
	})
	if inspectToolsErr != nil {
		t.Fatal(inspectToolsErr)
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "build mpitask, mpimsg: " + e.err.Error() + "\n" + e.out }

// TestMpitaskMpimsg runs a job whose ranks block in Recv and in Barrier
// with a message left unmatched, and checks that mpitask and mpimsg name
// them, for each rpi module that a one-host job can use.
func TestMpitaskMpimsg(t *testing.T) {
	buildInspectTools(t)
	for _, rpi := range []string{"usysv", "tcp", "lamd"} {
		t.Run(rpi, func(t *testing.T) { testInspect(t, rpi) })
	}
}

func testInspect(t *testing.T, rpi string) {
	ctx, l := bootLocal(t, 90*time.Second)
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-ssi", "rpi", rpi, "-np", "4", bin("testprog"), "inspect")
	cmd.Env, cmd.Dir = l.env, l.prefix
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	blocking := 0
	sc := bufio.NewScanner(out)
	for blocking < 4 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "rank ") {
			blocking++
		}
	}
	if blocking < 4 {
		t.Fatalf("the job did not start: %s", stderr.String())
	}
	go func() {
		for sc.Scan() {
		}
	}()

	// The ranks enter their calls a moment after printing; ask until the
	// tables say what they must (bounded by the test's context).
	task := []*regexp.Regexp{
		regexp.MustCompile(`(?m)^TASK \(G/L\)\s+FUNCTION\s+PEER\|ROOT\s+TAG\s+COMM\s+COUNT\s+DATATYPE$`),
		regexp.MustCompile(`(?m)^0/0 testprog\s+Recv\s+1/1\s+201\s+WORLD\s+4\s+INT$`),
		regexp.MustCompile(`(?m)^1/1 testprog\s+Barrier\s+WORLD\s*$`),
		regexp.MustCompile(`(?m)^2/2 testprog\s+Barrier\s+WORLD\s*$`),
		regexp.MustCompile(`(?m)^3 testprog\s+<finalized>$`),
	}
	r := waitFor(t, ctx, l, task, "mpitask")
	if strings.Count(r.stdout, "\n") != 5 {
		t.Errorf("mpitask printed more than the title and the 4 ranks:\n%s", r.stdout)
	}
	// The exact columns of the Recv line (LAM's widths).
	want := "0/0 testprog         Recv          1/1        201    WORLD  4       INT\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("mpitask's Recv line is not in LAM's columns; want %q in\n%s", want, r.stdout)
	}

	msg := []*regexp.Regexp{
		regexp.MustCompile(`(?m)^SRC \(G/L\)\s+DEST \(G/L\)\s+TAG\s+COMM\s+COUNT\s+DATATYPE\s+MSG$`),
		regexp.MustCompile(`(?m)^1/1\s+2\s+77\s+WORLD\s+8\s+BYTE\s+n0,#\d+$`),
	}
	waitFor(t, ctx, l, msg, "mpimsg")

	// Selections: one rank by %, the -gps names, a bad selector.
	if r := l.run(ctx, "mpitask", "%0"); r.code != 0 || strings.Count(r.stdout, "\n") != 2 || !task[1].MatchString(r.stdout) {
		t.Errorf("mpitask %%0: %v", r)
	}
	if r := l.run(ctx, "mpitask", "-gps", "n0"); r.code != 0 || !regexp.MustCompile(`(?m)^n0,p\d+ testprog\s+Recv\s+1\s+201`).MatchString(r.stdout) {
		t.Errorf("mpitask -gps n0: %v", r)
	}
	if r := l.run(ctx, "mpitask", "-d"); r.code != 0 || !strings.Contains(r.stdout, "DATATYPE:\tINT") {
		t.Errorf("mpitask -d: %v", r)
	}
	if r := l.run(ctx, "mpitask", "pfoo"); r.code != 226 {
		t.Errorf("mpitask pfoo: %v", r)
	}
	if r := l.run(ctx, "mpimsg", "-B", "0", "-e", "-1"); r.code != 226 {
		t.Errorf("mpimsg -e -1: %v", r)
	}
}

// waitFor runs tool until its output matches every pattern.
func waitFor(t *testing.T, ctx context.Context, l *local, want []*regexp.Regexp, tool string, args ...string) result {
	t.Helper()
	for {
		r := l.run(ctx, tool, args...)
		ok := r.code == 0
		for _, re := range want {
			ok = ok && re.MatchString(r.stdout)
		}
		if ok {
			t.Logf("%s:\n%s", tool, r.stdout)
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never showed what it should (%v): last run %v", tool, want, r)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
