// Package yield is how a waiting goroutine gives up its processor, which
// differs between a Go program and a library built for C (libmpi.so).
//
// In a C program every MPI call runs in a cgo callback, locked to the
// calling thread, and runtime.Gosched on a locked thread hands the
// processor to another thread of the scheduler and waits to be handed it
// back: 7–30 µs on the 2-core test machine, against 60 ns in a Go
// program. From C a wait therefore never calls Gosched: the process's
// other goroutines run on the scheduler's other processors meanwhile, and
// where a Go program's wait also yields to the other processes
// (sched_yield), so does a C program's.
package yield

import (
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// FromC says that the MPI calls come from C: the program is a library
// built for C (c-shared or c-archive).
var FromC = func() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && cBuildMode(bi.Settings)
}()

// cBuildMode reports whether build settings make a library for C.
func cBuildMode(settings []debug.BuildSetting) bool {
	for _, s := range settings {
		if s.Key == "-buildmode" {
			return s.Value == "c-shared" || s.Value == "c-archive"
		}
	}
	return false
}

// Goroutines gives the processor to the process's other goroutines
// (runtime.Gosched) in a Go program, where that is cheap when there are
// none; from C it does nothing.
func Goroutines() {
	if !FromC {
		runtime.Gosched()
	}
}

// OS gives the processor to the operating system's other threads and
// processes (sched_yield).
func OS() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// OSKeep gives the processor to the operating system's other threads and
// processes as OS does, but through a raw system call: the thread keeps
// the process's Go processor, which the scheduler's monitor would
// otherwise hand to another thread when yields let other processes run
// for a while. For waits that yield in a tight loop: shmem's, and the
// core's on an oversubscribed node. There the monitor's hand-offs cost a
// thread wake-up and a context switch per yield: 2 processes per
// processor on two namespace hosts, 64 KiB Alltoall over tcp, 1.4 ms with
// OS against 0.63 with OSKeep (bench/README.md, session 20); on one node
// alike within the noise.
func OSKeep() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
