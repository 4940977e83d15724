package vmcopy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// Copies within this process (its own pid), both ways, of several sizes;
// a bad address or an ended process is an error that says so.
func TestCopy(t *testing.T) {
	pid := os.Getpid()
	for _, n := range []int{1, 4095, 4096, 1 << 20} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + 3)
		}
		dst := make([]byte, n)
		if err := Read(pid, dst, Addr(src)); err != nil || !bytes.Equal(dst, src) {
			t.Errorf("read %d bytes: %v (equal %v)", n, err, bytes.Equal(dst, src))
		}
		back := make([]byte, n)
		if err := Write(pid, src, Addr(back)); err != nil || !bytes.Equal(back, src) {
			t.Errorf("write %d bytes: %v (equal %v)", n, err, bytes.Equal(back, src))
		}
	}
	if err := Read(pid, make([]byte, 8), 8); !errors.Is(err, unix.EFAULT) {
		t.Errorf("read from address 8: %v, want EFAULT", err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	if err := Read(cmd.Process.Pid, make([]byte, 8), Addr(make([]byte, 8))); !errors.Is(err, unix.ESRCH) {
		t.Errorf("read from an ended process: %v, want ESRCH", err)
	}
	if err := Copy(pid, nil, 0, false); err != nil {
		t.Errorf("copy of nothing: %v", err)
	}
}
