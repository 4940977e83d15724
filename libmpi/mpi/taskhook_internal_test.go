package mpi

import (
	"testing"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/task"
)

// TestCollRecord checks mpitask's record of a blocking collective: the
// coll framework's watcher (collWait) records the collective, its root
// and communicator while it waits and clears it after; a collective
// leaves no record behind; while tracing, a collective traces one
// begin and one end, whoever records it.
func TestCollRecord(t *testing.T) {
	World.collWait(coll.Bcast, 0, true)
	got, ok := task.Current()
	want := task.Call{Fn: task.FnColl + task.Fn(coll.Bcast), CommKind: task.CommWorld, Peer: 0, PeerW: 0, Tag: task.NoTag, Context: World.context}
	if !ok || got != want {
		t.Errorf("waiting in a Bcast: mpitask's record is %+v, %v; want %+v", got, ok, want)
	}
	World.collWait(coll.Bcast, 0, false)
	if got, ok := task.Current(); ok {
		t.Errorf("after the wait: mpitask's record is %+v", got)
	}

	buf := []int32{1, 2}
	for _, tt := range []struct {
		name string
		f    func() error
		kind coll.Kind
	}{
		{"Bcast", func() error { return Bcast(World, buf, 0) }, coll.Bcast},
		{"Allreduce", func() error { return Allreduce(World, buf, make([]int32, 2), Sum) }, coll.Allreduce},
		{"Barrier", func() error { return Barrier(World) }, coll.Barrier},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.f(); err != nil {
				t.Fatal(err)
			}
			if got, ok := task.Current(); ok {
				t.Errorf("after the call: mpitask's record is %+v", got)
			}
			task.EnableTracing(true)
			evs0, _ := task.Events()
			err := tt.f()
			task.SetTracing(false)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := task.Events()
			begins, ends := 0, 0
			for _, e := range evs[len(evs0):] {
				if e.Fn != task.FnColl+task.Fn(tt.kind) {
					continue
				}
				if e.Begin {
					begins++
				} else {
					ends++
				}
			}
			if begins != 1 || ends != 1 {
				t.Errorf("traced %d begins and %d ends of %s, want 1 and 1", begins, ends, tt.kind)
			}
		})
	}
}
