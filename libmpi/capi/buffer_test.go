package main

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// mustFor is a helper that fails t on a constructor's error.
func mustFor(t *testing.T) func(*mpi.Datatype, error) *mpi.Datatype {
	return func(d *mpi.Datatype, err error) *mpi.Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

// committed is the table entry of a derived type, committed.
func committed(t *testing.T, d *mpi.Datatype) *dtype {
	t.Helper()
	e := newDerived(d, nil)
	if err := e.commit(); err != nil {
		t.Fatal(err)
	}
	return e
}

// dataOf is the data count elements of e at buf give: the buffer's bytes
// packed with the walk buffer returns.
func dataOf(t *testing.T, e *dtype, buf unsafe.Pointer, count int) []byte {
	t.Helper()
	b, walk, n, err := e.buffer(buf, count)
	if err != nil {
		t.Fatal(err)
	}
	if walk == nil {
		return append([]byte(nil), b...)
	}
	out := make([]byte, mpi.PackSize(n, walk))
	if err := mpi.Pack(b, n, walk, out, new(int)); err != nil {
		t.Fatal(err)
	}
	return out
}

// Each case names its buffer by an offset into mem and the bytes of mem
// (mem[i] == i) its elements must give, in order.
func TestBufferDerived(t *testing.T) {
	must := mustFor(t)
	var mem [64]byte
	for i := range mem {
		mem[i] = byte(i)
	}
	at := func(off int) unsafe.Pointer { return unsafe.Pointer(&mem[off]) }
	i32 := mpi.Int32
	tests := []struct {
		name  string
		d     *mpi.Datatype
		buf   int
		count int
		want  []byte
	}{
		{"vector", must(mpi.TypeVector(2, 1, 2, i32)), 0, 2,
			[]byte{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23}},
		{"negative lb", must(mpi.TypeHindexed([]int{1, 1}, []int{-8, 4}, i32)), 16, 1,
			[]byte{8, 9, 10, 11, 20, 21, 22, 23}},
		{"negative lb, count 2", must(mpi.TypeHindexed([]int{1}, []int{-8}, i32)), 16, 2,
			[]byte{8, 9, 10, 11, 12, 13, 14, 15}},
		{"data after a gap", must(mpi.TypeCreateResized(must(mpi.TypeHindexed([]int{1}, []int{12}, i32)), 0, 16)), 0, 2,
			[]byte{12, 13, 14, 15, 28, 29, 30, 31}},
		{"negative extent", must(mpi.TypeCreateResized(i32, 0, -8)), 40, 3,
			[]byte{40, 41, 42, 43, 32, 33, 34, 35, 24, 25, 26, 27}},
		{"contiguous derived", must(mpi.TypeContiguous(3, i32)), 4, 1,
			[]byte{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
	}
	for _, tt := range tests {
		got := dataOf(t, committed(t, tt.d), at(tt.buf), tt.count)
		if string(got) != string(tt.want) {
			t.Errorf("%s: data %v, want %v", tt.name, got, tt.want)
		}
	}
}

// MPI_BOTTOM: displacements are addresses. The variables live outside
// Go's heap, as a C program's do (and as checkptr wants under -race).
func TestBufferBottom(t *testing.T) {
	must := mustFor(t)
	page, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(page)
	for i := range page {
		page[i] = byte(i)
	}
	ax, ay := int(uintptr(unsafe.Pointer(&page[200]))), int(uintptr(unsafe.Pointer(&page[64])))
	d := must(mpi.TypeStruct([]int{1, 1}, []int{ay, ax}, []*mpi.Datatype{mpi.Float64, mpi.Int32}))
	got := dataOf(t, committed(t, d), nil, 1)
	want := append(append([]byte(nil), page[64:72]...), page[200:204]...)
	if string(got) != string(want) {
		t.Errorf("MPI_BOTTOM: %v, want %v", got, want)
	}
	// Offsets that are not addresses are refused, not followed.
	rel := committed(t, must(mpi.TypeVector(2, 1, 2, mpi.Int32)))
	if _, _, _, err := rel.buffer(nil, 1); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("MPI_BOTTOM with offsets: %v, want ErrBuffer", err)
	}
	neg := committed(t, must(mpi.TypeHindexed([]int{1}, []int{-64}, mpi.Int32)))
	if _, _, _, err := neg.buffer(nil, 1); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("MPI_BOTTOM with a negative offset: %v, want ErrBuffer", err)
	}
}

func TestBufferErrors(t *testing.T) {
	must := mustFor(t)
	v := must(mpi.TypeVector(2, 1, 2, mpi.Int32))
	var mem [16]byte
	if _, _, _, err := newDerived(v, nil).buffer(unsafe.Pointer(&mem[0]), 1); mpi.Class(err) != mpi.ErrType {
		t.Errorf("uncommitted: %v, want ErrType", err)
	}
	e := committed(t, v)
	if _, _, _, err := e.buffer(unsafe.Pointer(&mem[0]), -1); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("negative count: %v, want ErrCount", err)
	}
	huge := committed(t, must(mpi.TypeCreateResized(mpi.Int32, 0, 1<<40)))
	if _, _, _, err := huge.buffer(unsafe.Pointer(&mem[0]), 1<<20); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("a span over the address space: %v, want ErrCount", err)
	}
	wide := committed(t, must(mpi.TypeCreateResized(mpi.Int32, 0, 1<<62)))
	if _, _, _, err := wide.buffer(unsafe.Pointer(&mem[0]), 5); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("a stride that overflows: %v, want ErrCount", err)
	}
	big := &dtype{d: must(mpi.TypeOpaque("big", 1<<45, 1)), size: 1 << 45, contig: true}
	if _, _, _, err := big.buffer(unsafe.Pointer(&mem[0]), 8); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("a contiguous size that overflows: %v, want ErrCount", err)
	}
	if b, walk, n, err := e.buffer(unsafe.Pointer(&mem[0]), 0); err != nil || len(b) != 0 || walk == nil || n != 0 {
		t.Errorf("count 0: %d bytes, walk %v, n %d, %v", len(b), walk, n, err)
	}
}

// The derived path allocates nothing per call: the walk is built once, at
// commit.
func TestBufferAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	must := mustFor(t)
	e := committed(t, must(mpi.TypeHindexed([]int{1, 1}, []int{-8, 4}, mpi.Int32)))
	var mem [32]byte
	p := unsafe.Pointer(&mem[16])
	if n := testing.AllocsPerRun(100, func() { e.buffer(p, 1) }); n != 0 {
		t.Errorf("buffer allocates %v times per call", n)
	}
}
