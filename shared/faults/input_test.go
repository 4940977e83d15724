package faults

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The bad inputs of issue 14, against a booted universe: each is refused
// with a message about what was wrong, no process is started, and the
// lamd is untouched.
func TestMPIRunInputs(t *testing.T) {
	hello := bin("hello")
	tests := []struct {
		name string
		args []string
		code int    // 0: any failure
		want string // regexp stderr must match
		not  string // regexp stderr must not match
	}{
		{"mpirun -np 0", []string{"-np", "0", hello}, 0, `np`, ``},
		{"mpirun -np -1", []string{"-np", "-1", hello}, 0, `np`, ``},
		// LAM 7.1.4 answers an unknown option with its framed usage alone
		// (shared/integration/testdata/lam-7.1.4/mpirun-unknown-option.*).
		{"mpirun -frob -np 2", []string{"-frob", "-np", "2", hello}, 226, `\A-{77}\nSynopsis:`, `cannot start|frob`},
		{"mpirun -wd /nonexistent", []string{"-wd", "/nonexistent", "-np", "1", hello}, 0, `/nonexistent`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := record(t, tt.name)
			ctx := testContext(t, time.Minute)
			u := newUniverse(t, sc, "")
			u.boot(ctx, 0)
			r := u.run(ctx, "mpirun", tt.args...)
			sc.note("%s", outcome("mpirun", r))
			if n := strings.Count(r.stdout, "Hello"); n > 0 {
				sc.note("the program ran %d times", n)
			}
			if r.code == 0 || (tt.code != 0 && r.code != tt.code) || !regexp.MustCompile(tt.want).MatchString(r.stderr) ||
				(tt.not != "" && regexp.MustCompile(tt.not).MatchString(r.stderr)) || strings.Contains(r.stdout, "Hello") {
				t.Errorf("%v\nwant a failure (exit %d if not 0) matching %q, not %q, and no process run", r, tt.code, tt.want, tt.not)
			}
			u.mustAnswer(ctx, "after the refusal")
			u.halt(ctx)
			u.noneLeft()
		})
	}
}

// mpirun -np 100000 (a typo) is refused before any process starts: the
// lamd is not driven out of descriptors and threads.
func TestMPIRunHuge(t *testing.T) {
	sc := record(t, "mpirun -np 100000")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	sc.Before = u.usage()
	stop := make(chan struct{})
	var load *usage
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); load = peak(u.lamd, stop) }()
	jctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	r := u.run(jctx, "mpirun", "-np", "100000", bin("hello"))
	close(stop)
	wg.Wait()
	sc.Load = load
	sc.note("%s", outcome("mpirun", r))
	if jctx.Err() != nil {
		sc.note("killed after 30 s")
	}
	if r.code == 0 || jctx.Err() != nil || strings.Contains(r.stdout, "Hello") {
		t.Errorf("mpirun -np 100000: %.2000s\nwant a refusal before any process starts", r)
	}
	if n := len(running("hello")); n > 0 {
		t.Errorf("%d processes of the refused job run", n)
		sc.note("%d of its processes ran", n)
	}
	sc.After = u.recovered(sc.Before, 10*time.Second)
	u.mustAnswer(ctx, "after the refusal")
	u.halt(ctx)
	u.noneLeft()
}

// Boot schemas with values the wire cannot carry or names the resolver
// must not see are refused by lamboot, saying what is wrong, and leave
// nothing.
func TestBootSchemaInputs(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
		not    string
	}{
		{"boot schema cpu=16777217", "localhost cpu=16777217\n", `16777217`, `no answer to the node table`},
		{"boot schema line of raw high bytes", "\xff\xfe\xc3\x28\xa0\xa1\x80\x81\n", `(?i)host|:1\b`, `(?i)resolve|lookup`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := record(t, tt.name)
			ctx := testContext(t, time.Minute)
			u := newUniverse(t, sc, "")
			schema := filepath.Join(u.sp, "hosts")
			if err := os.WriteFile(schema, []byte(tt.schema), 0o644); err != nil {
				t.Fatal(err)
			}
			r := u.run(ctx, "lamboot", "-H", schema)
			sc.note("%s", outcome("lamboot", r))
			if r.code == 0 || !regexp.MustCompile(tt.want).MatchString(r.stderr) || regexp.MustCompile(tt.not).MatchString(r.stderr) {
				t.Errorf("lamboot: %v\nwant a failure matching %q, not %q", r, tt.want, tt.not)
			}
			u.noneLeft()
		})
	}
}
