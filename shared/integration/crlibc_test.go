package integration

import (
	"context"
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

// A C program checkpointed through libmpi.so: the self module's callbacks
// are the program's C functions (lam_cr_self_checkpoint, ...), found in
// the process as LAM found them, which save and read the program's state
// with MPIL_Cr_write and MPIL_Cr_read (examples/c/crsum.c).

// crsumProg compiles examples/c/crsum.c with our mpicc, with no flag of
// its own: the wrapper links with -rdynamic, so that the library finds
// the program's functions.
func crsumProg(t *testing.T) string {
	t.Helper()
	needWrappers(t)
	out := filepath.Join(t.TempDir(), "crsum")
	cmd := exec.Command(bin("mpicc"), "-O2", "-o", out, filepath.Join("examples", "c", "crsum.c"))
	cmd.Dir = cRoot()
	cmd.Env = append(os.Environ(), "LAMHOME="+prefix)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mpicc crsum.c: %v\n%s", err, b)
	}
	return out
}

var cResultRE = regexp.MustCompile(`(?m)^result [0-9a-f]+$`)

// TestCRLibC: the C example checkpointed (it continues), then stopped by
// a checkpoint, then restarted from the set, prints the result of a run
// never interrupted; a function named by cr_self_checkpoint that the
// program lacks makes the checkpoint fail with the reason.
func TestCRLibC(t *testing.T) {
	buildCRTools(t)
	prog := crsumProg(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	const np, iters = 4, "4000"
	ref := l.run(ctx, "mpirun", "-np", strconv.Itoa(np), prog, iters)
	want := cResultRE.FindString(ref.stdout)
	if ref.code != 0 || want == "" {
		t.Fatalf("reference run: %v", ref)
	}
	base := t.TempDir()
	j := startCRJob(t, ctx, l, np, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-np", strconv.Itoa(np), prog, iters, "2000") // at least 8 s: the checkpoints come before the end
	set := checkpointThenStop(t, ctx, l, j, np, cResultRE)
	r := l.run(ctx, "crrestart", set)
	if r.code != 0 || cResultRE.FindString(r.stdout) != want {
		t.Fatalf("crrestart %s: want %s\n%v", set, want, r)
	}
	if n := strings.Count(r.stdout, " restarted at iteration "); n != np {
		t.Errorf("%d ranks restarted, want %d\n%s", n, np, r.stdout)
	}

	// A callback named one by one must exist.
	j = startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-ssi", "cr_self_checkpoint", "no_such_function", "-np", "2", prog, "100000", "1000")
	r = l.run(ctx, "crcheckpoint", "-timeout", "30", strconv.Itoa(j.cmd.Process.Pid))
	if r.code != 1 || !strings.Contains(r.stderr, "cr_self_checkpoint names no_such_function, which the program does not define") {
		t.Errorf("crcheckpoint of a program without its named function: %v", r)
	}
	j.cmd.Process.Signal(syscall.SIGTERM)
	j.wait(t, ctx)
	noPartial(t, base)
}

// checkpointThenStop checkpoints the job j of np ranks (crsum in C or
// Fortran), waits for every rank's continue callback, then checkpoints it
// with -stop, and checks that it ended without its result (matched by
// result) after two checkpoint callbacks per rank. It returns the second
// set.
func checkpointThenStop(t *testing.T, ctx context.Context, l *local, j *crJob, np int, result *regexp.Regexp) string {
	t.Helper()
	pid := j.cmd.Process.Pid
	crCheckpoint(t, ctx, l, pid)
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	for n := 0; n < np; {
		select {
		case s := <-j.lines:
			if strings.HasSuffix(s, " continued") {
				n++
			}
		case <-wctx.Done():
			t.Fatalf("%d continue callbacks, want %d\n%s", n, np, j.out.String())
		}
	}
	set := crCheckpoint(t, ctx, l, pid, "-stop")
	j.wait(t, ctx)
	if j.code != 0 || result.MatchString(j.out.String()) {
		t.Fatalf("mpirun after -stop: exit %d (the job must not have finished)\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	if n := strings.Count(j.out.String(), " checkpoint at iteration "); n != 2*np {
		t.Errorf("%d checkpoint callbacks, want %d\n%s", n, 2*np, j.out.String())
	}
	return set
}

var fResultRE = regexp.MustCompile(`(?m)^result [0-9]+$`)

// TestCRLibFortran: the Fortran 77 example (examples/f77/crsum.f), built
// with our mpif77 and no flag of its own, its subroutines found under
// gfortran's names (a trailing underscore) and its state saved and read
// with the Fortran MPIL_CR_* bindings: checkpointed (it continues), then
// stopped by a checkpoint, then restarted from the set, it prints the
// result of a run never interrupted. Its subroutines named one by one
// (cr_self_checkpoint ... without the underscore) are found too.
func TestCRLibFortran(t *testing.T) {
	buildCRTools(t)
	prog, ok := cProg(t, "f77/crsum")
	if !ok {
		return
	}
	ctx, l := bootLocal(t, 4*time.Minute)
	const np, iters = 4, "3000"
	ref := l.run(ctx, "mpirun", "-np", strconv.Itoa(np), prog, iters)
	want := fResultRE.FindString(ref.stdout)
	if ref.code != 0 || want == "" {
		t.Fatalf("reference run: %v", ref)
	}
	base := t.TempDir()
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, np, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-np", strconv.Itoa(np), prog, iters, gate)
	set := checkpointThenStop(t, ctx, l, j, np, fResultRE)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := l.run(ctx, "crrestart", set)
	if r.code != 0 || fResultRE.FindString(r.stdout) != want {
		t.Fatalf("crrestart %s: want %s\n%v", set, want, r)
	}
	if n := strings.Count(r.stdout, " restarted at iteration "); n != np {
		t.Errorf("%d ranks restarted, want %d\n%s", n, np, r.stdout)
	}

	// Named one by one, as the Fortran source names them.
	os.Remove(gate)
	j = startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-ssi", "cr_self_checkpoint", "lam_cr_self_checkpoint", "-ssi", "cr_self_continue", "lam_cr_self_continue",
		"-ssi", "cr_self_restart", "lam_cr_self_restart", "-np", "2", prog, "10", gate)
	crCheckpoint(t, ctx, l, j.cmd.Process.Pid)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j.wait(t, ctx)
	if j.code != 0 || strings.Count(j.out.String(), " checkpoint at iteration ") != 2 || !fResultRE.MatchString(j.out.String()) {
		t.Errorf("the subroutines named one by one: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	noPartial(t, base)
}

// TestCRLibCRequests: a C program hands its requests to the checkpoint
// (MPIL_Cr_write_request) — a receive posted and not matched, a
// persistent receive not started — and, restarted, gets them back on new
// buffers (MPIL_Cr_read_request): the receive is posted again, the
// persistent one starts, and both get the messages sent after the
// restart. A message MPI_Mprobe took and MPI_Mrecv had not received is
// back as an unmatched message, and an attribute of a keyval named by
// MPIL_Cr_keyval_name on MPI_COMM_WORLD is back.
func TestCRLibCRequests(t *testing.T) {
	r, set := crRequestsRestart(t, "mpicc", "crreq.c")
	if r.code != 0 || !strings.Contains(r.stdout, "rank 1 got 1 2 3 4 and 5") ||
		!strings.Contains(r.stdout, "rank 1 got 8 from the probe") || !strings.Contains(r.stdout, "rank 1 attribute 4242") {
		t.Fatalf("crrestart %s: %v", set, r)
	}
}

// TestCRLibFortranAttr: a Fortran program names its keyval
// (MPIL_CR_KEYVAL_NAME) before MPI_INIT and caches an INTEGER on
// MPI_COMM_WORLD, which a checkpoint saves with the request the program
// hands over on it; restarted, the attribute is back, and the receive
// gets the message sent since (testdata/crattr.f).
func TestCRLibFortranAttr(t *testing.T) {
	r, set := crRequestsRestart(t, "mpif77", "crattr.f")
	if r.code != 0 || !strings.Contains(r.stdout, "rank 1 got 5 attribute 107") {
		t.Fatalf("crrestart %s: %v", set, r)
	}
}

// TestCRLibCComms (testdata/crcomm.c): a C program's communicators — a
// named duplicate of MPI_COMM_WORLD holding an attribute of a named
// keyval, a split in reverse order, a periodic ring — handed to the
// checkpoint with MPIL_Cr_write_comm, come back at restart with
// MPIL_Cr_read_comm with their ranks, name, attribute and topology, and
// carry messages.
func TestCRLibCComms(t *testing.T) {
	r, set := crRequestsRestart(t, "mpicc", "crcomm.c")
	for _, want := range []string{
		"rank 0 got split 1 name crcomm dup attr 100 right 1 sum 1",
		"rank 1 got split 0 name crcomm dup attr 101 right 0 sum 1",
	} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("crrestart %s: want %q: %v", set, want, r)
		}
	}
}

// TestCRLibFortranComms (testdata/crcomm.f): the same in Fortran 77
// (MPIL_CR_WRITE_COMM, MPIL_CR_READ_COMM).
func TestCRLibFortranComms(t *testing.T) {
	r, set := crRequestsRestart(t, "mpif77", "crcomm.f")
	for _, want := range []string{
		"rank 0 got split 1 name crcomm dup attr 100 right 1 sum 1",
		"rank 1 got split 0 name crcomm dup attr 101 right 0 sum 1",
	} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("crrestart %s: want %q: %v", set, want, r)
		}
	}
}

// crRequestsRestart builds testdata/src with wrapper, runs it on 2 ranks
// over crtcp until rank 1 says "rank 1 posted", checkpoints it with
// -stop, and restarts it from the set; it returns crrestart's result.
func crRequestsRestart(t *testing.T, wrapper, src string) (result, string) {
	t.Helper()
	buildCRTools(t)
	needWrappers(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	prog := filepath.Join(l.prefix, strings.TrimSuffix(src, filepath.Ext(src)))
	cmd := exec.Command(bin(wrapper), "-o", prog, filepath.Join("testdata", src))
	cmd.Env = append(os.Environ(), "LAMHOME="+prefix)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", wrapper, src, err, b)
	}
	base := t.TempDir()
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base, "-np", "2", prog, gate)
	posted := slices.Contains(j.early, "rank 1 posted")
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	for !posted {
		select {
		case s := <-j.lines:
			posted = s == "rank 1 posted"
		case <-wctx.Done():
			t.Fatalf("rank 1 did not post\n%s", j.out.String())
		}
	}
	set := crCheckpoint(t, ctx, l, j.cmd.Process.Pid, "-stop")
	j.wait(t, ctx)
	if j.code != 0 || strings.Contains(j.out.String(), " got ") {
		t.Fatalf("mpirun after -stop: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	r := l.run(ctx, "crrestart", set)
	t.Cleanup(func() { noPartial(t, base) })
	return r, set
}
