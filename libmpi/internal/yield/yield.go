// Package yield is how a waiting goroutine gives up its processor: to the
// process's other goroutines in a Go program, to the operating system in
// a library built for C (libmpi.so).
//
// In a C program every MPI call runs in a cgo callback, locked to the
// calling thread, and runtime.Gosched on a locked thread hands the
// processor to another thread of the scheduler and waits to be handed it
// back: 7–30 µs on the 2-core test machine, against 60 ns in a Go
// program. There a wait yields with sched_yield instead, which costs a
// system call and lets the peer processes run.
package yield

import (
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// ToOS says that Yield gives the processor to the operating system
// (sched_yield) rather than to the process's goroutines: so it is in a
// library for C (c-shared or c-archive).
var ToOS = func() bool {
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

// Yield gives the processor up once: runtime.Gosched in a Go program,
// sched_yield in a library for C.
func Yield() {
	if ToOS {
		OS()
		return
	}
	runtime.Gosched()
}

// OS gives the processor to the operating system's other threads and
// processes (sched_yield).
func OS() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
