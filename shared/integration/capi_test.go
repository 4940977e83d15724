package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The C interface (libmpi/capi) built into prefix/lib and prefix/include
// once per run, as `make capi` builds it.
var capiBuild struct {
	once sync.Once
	err  error
}

// repoRoot is the top of the source tree.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// needCLib builds libmpi.so and installs mpi.h under prefix (or fails or
// skips when there is no C compiler).
func needCLib(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		if os.Getenv("LAM_TEST_STRICT") == "1" {
			t.Fatal("gcc is missing (LAM_TEST_STRICT=1)")
		}
		t.Skip("gcc is missing")
	}
	capiBuild.once.Do(func() {
		root := repoRoot()
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(prefix, "lib", "libmpi.so"), "./libmpi/capi")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			capiBuild.err = &cmdError{"go build -buildmode=c-shared ./libmpi/capi", string(out), err}
			return
		}
		os.Remove(filepath.Join(prefix, "lib", "libmpi.h"))
		hs, _ := filepath.Glob(filepath.Join(root, "libmpi", "capi", "include", "*.h"))
		if err := os.MkdirAll(filepath.Join(prefix, "include"), 0o755); err != nil {
			capiBuild.err = err
			return
		}
		for _, h := range hs {
			b, err := os.ReadFile(h)
			if err == nil {
				err = os.WriteFile(filepath.Join(prefix, "include", filepath.Base(h)), b, 0o644)
			}
			if err != nil {
				capiBuild.err = err
				return
			}
		}
	})
	if capiBuild.err != nil {
		t.Fatal(capiBuild.err)
	}
}

type cmdError struct {
	what, out string
	err       error
}

func (e *cmdError) Error() string { return e.what + ": " + e.err.Error() + "\n" + e.out }

// compileC compiles one C (.c) or Fortran 77 (.f) source file against
// prefix's mpi.h or mpif.h and libmpi.so.
func compileC(t testing.TB, src string) string {
	t.Helper()
	needCLib(t)
	cc, flags := "gcc", []string{"-Wall", "-Werror", "-O2"}
	if filepath.Ext(src) == ".f" {
		cc, flags = "gfortran", []string{"-Wall", "-O2", "-fallow-argument-mismatch"}
		if _, err := exec.LookPath(cc); err != nil {
			if os.Getenv("LAM_TEST_STRICT") == "1" {
				t.Fatal("gfortran is missing (LAM_TEST_STRICT=1)")
			}
			t.Skip("gfortran is missing")
		}
	}
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	lib := filepath.Join(prefix, "lib")
	args := append(flags, "-I"+filepath.Join(prefix, "include"), "-o", exe, src, "-L"+lib, "-Wl,-rpath,"+lib, "-lmpi", "-lm")
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, src, err, out)
	}
	return exe
}

// npLine is a test program's "np: 1 3" line: the first line of a C
// comment ("/* np: ...") or a Fortran one ("C     np: ...").
var npLine = regexp.MustCompile(`(?m)^(?:\s*/\*|C|!)?\s*np:((?:[ \t]+\d+)+)`)

// TestCPrograms runs every libmpi/capi/testdata/mpi/*.c (and *.f) under mpirun over
// every rpi, on the rank counts its "np:" comment line names. A program
// prints "ok ..." lines, "FAIL ..." for a failed check, and exits
// non-zero on failure.
func TestCPrograms(t *testing.T) {
	needPgrep(t)
	dir := filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "mpi")
	srcs, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	fsrcs, _ := filepath.Glob(filepath.Join(dir, "*.f"))
	srcs = append(srcs, fsrcs...)
	if len(srcs) == 0 {
		t.Fatal("no C test programs in libmpi/capi/testdata/mpi")
	}
	ctx, l := bootLocal(t, 8*time.Minute)
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		m := npLine.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s has no \"np: N ...\" line", src)
		}
		exe := compileC(t, src)
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		// usysv and sysv twice: with libmpi.so's C fast path (fast.c) and
		// without it (the Go path only).
		for _, rpi := range []string{"usysv", "sysv", "tcp", "crtcp", "lamd", "usysv/nofast", "sysv/nofast"} {
			for _, np := range strings.Fields(string(m[1])) {
				t.Run(name+"/"+rpi+"/np"+np, func(t *testing.T) {
					rl, module := l, rpi
					if m, ok := strings.CutSuffix(rpi, "/nofast"); ok {
						rl, module = l.withEnv("LAM_MPI_CAPI_FAST=0"), m
					}
					r := rl.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", np, exe)
					if r.code != 0 || strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "ok") {
						t.Errorf("%v", r)
					}
				})
			}
		}
	}
}

// TestCFastPath checks that libmpi.so's C fast path (libmpi/capi/fast.c)
// carries the small blocking messages of p2p_fast.c over the shared-memory
// rpis, and nothing when LAM_MPI_CAPI_FAST=0 or over tcp; the program
// checks the messages themselves (TestCPrograms runs it everywhere).
func TestCFastPath(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	exe := compileC(t, filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "mpi", "p2p_fast.c"))
	for _, c := range []struct {
		rpi, want string
		env       []string
	}{
		{"usysv", "fast", nil},
		{"sysv", "fast", nil},
		{"usysv", "slow", []string{"LAM_MPI_CAPI_FAST=0"}},
		{"tcp", "slow", nil},
	} {
		t.Run(c.rpi+"/"+c.want, func(t *testing.T) {
			r := l.withEnv(c.env...).run(ctx, "mpirun", "-ssi", "rpi", c.rpi, "-np", "2", exe, c.want)
			if r.code != 0 || strings.Contains(r.stdout, "FAIL") || strings.Count(r.stdout, "ok p2p_fast") != 2 {
				t.Errorf("%v", r)
			}
		})
	}
}

// TestCFastColl checks that libmpi.so's C fast path of small collectives
// (libmpi/capi/fastcoll.c) runs the collectives of coll_fast.c when
// MPI_COMM_WORLD's module is shmem, on 2 and 4 processes, at
// coll_base_check=1 and 2, and none with LAM_MPI_CAPI_FAST=0 or with
// lam_basic; the program checks the results and the errors of calls whose
// counts differ (TestCPrograms runs it everywhere).
func TestCFastColl(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	exe := compileC(t, filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "mpi", "coll_fast.c"))
	for _, c := range []struct {
		name, want string
		np         int
		args, env  []string
	}{
		{"shmem", "fast", 2, nil, nil},
		{"shmem", "fast", 4, nil, nil},
		{"shmem check2", "fast", 3, []string{"-ssi", "coll_base_check", "2"}, nil},
		// More buffers than a line of digests holds: the calls lie further on.
		{"shmem segs40", "fast", 3, []string{"-ssi", "coll_base_shmem_num_segments", "40", "-ssi", "coll_base_shmem_message_pool_size", "655360"}, nil},
		// Buffers of 4 KiB: a Bcast or Gather of 6 KiB sends its call in a
		// span of two, which the C path does not mirror (Go runs it).
		{"shmem spans", "fast", 3, []string{"-ssi", "coll_base_shmem_num_segments", "16", "-ssi", "coll_base_shmem_message_pool_size", "65536"}, nil},
		{"nofast", "slow", 2, nil, []string{"LAM_MPI_CAPI_FAST=0"}},
		{"lam_basic", "slow", 3, []string{"-ssi", "coll", "lam_basic"}, nil},
		{"lam_basic check2", "slow", 2, []string{"-ssi", "coll", "lam_basic", "-ssi", "coll_base_check", "2"}, nil},
	} {
		t.Run(fmt.Sprintf("%s/np%d", c.name, c.np), func(t *testing.T) {
			args := append(append([]string{}, c.args...), "-np", strconv.Itoa(c.np), exe, c.want)
			if strings.Contains(c.name, "check2") {
				args = append(args, "check2") // every process gets every error
			}
			r := l.withEnv(c.env...).run(ctx, "mpirun", args...)
			if r.code != 0 || strings.Contains(r.stdout, "FAIL") || strings.Count(r.stdout, "ok coll_fast") != c.np {
				t.Errorf("%v", r)
			}
		})
	}
}

// TestCCollAllocs checks that the blocking collectives of predefined
// datatypes called from C allocate nothing on the Go side of libmpi.so
// (coll_allocs.c counts the heap objects its calls made) with the
// default coll modules, over shared memory and tcp.
func TestCCollAllocs(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	exe := compileC(t, filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "mpi", "coll_allocs.c"))
	for _, c := range []struct {
		rpi string
		np  int
	}{
		{"usysv", 2}, {"usysv", 3}, {"tcp", 2},
	} {
		t.Run(fmt.Sprintf("%s/np%d", c.rpi, c.np), func(t *testing.T) {
			r := l.run(ctx, "mpirun", "-ssi", "rpi", c.rpi, "-np", strconv.Itoa(c.np), exe, "strict")
			if r.code != 0 || strings.Contains(r.stdout, "FAIL") || strings.Count(r.stdout, "ok coll_allocs rank") != c.np {
				t.Errorf("%v", r)
			}
		})
	}
}

// TestCFastPathCheckpoint checkpoints a job of two C ranks that ping-pong
// on the C fast path over usysv (the checkpoint's drain and hold must see
// what the C code sent and received), twice, lets it go on, and checks
// every message it exchanged before and after.
func TestCFastPathCheckpoint(t *testing.T) {
	needPgrep(t)
	buildCRTools(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	exe := compileC(t, filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "cr", "crpingpong.c"))
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "usysv", "-ssi", "cr_base_dir", t.TempDir(), "-np", "2", exe, gate)
	pid := j.cmd.Process.Pid
	crCheckpoint(t, ctx, l, pid)
	crCheckpoint(t, ctx, l, pid)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j.wait(t, ctx)
	if out := j.out.String(); j.code != 0 || strings.Contains(out, "FAIL") || strings.Count(out, "ok crpingpong") != 2 {
		t.Fatalf("mpirun: exit %d\n%s\n%s", j.code, out, j.stderr.String())
	}
	if strings.Contains(j.out.String(), " 0 on the fast path") {
		t.Errorf("a rank sent and received nothing on the C fast path\n%s", j.out.String())
	}
	t.Log(strings.TrimSpace(j.out.String()))
}
