package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// bootSmallShm boots a local universe whose lamd, and so every process
// of its jobs, sees at /dev/shm a tmpfs of size (mount's notation, "4m"):
// lamboot runs in a mount namespace of its own (private, so nothing
// leaks to the host's), where the lamd it starts stays; the tmpfs goes
// with the namespace when the lamd halts. It needs root and mount(8).
func bootSmallShm(t *testing.T, d time.Duration, size string) (context.Context, *local) {
	t.Helper()
	testenv.RequireRoot(t)
	if _, err := exec.LookPath("mount"); err != nil {
		testenv.Skip(t, "mount (util-linux) is missing")
	}
	ctx := testContext(t, d)
	sp := t.TempDir()
	l := &local{t: t, prefix: sp, env: append(os.Environ(),
		"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
	cmd := exec.CommandContext(ctx, "sh", "-c", `mount -t tmpfs -o size="$1",mode=1777 lamtest /dev/shm || exit 99; shift; exec "$@"`,
		"sh", size, bin("lamboot"), "-H")
	cmd.Env = l.env
	cmd.Dir = sp
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	r := runCmd(t, cmd)
	switch {
	case r.code == 99:
		testenv.Skip(t, "mount a tmpfs on /dev/shm in a mount namespace: "+r.stderr)
	case r.code != 0:
		t.Fatalf("lamboot in a mount namespace: %v", r)
	}
	t.Cleanup(func() {
		l.run(context.Background(), "lamhalt", "-H")
		l.run(context.Background(), "lamwipe", "-H")
	})
	return ctx, l
}

// A /dev/shm too small for the shared memory a job asks for: the shmem
// coll module leaves the communicators whose area does not fit to
// lam_basic and the job's results are right; an rpi segment that does not
// fit fails MPI_Init with a clear error. Neither dies of a SIGBUS at the
// first page the file system cannot give, as they did when the files were
// only sized.
func TestShmTooSmall(t *testing.T) {
	needPgrep(t)
	ctx, l := bootSmallShm(t, 3*time.Minute, "4m")
	for _, tt := range []struct {
		args []string
		want string
	}{
		// World's area at 8 processes is 16 MiB: lam_basic's functions
		// (shmem keeps its name).
		{[]string{"-ssi", "rpi", "tcp", "-np", "8", bin("testprog"), "coll"}, "coll ok shmem\n"},
		{[]string{"-ssi", "rpi", "tcp", "-np", "3", bin("testprog"), "coll"}, "coll ok shmem\n"},
		// Small rings and pools fit: usysv and shmem's own functions.
		{[]string{"-ssi", "rpi_usysv_maxalloc", "65536", "-ssi", "coll_base_shmem_message_pool_size", "65536", "-np", "2", bin("testprog"), "coll"}, "coll ok shmem\n"},
	} {
		if r := l.run(ctx, "mpirun", tt.args...); r.code != 0 || r.stdout != tt.want {
			t.Errorf("mpirun %v: %v, want %q", tt.args, r, tt.want)
		}
	}
	// The same bits from the areas that did not fit as from lam_basic.
	var sums []string
	for _, coll := range [][]string{nil, {"-ssi", "coll", "lam_basic"}} {
		r := l.run(ctx, "mpirun", append(coll, "-ssi", "rpi", "tcp", "-np", "8", bin("testprog"), "collsum")...)
		if r.code != 0 || !collsumRE.MatchString(r.stdout) {
			t.Fatalf("collsum %v: %v", coll, r)
		}
		sums = append(sums, r.stdout)
	}
	if sums[0] != sums[1] {
		t.Errorf("collsum: %q where shmem's areas did not fit, %q with lam_basic", sums[0], sums[1])
	}
	// usysv's segment for 8 processes is 14 MiB.
	r := l.run(ctx, "mpirun", "-ssi", "rpi", "usysv", "-np", "8", bin("testprog"), "coll")
	if r.code == 0 || !strings.Contains(r.stderr, "MPI_Init") || !strings.Contains(r.stderr, "do not fit in the free space of /dev/shm") ||
		strings.Contains(r.stderr, "SIGBUS") {
		t.Errorf("usysv with a segment larger than /dev/shm: %v", r)
	}
	noneLeft(t, "testprog")
}
