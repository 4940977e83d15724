package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// TestMain runs every test and example in a world of one process (the
// test binary is started without mpirun).
func TestMain(m *testing.M) {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	code := m.Run()
	mpi.Finalize()
	os.Exit(code)
}

func TestSingletonWorld(t *testing.T) {
	if mpi.World.Size() != 1 || mpi.World.Rank() != 0 || mpi.Self.Size() != 1 || !mpi.Initialized() || mpi.Finalized() {
		t.Errorf("world %d/%d", mpi.World.Rank(), mpi.World.Size())
	}
	if mpi.QueryThread() != mpi.ThreadMultiple {
		t.Errorf("thread level %d", mpi.QueryThread())
	}
	if err := mpi.Init(); err == nil {
		t.Error("a second Init succeeded")
	}
}

func TestArgumentErrors(t *testing.T) {
	buf := []int32{1}
	tests := []struct {
		name string
		err  error
		want mpi.ErrorClass
	}{
		{"rank", mpi.Send(mpi.World, buf, 1, 0), mpi.ErrRank},
		{"negative rank", mpi.Send(mpi.World, buf, -7, 0), mpi.ErrRank},
		{"tag", mpi.Send(mpi.World, buf, 0, -1), mpi.ErrTag},
		{"comm", mpi.Send[int32](nil, buf, 0, 0), mpi.ErrComm},
	}
	for _, tt := range tests {
		if mpi.Class(tt.err) != tt.want || !errors.Is(tt.err, &mpi.Error{Class: tt.want}) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if _, err := mpi.Recv(mpi.World, buf, 3, 0); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("recv from rank 3: %v", err)
	}
	if _, err := mpi.Recv(mpi.World, buf, 0, -5); mpi.Class(err) != mpi.ErrTag {
		t.Errorf("recv tag -5: %v", err)
	}
}

func TestTruncateAndCancel(t *testing.T) {
	mpi.Send(mpi.World, []int64{1, 2, 3}, 0, 9)
	small := make([]int64, 2)
	st, err := mpi.Recv(mpi.World, small, 0, 9)
	if mpi.Class(err) != mpi.ErrTruncate || st.Bytes != 16 {
		t.Errorf("truncation: %+v %v", st, err)
	}
	r, _ := mpi.Irecv(mpi.World, small, 0, 10)
	r.Cancel()
	if st, err := r.Wait(); err != nil || !st.Cancelled {
		t.Errorf("cancel: %+v %v", st, err)
	}
	var nilReq *mpi.Request
	if st, err := nilReq.Wait(); err != nil || st.Source != mpi.AnySource {
		t.Errorf("wait on a null request: %+v %v", st, err)
	}
}

func TestErrhandlers(t *testing.T) {
	c, err := mpi.World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	var seen error
	c.SetErrhandler(mpi.NewErrhandler(func(_ *mpi.Comm, err error) { seen = err }))
	if err := mpi.Send(c, []byte{1}, 5, 0); err == nil || seen == nil || mpi.Class(seen) != mpi.ErrRank {
		t.Errorf("custom handler saw %v, call returned %v", seen, err)
	}
	if mpi.ErrorString(mpi.ErrTruncate) != "MPI_ERR_TRUNCATE" {
		t.Error(mpi.ErrorString(mpi.ErrTruncate))
	}
}

// A message to oneself: the simplest send and receive.
func Example() {
	if err := mpi.Send(mpi.World, []float64{3.14, 2.72}, 0, 1); err != nil {
		fmt.Println(err)
	}
	buf := make([]float64, 2)
	st, _ := mpi.Recv(mpi.World, buf, mpi.AnySource, mpi.AnyTag)
	fmt.Println(buf, "from", st.Source, "tag", st.Tag, "count", mpi.GetCount[float64](st))
	// Output: [3.14 2.72] from 0 tag 1 count 2
}

func ExampleIprobe() {
	mpi.Send(mpi.World, []int32{7, 8, 9}, 0, 4)
	st, ok, _ := mpi.Iprobe(mpi.World, mpi.AnySource, 4)
	buf := make([]int32, mpi.GetCount[int32](st))
	mpi.Recv(mpi.World, buf, st.Source, st.Tag)
	fmt.Println(ok, buf)
	// Output: true [7 8 9]
}

func ExampleComm_Split() {
	half, _ := mpi.World.Split(0, 0)
	fmt.Println(half.Size(), half.Rank())
	// Output: 1 0
}

func ExampleIsend() {
	r, _ := mpi.Isend(mpi.World, []byte("hi"), 0, 0)
	buf := make([]byte, 2)
	rr, _ := mpi.Irecv(mpi.World, buf, 0, 0)
	mpi.Waitall(r, rr)
	fmt.Println(string(buf))
	// Output: hi
}

// BenchmarkSendRecv is the eager path through the public API (to self,
// with the receive posted first): it must not allocate.
func BenchmarkSendRecv(b *testing.B) {
	buf := []float64{1, 2, 3, 4}
	in := make([]float64, 4)
	r, err := mpi.RecvInit(mpi.World, in, 0, 3)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Start()
		if err := mpi.Send(mpi.World, buf, 0, 3); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSendRecvAllocs(t *testing.T) {
	buf, in := []int32{1}, []int32{0}
	r, _ := mpi.RecvInit(mpi.World, in, 0, 4)
	allocs := testing.AllocsPerRun(100, func() {
		r.Start()
		mpi.Send(mpi.World, buf, 0, 4)
		r.Wait()
	})
	if allocs != 0 {
		t.Errorf("eager send and receive allocate %.1f times per message", allocs)
	}
}

// TestReductionAllocs checks that a reduction with a predefined op
// allocates nothing (the op's kernel is looked up, not made, per call).
func TestReductionAllocs(t *testing.T) {
	s, r := []float32{1, 2}, []float32{0, 0}
	x, y := []int64{3}, []int64{0}
	tests := []struct {
		name string
		f    func()
	}{
		{"Allreduce float32 Sum", func() { mpi.Allreduce(mpi.World, s, r, mpi.Sum) }},
		{"Allreduce int64 Bxor", func() { mpi.Allreduce(mpi.World, x, y, mpi.Bxor) }},
		{"Reduce float32 Max", func() { mpi.Reduce(mpi.World, s, r, mpi.Max, 0) }},
		{"ReduceLocal int64 Prod", func() { mpi.ReduceLocal(x, y, mpi.Prod) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f() // the first call makes the op's kernel
			if allocs := testing.AllocsPerRun(100, tt.f); allocs != 0 {
				t.Errorf("%.1f allocations per call", allocs)
			}
		})
	}
}

// TestEmptyNonblockingAllocs checks that a nonblocking collective that
// moves nothing costs one allocation, the Request the program keeps (not
// the engine's request, the pool's parts or a schedule), and that the
// request is still reported once.
func TestEmptyNonblockingAllocs(t *testing.T) {
	var none []float64
	tests := []struct {
		name  string
		start func() (*mpi.Request, error)
	}{
		{"Ibcast", func() (*mpi.Request, error) { return mpi.Ibcast(mpi.World, none, 0) }},
		{"Iallreduce", func() (*mpi.Request, error) { return mpi.Iallreduce(mpi.World, none, none, mpi.Sum) }},
		{"Ireduce", func() (*mpi.Request, error) { return mpi.Ireduce(mpi.World, none, none, mpi.Max, 0) }},
		{"Igather", func() (*mpi.Request, error) { return mpi.Igather(mpi.World, none, none, 0) }},
		{"Iscatter", func() (*mpi.Request, error) { return mpi.Iscatter(mpi.World, none, none, 0) }},
		{"Iallgather", func() (*mpi.Request, error) { return mpi.Iallgather(mpi.World, none, none) }},
		{"Ialltoall", func() (*mpi.Request, error) { return mpi.Ialltoall(mpi.World, none, none) }},
		{"IreduceScatterBlock", func() (*mpi.Request, error) { return mpi.IreduceScatterBlock(mpi.World, none, none, mpi.Sum) }},
		{"Iscan", func() (*mpi.Request, error) { return mpi.Iscan(mpi.World, none, none, mpi.Sum) }},
		{"Iexscan", func() (*mpi.Request, error) { return mpi.Iexscan(mpi.World, none, none, mpi.Sum) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func() {
				r, err := tt.start()
				if err != nil {
					t.Fatal(err)
				}
				if !r.Active() {
					t.Fatal("inactive before it was reported")
				}
				if _, err := r.Wait(); err != nil || r.Active() {
					t.Fatalf("Wait: %v, active after: %v", err, r.Active())
				}
			}
			run() // the first call makes the op's kernel
			if allocs := testing.AllocsPerRun(100, run); allocs != 1 {
				t.Errorf("%.1f allocations per call, want 1 (the Request)", allocs)
			}
		})
	}
}

func TestBsendInit(t *testing.T) {
	if err := mpi.BufferAttach(make([]byte, 4*(8+mpi.BsendOverhead))); err != nil {
		t.Fatal(err)
	}
	defer mpi.BufferDetach()
	buf := []int64{0}
	r, err := mpi.BsendInit(mpi.World, buf, 0, 21)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		buf[0] = i
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	got := []int64{0}
	for i := int64(1); i <= 3; i++ {
		if _, err := mpi.Recv(mpi.World, got, 0, 21); err != nil || got[0] != i {
			t.Fatalf("message %d: %v %v", i, got, err)
		}
	}
}

// BenchmarkIbcastEmpty is a nonblocking collective that moves nothing,
// started and waited for (Open MPI returns its empty request).
func BenchmarkIbcastEmpty(b *testing.B) {
	var none []float64
	b.ReportAllocs()
	for b.Loop() {
		r, err := mpi.Ibcast(mpi.World, none, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
