package coll

import (
	"errors"
	"runtime"
	"testing"
)

// TestViewReuse: a view whose schedule completed goes back to its
// communicator and is the next view made (reset, its scratch buffers
// kept); a schedule stopped by an error keeps its views out (a receive
// may still be posted into their buffers); a freed communicator keeps
// none.
func TestViewReuse(t *testing.T) {
	w := &waitCounter{}
	p := NewProgress(w.wait, w.wait)
	r := &pendingRecv{}
	base := &Comm{T: oneRecv{r: r}}
	run := func(fail bool) *Comm {
		t.Helper()
		v := base.viewLocked(7, nil, p)
		s := v.sched
		if s == nil || v.base != base || v.fault != nil || v.tag != 7 {
			t.Fatalf("a view made for a schedule: sched %v base %v fault %v tag %d", v.sched == s, v.base == base, v.fault, v.tag)
		}
		if fail {
			s.Fail(errors.New("stopped"))
		} else {
			r.done.Store(false)
			s.Recv(v, make([]byte, 8), 0)
		}
		v.Fault(&Error{Class: ErrOther, Msg: "a mismatch"}) // a fault does not keep it out
		v.Launch(Barrier, nil)
		r.done.Store(true)
		if err := s.Wait(); err == nil {
			t.Fatal("the schedule's outcome lost its view's fault or error")
		}
		return v
	}
	v1 := run(false)
	v1.Scratch(0, 64)[0] = 1
	v2 := run(false)
	if v2 != v1 {
		t.Fatal("the view of a completed schedule was not reused")
	}
	if b := v2.Scratch(0, 64); b[0] != 1 {
		t.Error("a reused view lost its scratch buffer")
	}
	v3 := run(true)
	if v3 != v1 {
		t.Fatal("the view of a completed schedule was not reused")
	}
	if v4 := run(false); v4 == v3 {
		t.Error("the view of a schedule stopped by an error was reused")
	}
	if err := base.Free(); err != nil {
		t.Fatal(err)
	}
	if v5 := run(false); len(base.free) != 0 {
		t.Errorf("a freed communicator kept %d views (%p)", len(base.free), v5)
	}
}

// TestScheduleAllocs: a small schedule (a round of a send and a
// receive, and a local step) allocates the Schedule and its wait
// condition and nothing else: its view is reused, its transfers and
// local steps are in arrays its view lends it.
func TestScheduleAllocs(t *testing.T) {
	w := &waitCounter{}
	p := NewProgress(w.wait, w.wait)
	r := &pendingRecv{}
	base := &Comm{T: oneRecv{r: r}}
	buf, in := make([]byte, 8), make([]byte, 8)
	step := func() error { return nil }
	run := func() {
		v := base.viewLocked(7, nil, p)
		s := v.sched
		r.done.Store(false)
		s.Recv(v, in, 0)
		s.Recv(v, buf, 1)
		s.Next()
		s.Copy(buf, in)
		s.Do(step)
		v.Launch(Barrier, nil)
		r.done.Store(true)
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(100, run)
	if allocs > 2 {
		t.Errorf("%.1f allocations per small schedule, want at most 2 (the Schedule and its wait condition)", allocs)
	}
	// The arrays the steps are in are the view's: the Schedule itself is
	// a few words.
	var before, after runtime.MemStats
	const n = 100
	runtime.ReadMemStats(&before)
	for range n {
		run()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 512 {
		t.Errorf("%d bytes allocated per small schedule, want at most 512 (its arrays are the view's)", per)
	}
}
