// Package vmcopy copies straight between this process's memory and
// another's of the same user, with process_vm_readv(2) and
// process_vm_writev(2): one copy, made by the kernel, instead of two
// through shared memory. The shared-memory rpis copy long messages this
// way, and shmem's collectives their large blocks.
package vmcopy

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Op names a direction's system call.
func Op(write bool) (op, dir string, trap uintptr) {
	if write {
		return "write", "to", unix.SYS_PROCESS_VM_WRITEV
	}
	return "read", "from", unix.SYS_PROCESS_VM_READV
}

// Call makes one process_vm_readv(2) or process_vm_writev(2) call (trap)
// as a raw system call, which skips the Go scheduler's bookkeeping: a
// copy of a megabyte takes longer than the runtime's monitor lets a
// processor sit in a system call, so with an ordinary one the monitor
// handed the processor to a new thread that spun beside the copy, on the
// processor the peer needed for its own copy (2 processes, an Allgather
// of 1 MiB: 8 context switches per call). The tcp link reads and writes
// the same way. lv and rv must not be empty.
func Call(trap uintptr, pid int, lv []unix.Iovec, rv []unix.RemoteIovec) (int, error) {
	n, _, errno := unix.RawSyscall6(trap, uintptr(pid), uintptr(unsafe.Pointer(&lv[0])), uintptr(len(lv)),
		uintptr(unsafe.Pointer(&rv[0])), uintptr(len(rv)), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Read copies len(dst) bytes at addr in process pid's memory into dst.
func Read(pid int, dst []byte, addr uint64) error { return Copy(pid, dst, addr, false) }

// Write copies src to addr in process pid's memory.
func Write(pid int, src []byte, addr uint64) error { return Copy(pid, src, addr, true) }

// Copy copies between local and addr in process pid's memory: to it if
// write, from it otherwise, in as many calls as the kernel needs (a call
// may move less than asked, or be interrupted). It makes no allocation.
func Copy(pid int, local []byte, addr uint64, write bool) error {
	op, dir, trap := Op(write)
	for done := 0; done < len(local); {
		lv := [1]unix.Iovec{{Base: &local[done]}}
		lv[0].SetLen(len(local) - done)
		rv := [1]unix.RemoteIovec{{Base: uintptr(addr) + uintptr(done), Len: len(local) - done}}
		n, err := Call(trap, pid, lv[:], rv[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s %d bytes %s process %d: %w", op, len(local)-done, dir, pid, err)
		}
		if n == 0 {
			return fmt.Errorf("%s %s process %d: nothing moved", op, dir, pid)
		}
		done += n
	}
	return nil
}

// Addr is the address of b's first byte, as another process names it.
// b must not be empty.
func Addr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }
