package shm

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkLineFloor is the machine's floor: two threads passing a
// counter through one cache line each way, nothing else.
func BenchmarkLineFloor(b *testing.B) {
	mem, _ := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	defer unix.Munmap(mem)
	a := (*atomic.Uint64)(unsafe.Pointer(&mem[0]))
	c := (*atomic.Uint64)(unsafe.Pointer(&mem[128]))
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		for i := uint64(1); i <= uint64(b.N); i++ {
			for a.Load() != i {
			}
			c.Store(i)
		}
	}()
	runtime.LockOSThread()
	b.ResetTimer()
	for i := uint64(1); i <= uint64(b.N); i++ {
		a.Store(i)
		for c.Load() != i {
		}
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N)/1000, "µs/one-way")
}
