package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/lamgo/lam/libmpi/mpi"
)

// attrs: attributes across ranks: the predefined attributes of World, the
// copy callbacks of a collective Dup (each rank's own values), a Dup that
// still communicates, the delete callbacks of a collective Free, and on
// rank 0 a delete callback of Self that Finalize runs (it prints "self
// deleted" after "attrs ok universe N").
func init() {
	suites["attrs"] = attrs
	suites["appnum"] = appnumSuite
}

func attrs(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	for _, p := range []struct {
		name string
		k    *mpi.Keyval[int]
		want int
	}{{"TAG_UB", mpi.KeyTagUB, mpi.TagUB}, {"HOST", mpi.KeyHost, mpi.ProcNull}, {"IO", mpi.KeyIO, mpi.AnySource}} {
		if v, ok, err := mpi.GetAttr(w, p.k); v != p.want || !ok || err != nil {
			fail("%s: %d %v %v", p.name, v, ok, err)
		}
	}
	universe, ok, err := mpi.GetAttr(w, mpi.KeyUniverseSize)
	if !ok || err != nil || universe < 1 {
		fail("UNIVERSE_SIZE: %d %v %v", universe, ok, err)
	}
	if app, ok, err := mpi.GetAttr(w, mpi.KeyAppNum); app != 0 || !ok || err != nil {
		fail("APPNUM of a command line's job: %d %v %v", app, ok, err) // its one line
	}

	var log []string
	k := mpi.NewKeyval(func(old *mpi.Comm, v int) (int, bool, error) {
		log = append(log, fmt.Sprintf("copy %d", v))
		return v + 1000, true, nil
	}, func(c *mpi.Comm, v int) error {
		log = append(log, fmt.Sprintf("delete %d", v))
		return nil
	})
	refused := mpi.NewKeyval(func(*mpi.Comm, string) (string, bool, error) { return "", false, nil }, nil)
	must(mpi.SetAttr(w, k, rank))
	must(mpi.SetAttr(w, refused, "x"))
	d, err := w.Dup()
	if err != nil {
		fail("Dup: %v", err)
	}
	if v, ok, _ := mpi.GetAttr(d, k); v != rank+1000 || !ok {
		fail("the Dup's attribute: %d %v", v, ok)
	}
	if _, ok, _ := mpi.GetAttr(d, refused); ok {
		fail("a refused copy was kept")
	}
	sum := []int32{int32(rank)}
	must(mpi.Allreduce(d, []int32{int32(rank)}, sum, mpi.Sum))
	if int(sum[0]) != size*(size-1)/2 {
		fail("Allreduce on the Dup: %d", sum[0])
	}
	must(d.Free())
	must(mpi.DeleteAttr(w, k))
	if want := []string{fmt.Sprintf("copy %d", rank), fmt.Sprintf("delete %d", rank+1000), fmt.Sprintf("delete %d", rank)}; !slices.Equal(log, want) {
		fail("callbacks %q, want %q", log, want)
	}
	must(k.Free())
	if size >= 2 {
		interAttrs(rank)
	}
	if rank == 0 {
		fmt.Printf("attrs ok universe %d\n", universe)
		self := mpi.NewKeyval(nil, func(c *mpi.Comm, v string) error {
			fmt.Println(v)
			return nil
		})
		must(mpi.SetAttr(mpi.Self, self, "self deleted"))
	}
}

// interAttrs: an intercommunicator's Dup runs the copy callbacks too.
func interAttrs(rank int) {
	color := rank % 2
	local, err := mpi.World.Split(color, rank)
	if err != nil {
		fail("Split: %v", err)
	}
	ic, err := mpi.IntercommCreate(local, 0, mpi.World, 1-color, 77)
	if err != nil {
		fail("IntercommCreate: %v", err)
	}
	deleted := 0
	k := mpi.NewKeyval(func(_ *mpi.Comm, v int) (int, bool, error) { return 2 * v, true, nil },
		func(*mpi.Comm, int) error { deleted++; return nil })
	must(mpi.SetAttr(ic, k, rank+1))
	d, err := ic.Dup()
	if err != nil {
		fail("Dup of an intercommunicator: %v", err)
	}
	if v, ok, _ := mpi.GetAttr(d, k); v != 2*(rank+1) || !ok {
		fail("the intercommunicator Dup's attribute: %d %v", v, ok)
	}
	must(d.Free())
	must(ic.Free())
	must(local.Free())
	if deleted != 2 {
		fail("%d delete callbacks, want 2", deleted)
	}
	must(k.Free())
}

// appnumSuite ("testprog appnum N", started from line N of an app
// schema) checks that MPI_APPNUM is N, and that the ranks of each line
// agree: rank 0 prints "appnum ok" and the line of every rank.
func appnumSuite(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	want, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if err != nil {
		fail("appnum needs the line number as its argument")
	}
	app, ok, err := mpi.GetAttr(w, mpi.KeyAppNum)
	if !ok || err != nil || app != want {
		fail("APPNUM %d %v %v, want %d", app, ok, err, want)
	}
	all := make([]int64, size)
	mustOK("Allgather", mpi.Allgather(w, []int64{int64(app)}, all))
	if rank == 0 {
		fmt.Println("appnum ok", all)
	}
}
