package coll

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// TestViewReuse: a view whose schedule completed goes back to its
// communicator and is the next view made (reset, its scratch buffers
// kept); a schedule stopped by an error keeps its views out (a receive
// may still be posted into their buffers); a freed communicator keeps
// none.
func TestViewReuse(t *testing.T) {
	w := &waitCounter{}
	p := NewProgress(w.wait, w.wait, nil)
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
	p := NewProgress(w.wait, w.wait, nil)
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

// viewKept are the fields of Comm that a reused view keeps (Comm.reset):
// what it took from its communicator when made, its buffers, its locks.
// Every other field must be reset; a field added to Comm fails
// TestViewReset until it is reset or listed here.
var viewKept = map[string]bool{
	"mu": true, "settings": true, "module": true, "act": true, "selected": true, "scratch": true,
	"nbAct": true, "nbSent": true, "base": true, "bufs": true, "freeMu": true,
	"lastSig": true, // the digest of a call: the same on every view of the communicator
}

// commFields returns Comm's fields by name, those of its embedded
// structs flattened, as addressable values of c (unexported ones too).
func commFields(c *Comm) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			fv := reflect.NewAt(f.Type, unsafe.Pointer(v.Field(i).UnsafeAddr())).Elem()
			if f.Anonymous {
				walk(fv)
				continue
			}
			out[f.Name] = fv
		}
	}
	walk(reflect.ValueOf(c).Elem())
	return out
}

// dirty sets v (settable) to a value other than its zero.
func dirty(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(3)
	case reflect.String:
		v.SetString("dirty")
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Func:
		v.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value { return nil }))
	case reflect.Interface:
		for _, x := range []any{errors.New("dirty"), oneRecv{}, "dirty"} {
			if reflect.TypeOf(x).AssignableTo(v.Type()) {
				v.Set(reflect.ValueOf(x))
				return
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			dirty(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			dirty(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem())
		}
	}
}

// TestViewReset: a reused view, every field a collective could have
// changed made dirty first, is reset to what a new view of the same
// communicator is, and keeps its buffers and what it took from its
// communicator.
func TestViewReset(t *testing.T) {
	w := &waitCounter{}
	p := NewProgress(w.wait, w.wait, nil)
	mkBase := func() *Comm {
		return &Comm{T: oneRecv{r: &pendingRecv{}}, Params: Params{Small: 5, Check: true}, Data: "module data",
			selected: "lam_basic", nbcState: nbcState{nbAct: Actions{Barrier: func(*Comm) error { return nil }}}}
	}
	base := mkBase()
	v := base.viewLocked(7, nil, p)
	v.Scratch(0, 64)
	bufs, scratch := v.bufs, v.scratch[0]
	fields := commFields(v)
	for name, f := range fields {
		if !viewKept[name] {
			dirty(f)
		}
	}
	v.sched = nil
	base.free = append(base.free, v) // as recycle does
	v2 := base.viewLocked(9, nil, p)
	if v2 != v {
		t.Fatal("the view was not reused")
	}
	if v2.bufs != bufs || &v2.scratch[0][0] != &scratch[0] {
		t.Error("the reused view lost its buffers")
	}
	if v2.sched == nil || v2.sched.bufs != bufs || len(v2.sched.views) != 1 || v2.sched.views[0] != v2 {
		t.Error("the reused view's schedule is not its own on its buffers")
	}
	other := mkBase()
	fresh := other.viewLocked(9, nil, p)
	got, want := commFields(v2), commFields(fresh)
	for name, g := range got {
		switch name {
		case "sched", "bufs", "scratch":
			continue // checked above
		case "base", "nbSent":
			if g.Interface() != reflect.ValueOf(map[string]any{"base": base, "nbSent": &base.nbSentCount}[name]).Interface() {
				t.Errorf("field %s: not the view's communicator's", name)
			}
			continue
		}
		if g.Kind() == reflect.Func || g.Kind() == reflect.Struct && name == "act" {
			continue // functions do not compare; act is kept (below)
		}
		if !reflect.DeepEqual(g.Interface(), want[name].Interface()) {
			if viewKept[name] {
				t.Errorf("field %s (kept) is %v, a new view's is %v", name, g.Interface(), want[name].Interface())
			} else {
				t.Errorf("field %s is %v after reset, a new view's is %v: reset it (Comm.reset) or list it in viewKept", name, g.Interface(), want[name].Interface())
			}
		}
	}
	if v2.act.Barrier == nil {
		t.Error("the reused view lost its communicator's nonblocking functions")
	}
}
