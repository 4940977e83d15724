package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// callLog records callback calls.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, fmt.Sprintf(format, args...))
}

func (l *callLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls = nil
	return c
}

func (l *callLog) expect(t *testing.T, what string, want ...string) {
	t.Helper()
	if got := l.take(); !slices.Equal(got, want) {
		t.Errorf("%s: callbacks\n got %q\nwant %q", what, got, want)
	}
}

// name of a communicator in the log: which of those the test made.
func commName(comms map[*mpi.Comm]string, c *mpi.Comm) string {
	if n, ok := comms[c]; ok {
		return n
	}
	return "?"
}

func dupWorld(t *testing.T) *mpi.Comm {
	t.Helper()
	c, err := mpi.World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAttrCallbackOrder checks the order MPI requires: Dup runs the copy
// callbacks in keyval creation order (whatever order the attributes were
// set in) and keeps only what they keep; SetAttr over a value deletes the
// old one; DeleteAttr deletes; Free runs the delete callbacks before the
// communicator goes.
func TestAttrCallbackOrder(t *testing.T) {
	var log callLog
	comms := map[*mpi.Comm]string{}
	mk := func(name string, keep bool) *mpi.Keyval[int] {
		return mpi.NewKeyval(func(old *mpi.Comm, v int) (int, bool, error) {
			log.add("copy %s %s=%d keep=%v", name, commName(comms, old), v, keep)
			if _, ok, err := mpi.GetAttr(mpi.World, mpi.KeyTagUB); err != nil || !ok {
				t.Errorf("GetAttr inside a copy callback: %v %v", ok, err)
			}
			return v * 10, keep, nil
		}, func(c *mpi.Comm, v int) error {
			if _, _, err := mpi.GetAttr(c, mpi.KeyTagUB); err != nil {
				t.Errorf("delete %s: the communicator is already gone: %v", name, err)
			}
			log.add("delete %s %s=%d", name, commName(comms, c), v)
			return nil
		})
	}
	k1, k2, k3 := mk("k1", true), mk("k2", false), mk("k3", true)
	defer k1.Free()
	defer k2.Free()
	defer k3.Free()
	a := dupWorld(t)
	comms[a] = "a"
	// Set in another order than the keyvals were made.
	for _, s := range []struct {
		k *mpi.Keyval[int]
		v int
	}{{k3, 3}, {k1, 1}, {k2, 2}} {
		if err := mpi.SetAttr(a, s.k, s.v); err != nil {
			t.Fatal(err)
		}
	}
	log.expect(t, "first sets")
	if err := mpi.SetAttr(a, k1, 11); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "set over a value", "delete k1 a=1")

	b, err := a.Dup()
	if err != nil {
		t.Fatal(err)
	}
	comms[b] = "b"
	log.expect(t, "Dup", "copy k1 a=11 keep=true", "copy k2 a=2 keep=false", "copy k3 a=3 keep=true")
	for _, w := range []struct {
		k    *mpi.Keyval[int]
		v    int
		have bool
	}{{k1, 110, true}, {k2, 0, false}, {k3, 30, true}} {
		if v, ok, err := mpi.GetAttr(b, w.k); v != w.v || ok != w.have || err != nil {
			t.Errorf("dup's attribute: %d %v %v, want %d %v", v, ok, err, w.v, w.have)
		}
	}
	if v, ok, _ := mpi.GetAttr(a, k2); v != 2 || !ok {
		t.Errorf("the original lost k2: %d %v", v, ok)
	}

	if err := mpi.DeleteAttr(b, k3); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "DeleteAttr", "delete k3 b=30")
	if err := mpi.DeleteAttr(b, k3); err != nil {
		t.Errorf("deleting an attribute that is not set: %v", err)
	}
	log.expect(t, "DeleteAttr of nothing")
	if _, ok, _ := mpi.GetAttr(b, k3); ok {
		t.Error("k3 still set after DeleteAttr")
	}

	// Free: the delete callbacks, newest attribute first.
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "Free a", "delete k1 a=11", "delete k2 a=2", "delete k3 a=3")
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "Free b", "delete k1 b=110")
}

// TestAttrCopyDupFn checks CommDupFn (MPI_COMM_DUP_FN) and nil copy
// (MPI_COMM_NULL_COPY_FN).
func TestAttrCopyDupFn(t *testing.T) {
	dup := mpi.NewKeyval(mpi.CommDupFn[[]string], nil)
	none := mpi.NewKeyval[string](nil, nil)
	a := dupWorld(t)
	defer a.Free()
	mpi.SetAttr(a, dup, []string{"x"})
	mpi.SetAttr(a, none, "y")
	b, err := a.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if v, ok, _ := mpi.GetAttr(b, dup); !ok || len(v) != 1 || v[0] != "x" {
		t.Errorf("CommDupFn: %q %v", v, ok)
	}
	if _, ok, _ := mpi.GetAttr(b, none); ok {
		t.Error("a nil copy callback copied")
	}
}

// TestAttrDeleteError: a delete callback's error makes DeleteAttr, SetAttr
// and Free fail with it; the attribute, and the communicator, stay.
func TestAttrDeleteError(t *testing.T) {
	var log callLog
	refuse := true
	k := mpi.NewKeyval(nil, func(c *mpi.Comm, v string) error {
		log.add("delete %s", v)
		if refuse {
			return &mpi.Error{Class: mpi.ErrArg, Msg: "not now"}
		}
		return nil
	})
	plain := mpi.NewKeyval(nil, func(c *mpi.Comm, v int) error {
		log.add("delete plain %d", v)
		if refuse {
			return errors.New("plain refusal")
		}
		return nil
	})
	a := dupWorld(t)
	mpi.SetAttr(a, k, "v1")
	mpi.SetAttr(a, plain, 7)

	err := mpi.DeleteAttr(a, k)
	if mpi.Class(err) != mpi.ErrArg {
		t.Errorf("DeleteAttr with a refusing callback: %v, want class %v", err, mpi.ErrArg)
	}
	if v, ok, _ := mpi.GetAttr(a, k); !ok || v != "v1" {
		t.Errorf("the attribute went: %q %v", v, ok)
	}
	if err := mpi.SetAttr(a, k, "v2"); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("SetAttr over a value whose delete fails: %v", err)
	}
	if v, _, _ := mpi.GetAttr(a, k); v != "v1" {
		t.Errorf("SetAttr replaced the value although its delete failed: %q", v)
	}
	err = mpi.DeleteAttr(a, plain)
	if mpi.Class(err) != mpi.ErrOther || err.Error() == "" || !errors.Is(err, &mpi.Error{Class: mpi.ErrOther}) {
		t.Errorf("a plain error from a callback: %v, want class %v", err, mpi.ErrOther)
	}
	log.expect(t, "refusals", "delete v1", "delete v1", "delete plain 7")

	// Free stops at the first refusal (the newest attribute, plain) and
	// leaves the communicator usable.
	if err := a.Free(); mpi.Class(err) != mpi.ErrOther {
		t.Errorf("Free with a refusing callback: %v", err)
	}
	log.expect(t, "refused Free", "delete plain 7")
	if _, _, err := mpi.GetAttr(a, k); err != nil {
		t.Fatalf("a refused Free freed the communicator: %v", err)
	}
	if err := mpi.Barrier(a); err != nil {
		t.Errorf("Barrier after a refused Free: %v", err)
	}
	refuse = false
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "Free", "delete plain 7", "delete v1")
}

// TestAttrCopyError: a copy callback's error makes Dup fail; what it had
// copied is deleted again.
func TestAttrCopyError(t *testing.T) {
	var log callLog
	good := mpi.NewKeyval(mpi.CommDupFn[int], func(c *mpi.Comm, v int) error {
		log.add("delete good %d", v)
		return nil
	})
	bad := mpi.NewKeyval(func(*mpi.Comm, int) (int, bool, error) {
		log.add("copy bad")
		return 0, false, &mpi.Error{Class: mpi.ErrIntern, Msg: "cannot copy"}
	}, nil)
	a := dupWorld(t)
	defer a.Free()
	mpi.SetAttr(a, bad, 2)
	mpi.SetAttr(a, good, 1)
	b, err := a.Dup()
	if b != nil || mpi.Class(err) != mpi.ErrIntern {
		t.Errorf("Dup with a failing copy callback: %v %v", b, err)
	}
	log.expect(t, "failed Dup", "copy bad", "delete good 1")
	if v, ok, _ := mpi.GetAttr(a, good); v != 1 || !ok {
		t.Errorf("the original lost its attribute: %d %v", v, ok)
	}
	mpi.DeleteAttr(a, bad)
	log.take()
}

// TestKeyvalFree: a freed keyval sets and gets no more, but its values
// keep their delete callback.
func TestKeyvalFree(t *testing.T) {
	var log callLog
	k := mpi.NewKeyval(mpi.CommDupFn[int], func(c *mpi.Comm, v int) error {
		log.add("delete %d", v)
		return nil
	})
	a := dupWorld(t)
	mpi.SetAttr(a, k, 5)
	if err := k.Free(); err != nil {
		t.Fatal(err)
	}
	if err := k.Free(); mpi.Class(err) != mpi.ErrKeyval {
		t.Errorf("second Free: %v", err)
	}
	if err := mpi.SetAttr(a, k, 6); mpi.Class(err) != mpi.ErrKeyval {
		t.Errorf("SetAttr with a freed keyval: %v", err)
	}
	if _, _, err := mpi.GetAttr(a, k); mpi.Class(err) != mpi.ErrKeyval {
		t.Errorf("GetAttr with a freed keyval: %v", err)
	}
	b, err := a.Dup() // the value is still copied
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	log.expect(t, "frees", "delete 5", "delete 5")
	var nilKey *mpi.Keyval[int]
	if err := mpi.SetAttr(mpi.World, nilKey, 1); mpi.Class(err) != mpi.ErrKeyval {
		t.Errorf("nil keyval: %v", err)
	}
	if err := mpi.SetAttr(nil, nilKey, 1); mpi.Class(err) != mpi.ErrComm {
		t.Errorf("nil communicator: %v", err)
	}
}

func TestPredefinedAttrs(t *testing.T) {
	for _, tt := range []struct {
		name string
		k    *mpi.Keyval[int]
		want int
		set  bool
	}{
		{"TAG_UB", mpi.KeyTagUB, mpi.TagUB, true},
		{"HOST", mpi.KeyHost, mpi.ProcNull, true},
		{"IO", mpi.KeyIO, mpi.AnySource, true},
		{"UNIVERSE_SIZE", mpi.KeyUniverseSize, 1, true}, // a world of one, started alone
		{"LASTUSEDCODE", mpi.KeyLastUsedCode, int(mpi.LastUsedCode()), true},
		{"APPNUM", mpi.KeyAppNum, 0, false},
	} {
		v, ok, err := mpi.GetAttr(mpi.World, tt.k)
		if v != tt.want || ok != tt.set || err != nil {
			t.Errorf("%s: %d %v %v, want %d %v", tt.name, v, ok, err, tt.want, tt.set)
		}
		if _, ok, _ := mpi.GetAttr(mpi.Self, tt.k); ok {
			t.Errorf("%s is set on Self", tt.name)
		}
		if err := mpi.SetAttr(mpi.World, tt.k, 3); mpi.Class(err) != mpi.ErrKeyval {
			t.Errorf("%s: SetAttr: %v", tt.name, err)
		}
		if err := mpi.DeleteAttr(mpi.World, tt.k); mpi.Class(err) != mpi.ErrKeyval {
			t.Errorf("%s: DeleteAttr: %v", tt.name, err)
		}
		if err := tt.k.Free(); mpi.Class(err) != mpi.ErrKeyval {
			t.Errorf("%s: Free: %v", tt.name, err)
		}
	}
	if tagUB, _, _ := mpi.GetAttr(mpi.World, mpi.KeyTagUB); tagUB < 32767 {
		t.Errorf("TAG_UB %d is below MPI's minimum 32767", tagUB)
	}
	if g, ok, err := mpi.GetAttr(mpi.World, mpi.KeyWtimeIsGlobal); g || !ok || err != nil {
		t.Errorf("WTIME_IS_GLOBAL: %v %v %v", g, ok, err)
	}
	c := dupWorld(t)
	defer c.Free()
	if _, ok, _ := mpi.GetAttr(c, mpi.KeyTagUB); ok {
		t.Error("a duplicate of World has TAG_UB")
	}
}

// TestAttrConcurrent sets and reads attributes from several goroutines
// (for -race).
func TestAttrConcurrent(t *testing.T) {
	a := dupWorld(t)
	var wg sync.WaitGroup
	for g := range 4 {
		k := mpi.NewKeyval(mpi.CommDupFn[int], func(*mpi.Comm, int) error { return nil })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if err := mpi.SetAttr(a, k, i); err != nil {
					t.Error(err)
					return
				}
				if v, ok, err := mpi.GetAttr(a, k); v != i || !ok || err != nil {
					t.Errorf("goroutine %d: %d %v %v, want %d", g, v, ok, err, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
}

func ExampleNewKeyval() {
	// A library caches its state on the communicators it is used with;
	// a duplicate gets a state of its own.
	type state struct{ calls int }
	key := mpi.NewKeyval(func(old *mpi.Comm, s *state) (*state, bool, error) {
		return &state{}, true, nil
	}, nil)
	defer key.Free()
	c, _ := mpi.World.Dup()
	defer c.Free()
	mpi.SetAttr(c, key, &state{calls: 1})
	s, ok, _ := mpi.GetAttr(c, key)
	fmt.Println(s.calls, ok)
	// Output: 1 true
}
