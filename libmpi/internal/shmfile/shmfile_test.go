package shmfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/testenv"
)

// smallTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it; the mount goes when the test ends. It needs root (skipped, or
// failed under LAM_TEST_STRICT=1, without).
func smallTmpfs(t *testing.T, size int) string {
	t.Helper()
	testenv.RequireRoot(t)
	dir := t.TempDir()
	if err := unix.Mount("shmfiletest", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		testenv.Skip(t, "mount a tmpfs: "+err.Error())
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// touch writes every page of mem but those in skip, and reports the fault
// a page the file system could not give raises (SIGBUS, which would
// otherwise kill the test binary).
func touch(mem []byte, skip ...Span) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fault touching the mapping: %v", r)
		}
	}()
next:
	for i := 0; i < len(mem); i += os.Getpagesize() {
		for _, sp := range skip {
			if i >= sp.Off && i < sp.Off+sp.Len {
				continue next
			}
		}
		mem[i] = 1
	}
	return nil
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bfree) * st.Bsize
}

// A file that does not fit in the file system's free space fails at
// Create (ENOSPC) and leaves nothing; one that fits can be touched all
// over, by its creator and by a process that opens it.
func TestCreateReserves(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name  string
		fs    int
		files []int  // made in turn; the last fails if fail
		skip  []Span // what the last leaves unreserved
		fail  bool
	}{
		{"fits", mib, []int{mib / 2}, nil, false},
		{"fills it", mib, []int{mib}, nil, false},
		{"too big", mib, []int{2 * mib}, nil, true},
		{"second does not fit", mib, []int{640 << 10, 640 << 10}, nil, true},
		{"several steps", 10 * mib, []int{9 * mib}, nil, false},
		{"fails past the first step", 10 * mib, []int{3 * mib, 9 * mib}, nil, true},
		{"fits without its unused spans", 2 * mib, []int{4 * mib}, []Span{{3 * mib, mib}, {mib, mib}}, false},
		{"unaligned unused spans", 2 * mib, []int{4 * mib}, []Span{{100, mib}, {2*mib + 100, 2*mib - 100}}, false},
		{"unused spans not enough", mib, []int{3 * mib}, []Span{{mib, mib - 4096}}, true},
		{"unused spans past the first step", 5 * mib, []int{11 * mib}, []Span{{2 * mib, 6 * mib}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := smallTmpfs(t, tt.fs)
			free := freeBytes(t, dir)
			var kept []string
			for i, size := range tt.files {
				path := filepath.Join(dir, fmt.Sprint("seg", i))
				var skip []Span
				if i == len(tt.files)-1 {
					skip = tt.skip
				}
				mem, err := Create(path, size, skip...)
				if tt.fail && i == len(tt.files)-1 {
					if err == nil {
						free := freeBytes(t, dir)
						terr := touch(mem, skip...)
						unix.Munmap(mem)
						t.Fatalf("Create of %d bytes in a %d-byte tmpfs with %d free succeeded (then touching every page: %v)", size, tt.fs, free, terr)
					}
					if !errors.Is(err, unix.ENOSPC) {
						t.Errorf("Create of %d bytes: %v, want ENOSPC", size, err)
					}
					if _, serr := os.Stat(path); !os.IsNotExist(serr) {
						t.Errorf("a failed Create left %s: %v", path, serr)
					}
					break
				}
				if err != nil {
					t.Fatalf("Create of %d bytes: %v", size, err)
				}
				if err := touch(mem, skip...); err != nil {
					t.Error(err)
				}
				unix.Munmap(mem)
				other, err := Open(path, size)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := touch(other, skip...); err != nil {
					t.Error(err)
				}
				unix.Munmap(other)
				kept = append(kept, path)
			}
			for _, p := range kept {
				os.Remove(p)
			}
			if got := freeBytes(t, dir); got != free {
				t.Errorf("%d bytes free once every file is gone, %d before", got, free)
			}
		})
	}
}

// Open's answers while the file is missing, being sized, or of another
// size; Create's when the file exists.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seg")
	if _, err := Open(path, 4096); !errors.Is(err, ErrNotYet) {
		t.Errorf("Open of a missing file: %v, want ErrNotYet", err)
	}
	mem, err := Create(path, 8192)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	defer os.Remove(path)
	if _, err := Create(path, 8192); !errors.Is(err, unix.EEXIST) {
		t.Errorf("Create of an existing file: %v, want EEXIST", err)
	}
	if _, err := Open(path, 16384); !errors.Is(err, ErrNotYet) {
		t.Errorf("Open of a shorter file: %v, want ErrNotYet", err)
	}
	if _, err := Open(path, 4096); err == nil || errors.Is(err, ErrNotYet) {
		t.Errorf("Open of a longer file: %v, want an error", err)
	}
	other, err := Open(path, 8192)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(other)
	mem[4096] = 7
	if other[4096] != 7 {
		t.Error("the two mappings do not share the file")
	}
}

// createTruncated is Create as it was before it reserved the pages.
func createTruncated(path string, size int) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Unlink(path)
		return nil, err
	}
	return mapFd(fd, path, size)
}

// What the reservation costs at Create, in /dev/shm, against sizing the
// file alone; and with every page then touched, which either way
// allocates them all.
func BenchmarkCreate(b *testing.B) {
	dir := "/dev/shm"
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		b.Skip("no /dev/shm")
	}
	for _, size := range []int{2 << 20, 8 << 20, 16 << 20} {
		for _, way := range []struct {
			name   string
			create func(string, int) ([]byte, error)
		}{{"reserved", func(p string, n int) ([]byte, error) { return Create(p, n) }}, {"truncated", createTruncated}} {
			for _, touchAll := range []bool{false, true} {
				name := fmt.Sprintf("%dMiB/%s", size>>20, way.name)
				if touchAll {
					name += "+touch"
				}
				b.Run(name, func(b *testing.B) {
					path := filepath.Join(dir, fmt.Sprintf("lam-shmfile-bench-%d", os.Getpid()))
					b.SetBytes(int64(size))
					for b.Loop() {
						mem, err := way.create(path, size)
						if err != nil {
							b.Fatal(err)
						}
						if touchAll {
							for i := 0; i < size; i += 4096 {
								mem[i] = 1
							}
						}
						unix.Munmap(mem)
						unix.Unlink(path)
					}
				})
			}
		}
	}
}
