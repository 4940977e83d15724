package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Every nonblocking collective in a world of one process gives what its
// blocking twin gives, through Wait, Test and Waitall; several are
// outstanding at once, beside a blocking one on a duplicate.
func TestNonblockingCollectives(t *testing.T) {
	c := mpi.World
	dup, err := c.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer dup.Free()
	in := []int64{3, 1, 4, 1, 5}
	want := func(f func(out []int64) error) []int64 {
		t.Helper()
		out := make([]int64, len(in))
		if err := f(out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	type nb struct {
		name string
		out  []int64
		want []int64
		r    *mpi.Request
		err  error
	}
	var cases []*nb
	add := func(name string, w []int64, start func(out []int64) (*mpi.Request, error)) {
		out := make([]int64, len(in))
		r, err := start(out)
		cases = append(cases, &nb{name, out, w, r, err})
	}
	add("Ibcast", in, func(out []int64) (*mpi.Request, error) { copy(out, in); return mpi.Ibcast(c, out, 0) })
	add("Ireduce", want(func(o []int64) error { return mpi.Reduce(dup, in, o, mpi.Sum, 0) }),
		func(out []int64) (*mpi.Request, error) { return mpi.Ireduce(c, in, out, mpi.Sum, 0) })
	add("Iallreduce", want(func(o []int64) error { return mpi.Allreduce(dup, in, o, mpi.Max) }),
		func(out []int64) (*mpi.Request, error) { return mpi.Iallreduce(c, in, out, mpi.Max) })
	add("Igather", in, func(out []int64) (*mpi.Request, error) { return mpi.Igather(c, in, out, 0) })
	add("Igatherv", in, func(out []int64) (*mpi.Request, error) {
		return mpi.Igatherv(c, in, out, []int{len(in)}, []int{0}, 0)
	})
	add("Iscatter", in, func(out []int64) (*mpi.Request, error) { return mpi.Iscatter(c, in, out, 0) })
	add("Iscatterv", in, func(out []int64) (*mpi.Request, error) {
		return mpi.Iscatterv(c, in, []int{len(in)}, []int{0}, out, 0)
	})
	add("Iallgather", in, func(out []int64) (*mpi.Request, error) { return mpi.Iallgather(c, in, out) })
	add("Iallgatherv", in, func(out []int64) (*mpi.Request, error) {
		return mpi.Iallgatherv(c, in, out, []int{len(in)}, []int{0})
	})
	add("Ialltoall", in, func(out []int64) (*mpi.Request, error) { return mpi.Ialltoall(c, in, out) })
	add("Ialltoallv", in, func(out []int64) (*mpi.Request, error) {
		return mpi.Ialltoallv(c, in, []int{len(in)}, []int{0}, out, []int{len(in)}, []int{0})
	})
	add("IreduceScatter", in, func(out []int64) (*mpi.Request, error) {
		return mpi.IreduceScatter(c, in, out, []int{len(in)}, mpi.Sum)
	})
	add("IreduceScatterBlock", in, func(out []int64) (*mpi.Request, error) {
		return mpi.IreduceScatterBlock(c, in, out, mpi.Sum)
	})
	add("Iscan", in, func(out []int64) (*mpi.Request, error) { return mpi.Iscan(c, in, out, mpi.Sum) })
	add("Iexscan", make([]int64, len(in)), func(out []int64) (*mpi.Request, error) { return mpi.Iexscan(c, in, out, mpi.Sum) })
	// A blocking collective on the duplicate while they are under way.
	var sum [5]int64
	if err := mpi.Allreduce(dup, in, sum[:], mpi.Sum); err != nil {
		t.Fatal(err)
	}
	var reqs []*mpi.Request
	for _, k := range cases {
		if k.err != nil {
			t.Fatalf("%s: %v", k.name, k.err)
		}
		reqs = append(reqs, k.r)
	}
	// The last by Wait, the one before by Test until done, the rest by
	// Waitall (which skips the inactive ones).
	if _, err := reqs[len(reqs)-1].Wait(); err != nil {
		t.Fatal(err)
	}
	for {
		_, done, err := reqs[len(reqs)-2].Test()
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if _, err := mpi.Waitall(reqs...); err != nil {
		t.Fatal(err)
	}
	for _, k := range cases {
		if !slices.Equal(k.out, k.want) {
			t.Errorf("%s: %v, want %v", k.name, k.out, k.want)
		}
	}
	r, err := mpi.Ibarrier(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A nonblocking collective's request, once reported, stays inactive
// while the parts it had serve the collectives started after it: Wait,
// Test, the any/some/all functions, RequestGetStatus and Free treat it
// as a request waited for, and the later collectives complete with their
// own results. (testprog icollreuse does so across processes, on shmem's
// board, and counts the bytes a start allocates.)
func TestNonblockingRequestReported(t *testing.T) {
	c := mpi.World
	in := []int64{7}
	out := make([]int64, 1)
	first, err := mpi.Iallreduce(c, in, out, mpi.Sum)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		in[0] = int64(i)
		r, err := mpi.Iallreduce(c, in, out, mpi.Sum)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(); err != nil || out[0] != int64(i) {
			t.Fatalf("Iallreduce %d after the first: %v, %v", i, out[0], err)
		}
	}
	checkReported(t, first)
	// Beside a live one, the reported one is skipped.
	live, err := mpi.Ibarrier(c)
	if err != nil {
		t.Fatal(err)
	}
	if i, _, done, err := mpi.Testany(first); err != nil || !done || i != mpi.Undefined {
		t.Errorf("Testany of the reported one: %d, %v, %v", i, done, err)
	}
	if i, _, err := mpi.Waitany(first, live); err != nil || i != 1 {
		t.Errorf("Waitany: %d, %v; want 1", i, err)
	}
	if _, err := mpi.Waitall(first, live); err != nil {
		t.Fatal(err)
	}

}

// A nonblocking collective that moves nothing (every buffer empty)
// returns a request complete at once and active until reported, as any
// other: Test finds it done, Waitany reports it, Wait gives the empty
// status; then it is inactive. A collective that moves data after many
// of them runs as before (they take no number of the communicator's).
func TestNonblockingZeroSize(t *testing.T) {
	c := mpi.World
	var none []int64
	starts := []struct {
		name  string
		start func() (*mpi.Request, error)
	}{
		{"Ibcast", func() (*mpi.Request, error) { return mpi.Ibcast(c, none, 0) }},
		{"Iallreduce", func() (*mpi.Request, error) { return mpi.Iallreduce(c, none, none, mpi.Sum) }},
		{"Ireduce", func() (*mpi.Request, error) { return mpi.Ireduce(c, none, none, mpi.Sum, 0) }},
		{"Igather", func() (*mpi.Request, error) { return mpi.Igather(c, none, none, 0) }},
		{"Iscatter", func() (*mpi.Request, error) { return mpi.Iscatter(c, none, none, 0) }},
		{"Iallgather", func() (*mpi.Request, error) { return mpi.Iallgather(c, none, none) }},
		{"Ialltoall", func() (*mpi.Request, error) { return mpi.Ialltoall(c, none, none) }},
	}
	for _, st := range starts {
		for i := range 300 {
			r, err := st.start()
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if !r.Active() {
				t.Fatalf("%s: the request is inactive before it was reported", st.name)
			}
			switch i % 3 {
			case 0:
				if _, done, err := r.Test(); !done || err != nil {
					t.Fatalf("%s: Test: %v, %v", st.name, done, err)
				}
			case 1:
				if k, _, err := mpi.Waitany(r); k != 0 || err != nil {
					t.Fatalf("%s: Waitany: %d, %v", st.name, k, err)
				}
			default:
				if s, err := r.Wait(); err != nil || s.Source != mpi.AnySource || s.Tag != mpi.AnyTag {
					t.Fatalf("%s: Wait: %+v, %v", st.name, s, err)
				}
			}
			if r.Active() {
				t.Fatalf("%s: the request is active after it was reported", st.name)
			}
		}
	}
	in, out := []int64{4}, make([]int64, 1)
	r, err := mpi.Iallreduce(c, in, out, mpi.Sum)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil || out[0] != 4 {
		t.Fatalf("Iallreduce after the empty ones: %v, %v", out[0], err)
	}
}

// An argument error is returned when the collective starts, with no
// request.
func TestNonblockingArgumentErrors(t *testing.T) {
	r, err := mpi.Ibcast(mpi.World, []int32{1}, 3)
	var me *mpi.Error
	if r != nil || !errors.As(err, &me) || me.Class != mpi.ErrRoot {
		t.Errorf("Ibcast with root 3: %v, %v; want ErrRoot", r, err)
	}
	r, err = mpi.Iallreduce(mpi.World, []int32{1, 2}, make([]int32, 3), mpi.Sum)
	if r != nil || !errors.As(err, &me) || me.Class != mpi.ErrCount {
		t.Errorf("Iallreduce of 2 into 3: %v, %v; want ErrCount", r, err)
	}
}

// The nonblocking collectives over datatypes give what their blocking
// twins give, all outstanding at once; a column goes out, a contiguous
// run comes in.
func TestNonblockingTypeCollectives(t *testing.T) {
	c := mpi.World
	col, _ := mpi.TypeVector(3, 1, 4, mpi.Int32)
	m := make([]int32, 12)
	for i := range m {
		m[i] = int32(i*i + 1)
	}
	mb := i32b(m)
	three := func() []byte { return i32b([]int32{-1, -1, -1, -1, -1, -1}) }
	type twin struct {
		name string
		nb   func(out []byte) (*mpi.Request, error)
		b    func(out []byte) error
	}
	one, c1 := []int{3}, []int{1}
	twins := []twin{
		{"Bcast", func(o []byte) (*mpi.Request, error) { copy(o, mb); return mpi.IbcastType(c, o, 1, col, 0) },
			func(o []byte) error { copy(o, mb); return mpi.BcastType(c, o, 1, col, 0) }},
		{"Gather", func(o []byte) (*mpi.Request, error) { return mpi.IgatherType(c, mb[4:], 1, col, o, 3, mpi.Int32, 0) },
			func(o []byte) error { return mpi.GatherType(c, mb[4:], 1, col, o, 3, mpi.Int32, 0) }},
		{"Gatherv", func(o []byte) (*mpi.Request, error) {
			return mpi.IgathervType(c, mb[4:], 1, col, o, one, c1, mpi.Int32, 0)
		}, func(o []byte) error { return mpi.GathervType(c, mb[4:], 1, col, o, one, c1, mpi.Int32, 0) }},
		{"Scatter", func(o []byte) (*mpi.Request, error) { return mpi.IscatterType(c, mb, 3, mpi.Int32, o, 1, col, 0) },
			func(o []byte) error { return mpi.ScatterType(c, mb, 3, mpi.Int32, o, 1, col, 0) }},
		{"Scatterv", func(o []byte) (*mpi.Request, error) {
			return mpi.IscattervType(c, mb, one, c1, mpi.Int32, o, 3, mpi.Int32, 0)
		}, func(o []byte) error { return mpi.ScattervType(c, mb, one, c1, mpi.Int32, o, 3, mpi.Int32, 0) }},
		{"Allgather", func(o []byte) (*mpi.Request, error) { return mpi.IallgatherType(c, mb, 1, col, o, 3, mpi.Int32) },
			func(o []byte) error { return mpi.AllgatherType(c, mb, 1, col, o, 3, mpi.Int32) }},
		{"Allgatherv", func(o []byte) (*mpi.Request, error) {
			return mpi.IallgathervType(c, mb, 1, col, o, one, c1, mpi.Int32)
		}, func(o []byte) error { return mpi.AllgathervType(c, mb, 1, col, o, one, c1, mpi.Int32) }},
		{"Alltoall", func(o []byte) (*mpi.Request, error) { return mpi.IalltoallType(c, mb, 1, col, o, 3, mpi.Int32) },
			func(o []byte) error { return mpi.AlltoallType(c, mb, 1, col, o, 3, mpi.Int32) }},
		{"Alltoallv", func(o []byte) (*mpi.Request, error) {
			return mpi.IalltoallvType(c, mb, c1, []int{0}, col, o, one, c1, mpi.Int32)
		}, func(o []byte) error { return mpi.AlltoallvType(c, mb, c1, []int{0}, col, o, one, c1, mpi.Int32) }},
		{"Reduce", func(o []byte) (*mpi.Request, error) { return mpi.IreduceType(c, mb, o, 1, col, mpi.Sum, 0) },
			func(o []byte) error { return mpi.ReduceType(c, mb, o, 1, col, mpi.Sum, 0) }},
		{"Allreduce", func(o []byte) (*mpi.Request, error) { return mpi.IallreduceType(c, mb, o, 1, col, mpi.Max) },
			func(o []byte) error { return mpi.AllreduceType(c, mb, o, 1, col, mpi.Max) }},
		{"Scan", func(o []byte) (*mpi.Request, error) { return mpi.IscanType(c, mb, o, 1, col, mpi.Sum) },
			func(o []byte) error { return mpi.ScanType(c, mb, o, 1, col, mpi.Sum) }},
		{"Exscan", func(o []byte) (*mpi.Request, error) { return mpi.IexscanType(c, mb, o, 1, col, mpi.Sum) },
			func(o []byte) error { return mpi.ExscanType(c, mb, o, 1, col, mpi.Sum) }},
		{"ReduceScatter", func(o []byte) (*mpi.Request, error) {
			return mpi.IreduceScatterType(c, mb, o, c1, col, mpi.Sum)
		}, func(o []byte) error { return mpi.ReduceScatterType(c, mb, o, c1, col, mpi.Sum) }},
		{"ReduceScatterBlock", func(o []byte) (*mpi.Request, error) {
			return mpi.IreduceScatterBlockType(c, mb, o, 1, col, mpi.Sum)
		}, func(o []byte) error { return mpi.ReduceScatterBlockType(c, mb, o, 1, col, mpi.Sum) }},
	}
	outs := make([][]byte, len(twins))
	reqs := make([]*mpi.Request, len(twins))
	for i, tw := range twins {
		outs[i] = append(three(), three()...)
		r, err := tw.nb(outs[i])
		if err != nil {
			t.Fatalf("I%sType: %v", tw.name, err)
		}
		reqs[i] = r
	}
	if _, err := mpi.Waitall(reqs...); err != nil {
		t.Fatal(err)
	}
	for i, tw := range twins {
		want := append(three(), three()...)
		if err := tw.b(want); err != nil {
			t.Fatalf("%sType: %v", tw.name, err)
		}
		if !slices.Equal(outs[i], want) {
			t.Errorf("I%sType: %v, blocking %v", tw.name, outs[i], want)
		}
	}
	if r, err := mpi.IgatherType(c, mb, 1, nil, make([]byte, 48), 1, col, 0); r != nil || mpi.Class(err) != mpi.ErrType {
		t.Errorf("nil type: %v %v", r, err)
	}
}
