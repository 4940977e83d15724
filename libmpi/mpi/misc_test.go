package mpi_test

import (
	"strings"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestRequestGetStatus(t *testing.T) {
	buf := make([]int32, 2)
	r, err := mpi.Irecv(mpi.World, buf, 0, 71)
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := mpi.RequestGetStatus(r); done || err != nil {
		t.Fatalf("a pending receive: done %v %v", done, err)
	}
	mpi.Send(mpi.World, []int32{4, 5}, 0, 71)
	var st mpi.Status
	for done := false; !done; {
		st, done, err = mpi.RequestGetStatus(r)
	}
	if err != nil || st.Tag != 71 || st.Bytes != 8 {
		t.Errorf("get status: %+v %v", st, err)
	}
	// Still active: Wait reports it again, then it is inactive.
	if st2, err := r.Wait(); err != nil || st2 != st {
		t.Errorf("wait after get status: %+v %v", st2, err)
	}
	if st, done, err := mpi.RequestGetStatus(r); !done || err != nil || st.Source != mpi.AnySource {
		t.Errorf("an inactive request: %+v %v %v", st, done, err)
	}
	if _, done, _ := mpi.RequestGetStatus(nil); !done {
		t.Error("a nil request is not done")
	}
}

func TestReduceLocal(t *testing.T) {
	in, inout := []int32{1, 2, 3}, []int32{10, 20, 30, 40}
	if err := mpi.ReduceLocal(in, inout, mpi.Sum); err != nil || inout[0] != 11 || inout[2] != 33 || inout[3] != 40 {
		t.Errorf("sum: %v %v", inout, err)
	}
	f := []float64{2, 5}
	g := []float64{3, 3}
	if err := mpi.ReduceLocal(f, g, mpi.Max); err != nil || g[0] != 3 || g[1] != 5 {
		t.Errorf("max: %v %v", g, err)
	}
	// A non-commutative op: inout = in ∘ inout.
	sub, _ := mpi.NewOp(func(in, inout []int64) {
		for i := range in {
			inout[i] = in[i] - inout[i]
		}
	}, false)
	a := []int64{1}
	if err := mpi.ReduceLocal([]int64{10}, a, sub); err != nil || a[0] != 9 {
		t.Errorf("user op: %v %v", a, err)
	}
	if err := mpi.ReduceLocal([]float64{1}, []float64{1}, mpi.Band); mpi.Class(err) != mpi.ErrOp {
		t.Errorf("band on floats: %v", err)
	}
	if err := mpi.ReduceLocal([]int32{1, 2}, []int32{1}, mpi.Sum); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short inout: %v", err)
	}
	if err := mpi.ReduceLocal([]int32{1}, []int32{1}, sub); mpi.Class(err) != mpi.ErrOp {
		t.Errorf("op of another type: %v", err)
	}
}

func TestIsThreadMainAndPcontrol(t *testing.T) {
	// TestMain called Init on the test binary's main goroutine; tests run
	// on others.
	if mpi.IsThreadMain() {
		t.Error("a test's goroutine is the main one")
	}
	if mpi.PcontrolLevel() != 1 {
		t.Errorf("default level %d", mpi.PcontrolLevel())
	}
	if err := mpi.Pcontrol(0); err != nil || mpi.PcontrolLevel() != 0 {
		t.Errorf("pcontrol 0: %v", err)
	}
	mpi.Pcontrol(1)
	v := mpi.GetLibraryVersion()
	if !strings.HasPrefix(v, "LAM/Go ") {
		t.Errorf("library version %q", v)
	}
}

func TestSplitTypeShared(t *testing.T) {
	n, err := mpi.World.SplitType(mpi.SplitTypeShared, 0)
	if err != nil || n.Size() != 1 || n.Rank() != 0 {
		t.Fatalf("split shared: %v %v", n, err)
	}
	if got, _ := mpi.CommCompare(n, mpi.World); got != mpi.Congruent {
		t.Errorf("compare with World: %d", got)
	}
	n.Free()
	if n, err := mpi.World.SplitType(mpi.Undefined, 0); n != nil || err != nil {
		t.Errorf("undefined: %v %v", n, err)
	}
	if _, err := mpi.World.SplitType(77, 0); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("split type 77: %v", err)
	}
}

func TestCreateGroupAndIdup(t *testing.T) {
	g, _ := mpi.World.Group()
	n, err := mpi.World.CreateGroup(g, 5)
	if err != nil || n.Size() != 1 {
		t.Fatalf("create group: %v %v", n, err)
	}
	if err := mpi.Send(n, []int8{1}, 0, 1); err != nil {
		t.Error(err)
	}
	if _, err := mpi.Recv(n, []int8{0}, 0, 1); err != nil {
		t.Error(err)
	}
	n.Free()
	empty, _ := g.Excl([]int{0})
	if _, err := mpi.World.CreateGroup(empty, 5); mpi.Class(err) != mpi.ErrGroup {
		t.Errorf("create group without the caller: %v", err)
	}
	if _, err := mpi.World.CreateGroup(g, -3); mpi.Class(err) != mpi.ErrTag {
		t.Errorf("create group with tag -3: %v", err)
	}
	d, r, err := mpi.World.Idup()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Wait(); err != nil || st.Source != mpi.AnySource {
		t.Errorf("idup's request: %+v %v", st, err)
	}
	if got, _ := mpi.CommCompare(d, mpi.World); got != mpi.Congruent {
		t.Errorf("idup: compare %d", got)
	}
	d.Free()
}
