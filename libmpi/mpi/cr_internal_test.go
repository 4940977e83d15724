package mpi

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"strings"
	"testing"
)

// checkpointBytes saves this process's state with f as the checkpoint
// callback.
func checkpointBytes(t testing.TB, f func(*CheckpointWriter) error) []byte {
	t.Helper()
	OnCheckpoint(f)
	defer OnCheckpoint(nil)
	var b bytes.Buffer
	if err := saveState(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckpointRoundTrip: communicators, values, raw bytes and an
// unmatched message come back as they were written.
func TestCheckpointRoundTrip(t *testing.T) {
	d, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	d.SetErrhandler(ErrorsReturn)
	if err := Send(d, []int32{42, 43}, 0, 5); err != nil {
		t.Fatal(err)
	}
	type state struct {
		Iter int
		X    []float64
	}
	b := checkpointBytes(t, func(w *CheckpointWriter) error {
		for _, c := range []*Comm{World, d, nil, Self, d} {
			if err := w.Comm(c); err != nil {
				return err
			}
		}
		if err := w.Encode(state{7, []float64{1.5}}); err != nil {
			return err
		}
		_, err := w.Write([]byte("raw"))
		return err
	})
	// The message is still queued here: take it, as the job would have.
	got := make([]int32, 2)
	if _, err := Recv(d, got, 0, 5); err != nil {
		t.Fatal(err)
	}
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	var comms []*Comm
	for range 5 {
		c, err := r.Comm()
		if err != nil {
			t.Fatal(err)
		}
		comms = append(comms, c)
	}
	if comms[0] != World || comms[2] != nil || comms[3] != Self || comms[1] != comms[4] {
		t.Errorf("communicators: %v", comms)
	}
	rd := comms[1]
	if rd.context != d.context || rd.Size() != 1 || rd.Rank() != 0 || rd.Name() != d.Name() || rd.Errhandler() != ErrorsReturn {
		t.Errorf("restored %+v, saved %+v", rd, d)
	}
	var s state
	if err := r.Decode(&s); err != nil || s.Iter != 7 || len(s.X) != 1 || s.X[0] != 1.5 {
		t.Errorf("value: %+v %v", s, err)
	}
	raw := make([]byte, 4)
	if n, _ := r.Read(raw); string(raw[:n]) != "raw" {
		t.Errorf("raw bytes: %q", raw[:n])
	}
	if r.Messages() != 1 {
		t.Fatalf("%d saved messages, want 1", r.Messages())
	}
	st.engine.Restore(r.msgs)
	got = make([]int32, 2)
	if _, err := Recv(rd, got, 0, 5); err != nil || got[0] != 42 || got[1] != 43 {
		t.Errorf("restored message: %v %v", got, err)
	}
	// A new communicator does not take a restored one's context.
	n, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Free()
	if n.context <= rd.context {
		t.Errorf("new context %d, restored %d", n.context, rd.context)
	}
}

// TestCheckpointBadFiles: what is not a rank's checkpoint is refused with
// a reason.
func TestCheckpointBadFiles(t *testing.T) {
	good := checkpointBytes(t, nil)
	lib := func(l crLibrary) []byte {
		var body bytes.Buffer
		gob.NewEncoder(&body).Encode(&l)
		var h [len(crMagic) + 8]byte
		copy(h[:], crMagic)
		binary.LittleEndian.PutUint64(h[len(crMagic):], uint64(body.Len()))
		return append(h[:], body.Bytes()...)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a LAM/Go checkpoint"},
		{"magic", append([]byte("LAMGOCR\x02"), good[8:]...), "not a LAM/Go checkpoint"},
		{"truncated", good[:len(good)-3], "the library's state"},
		{"huge", append([]byte(crMagic), 0, 0, 0, 0, 0, 0, 0, 0x7f), "library state of"},
		{"rank", lib(crLibrary{Rank: 3, Size: 4}), "holds rank 3 of 4"},
		{"group", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{5}}}}), "world rank 5"},
		{"notmine", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{}}}}), "not one of this process's"},
		{"context", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 0, Group: []int{0}}}}), "not one of this process's"},
		{"remote", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{0}, Remote: []int{0}}}}), "in the remote group"},
		{"remote range", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{0}, Remote: []int{1}}}}), "in the remote group"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readState(bytes.NewReader(c.b), "f")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	// A communicator with cached attributes cannot be saved.
	w := &CheckpointWriter{}
	k := NewKeyval[string](nil, nil)
	defer k.Free()
	if err := SetAttr(World, k, "x"); err != nil {
		t.Fatal(err)
	}
	err := w.Comm(World)
	DeleteAttr(World, k)
	if Class(err) != ErrComm || !strings.Contains(err.Error(), "cached attributes") {
		t.Errorf("saving a communicator with an attribute: %v", err)
	}
}

// FuzzReadState: no rank file, however damaged, panics the reader.
func FuzzReadState(f *testing.F) {
	f.Add(checkpointBytes(f, func(w *CheckpointWriter) error {
		w.Comm(World)
		v, _ := TypeVector(2, 1, 3, Int32)
		s, _ := TypeStruct([]int{1, 2}, []int{0, 8}, []*Datatype{Int8, v})
		w.Datatype(s)
		return w.Encode([]int{1, 2, 3})
	}))
	f.Add([]byte(crMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := readState(bytes.NewReader(b), "f")
		if err != nil {
			return
		}
		for {
			if _, err := r.Comm(); err != nil {
				break
			}
		}
		for {
			if _, err := r.Datatype(); err != nil {
				break
			}
		}
	})
}

// TestCheckpointDatatypes: every constructor's datatype comes back with
// the same contents, layout and name; a type used twice, or inside
// another, is saved once.
func TestCheckpointDatatypes(t *testing.T) {
	must := func(d *Datatype, err error) *Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	opq := must(TypeOpaque("int128", 16, 16))
	vec := must(TypeVector(3, 2, -4, Int32))
	vec.SetName("my vector")
	types := []*Datatype{
		Float64, nil, LB, opq, vec,
		must(TypeDup(vec)),
		must(TypeContiguous(5, Int16)),
		must(TypeHvector(2, 1, 24, Int8)),
		must(TypeIndexed([]int{2, 1}, []int{5, 0}, Int16)),
		must(TypeHindexed([]int{2, 1}, []int{5, 0}, Int16)),
		must(TypeIndexedBlock(2, []int{3, 0}, Int16)),
		must(TypeHindexedBlock(2, []int{4, 0}, Int16)),
		must(TypeStruct([]int{2, 1, 1}, []int{0, 8, 32}, []*Datatype{Int8, vec, opq})),
		must(TypeCreateSubarray([]int{3, 4}, []int{2, 2}, []int{1, 0}, OrderFortran, Float64)),
		must(TypeCreateDarray(4, 1, []int{8}, []Distribution{DistributeCyclic}, []int{2}, []int{4}, OrderC, Int8)),
		must(TypeCreateResized(vec, -8, 64)),
		vec,
	}
	b := checkpointBytes(t, func(w *CheckpointWriter) error {
		for _, d := range types {
			if err := w.Datatype(d); err != nil {
				return err
			}
		}
		return nil
	})
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	var got []*Datatype
	for range types {
		d, err := r.Datatype()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	for i, want := range types {
		d := got[i]
		switch {
		case want == nil:
			if d != nil {
				t.Errorf("%d: nil came back as %s", i, d.Name())
			}
			continue
		case predefinedTypes[want.name] == want:
			if d != want {
				t.Errorf("%d: predefined %s came back as another", i, want.Name())
			}
			continue
		}
		if d.Name() != want.Name() || d.Size() != want.Size() || d.lb != want.lb || d.ub != want.ub ||
			d.tlb != want.tlb || d.tub != want.tub || d.align != want.align || !slicesEqual(d.blocks, want.blocks) {
			t.Errorf("%d: %s came back as %+v", i, want.Name(), d)
		}
		wi, wa, wt, _ := contents(want)
		gi, ga, gt, _ := contents(d)
		if !slicesEqual(wi, gi) || !slicesEqual(wa, ga) || len(wt) != len(gt) {
			t.Errorf("%d: contents %v %v %d, want %v %v %d", i, gi, ga, len(gt), wi, wa, len(wt))
		}
	}
	if got[4] != got[16] || got[5].env.types[0] != got[4] {
		t.Error("a datatype written twice came back as two")
	}
	// A datatype with cached attributes cannot be saved.
	k := NewTypeKeyval[int](nil, nil)
	defer k.Free()
	if err := SetTypeAttr(vec, k, 1); err != nil {
		t.Fatal(err)
	}
	defer DeleteTypeAttr(vec, k)
	if err := (&CheckpointWriter{}).Datatype(vec); Class(err) != ErrType {
		t.Errorf("saving a datatype with an attribute: %v", err)
	}
}

// contents is TypeGetContents, also of a named type (nothing).
func contents(d *Datatype) ([]int, []int, []*Datatype, error) {
	if d.env.comb == CombinerNamed {
		return nil, nil, nil, nil
	}
	return TypeGetContents(d)
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRestoreTypesBad: a damaged table of datatypes is refused with a
// reason, never a panic.
func TestRestoreTypesBad(t *testing.T) {
	for _, c := range []struct {
		name string
		s    []crType
		want string
	}{
		{"predefined", []crType{{Name: "MPI_NOPE", Named: true}}, "no predefined datatype"},
		{"forward", []crType{{Name: "v", Comb: CombinerVector, Ints: []int{1, 1, 1}, Types: []int{0}}}, "not an earlier one"},
		{"shape", []crType{{Name: "MPI_INT", Named: true}, {Name: "v", Comb: CombinerVector, Ints: []int{1}, Types: []int{0}}}, "1 integers"},
		{"lead", []crType{{Name: "MPI_INT", Named: true}, {Name: "i", Comb: CombinerIndexed, Ints: []int{9}, Types: []int{0}}}, "bad arguments"},
		{"darray", []crType{{Name: "MPI_INT", Named: true}, {Name: "d", Comb: CombinerDarray, Ints: []int{1}, Types: []int{0}}}, "bad arguments"},
		{"combiner", []crType{{Name: "x", Comb: 99}}, "unknown constructor"},
		{"opaque", []crType{{Name: "o", Named: true, Size: 3, Align: 3}}, "alignment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := restoreTypes(c.s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestCheckpointRequests: requests the checkpoint callback saves come
// back on new buffers: done ones done (a receive's bytes in its new
// buffer), one under way posted again, a persistent one inactive or
// active as it was, nil as nil; those the library cannot make again are
// refused with the reason.
func TestCheckpointRequests(t *testing.T) {
	d, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	posted, err := Irecv(d, make([]int32, 4), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := Isend(d, []int32{7, 8, 9}, 0, 2) // to itself: done, unmatched
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 2)
	received, err := Irecv(d, got, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := Send(d, []int32{5, 6}, 0, 3); err != nil {
		t.Fatal(err)
	}
	idle, err := RecvInit(d, make([]int64, 1), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	psend, err := SendInit(d, []int64{11}, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := psend.Start(); err != nil {
		t.Fatal(err)
	}
	sync, err := Issend(d, []byte("sync"), 0, 6) // waits for its match
	if err != nil {
		t.Fatal(err)
	}
	b := checkpointBytes(t, func(w *CheckpointWriter) error {
		for _, r := range []*Request{posted, sent, received, idle, psend, nil, sync} {
			if err := w.Request(r); err != nil {
				return err
			}
		}
		return nil
	})
	// This process plays the restarted one: what was under way goes.
	posted.Cancel()
	posted.Wait()
	for _, tag := range []int{2, 6} {
		if _, err := Recv(d, make([]byte, 16), 0, tag); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	newPosted, err := ReadRequest(r, make([]int32, 4))
	if err != nil {
		t.Fatal(err)
	}
	newSent, err1 := ReadRequest(r, make([]int32, 3))
	newGot := make([]int32, 2)
	newReceived, err2 := ReadRequest(r, newGot)
	newIdle, err3 := ReadRequest(r, make([]int64, 1))
	newPsend, err4 := ReadRequest(r, make([]int64, 1))
	null, err5 := ReadRequest(r, []byte{})
	newSync, err6 := ReadRequest(r, make([]byte, 4))
	for i, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if null != nil {
		t.Errorf("nil came back as %+v", null)
	}
	st.engine.Restore(r.msgs) // as Init does after the restart callback
	r.startAll()
	if s, err := newReceived.Wait(); err != nil || s.Source != 0 || s.Tag != 3 || s.Bytes != 8 || newGot[0] != 5 || newGot[1] != 6 {
		t.Errorf("the received request: %+v %v %v", s, err, newGot)
	}
	// The synchronous send's message is saved, not matched: its send
	// completes at the match (below).
	if _, ok, err := newSync.Test(); ok || err != nil {
		t.Errorf("synchronous send done before its message is matched: %v, %v", ok, err)
	}
	for name, q := range map[string]*Request{"send": newSent, "persistent send": newPsend} {
		if _, ok, err := q.Test(); !ok || err != nil {
			t.Errorf("%s: done %v, %v", name, ok, err)
		}
	}
	if _, ok, _ := newIdle.Test(); !ok || !newIdle.r.Persistent || newIdle.r.Active() {
		t.Errorf("the persistent receive not started: %+v", newIdle.r)
	}
	if err := Send(d, []int32{1, 2, 3, 4}, 0, 1); err != nil {
		t.Fatal(err)
	}
	if s, err := newPosted.Wait(); err != nil || s.Bytes != 16 {
		t.Errorf("the receive posted again: %+v %v", s, err)
	}
	for _, c := range []struct {
		tag  int
		want string
	}{{2, "\x07\x00\x00\x00"}, {6, "sync"}} {
		buf := make([]byte, 16)
		s, err := Recv(d, buf, 0, c.tag)
		if err != nil || !strings.HasPrefix(string(buf[:s.Bytes]), c.want) {
			t.Errorf("saved message of tag %d: %q %v", c.tag, buf[:s.Bytes], err)
		}
	}
	if _, ok, err := newSync.Test(); !ok || err != nil {
		t.Errorf("synchronous send after its message's match: done %v, %v", ok, err)
	}
	// Refused, with the reason.
	// A nonblocking collective's request waited for is nil, whether its
	// parts went back to the pool or not.
	done, err := Ibarrier(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := done.Wait(); err != nil {
		t.Fatal(err)
	}
	if s, err := (&CheckpointWriter{}).saveRequest(done); err != nil || !s.Null {
		t.Errorf("a nonblocking collective's request waited for: %+v, %v; want nil", s, err)
	}
	ib, err := Ibarrier(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ib.Wait()
	OnCheckpoint(func(w *CheckpointWriter) error { return w.Request(ib) })
	defer OnCheckpoint(nil)
	if err := saveState(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "nonblocking collective") {
		t.Errorf("a nonblocking collective's request: %v", err)
	}
	if _, err := ReadRequest(r, make([]int32, 1)); err == nil {
		t.Error("a request read past the end")
	}
}

// TestCheckpointAttrs: attributes of restorable keyvals on the
// communicators (World among them) and datatypes a checkpoint saves come
// back, set in order; one of another keyval is refused with the reason;
// a restart without the keyval made, or a name made twice, is an error.
func TestCheckpointAttrs(t *testing.T) {
	type grid struct {
		Dims  []int
		Label string
	}
	kg, err := NewRestorableKeyval[grid]("test grid", CommDupFn[grid], nil)
	if err != nil {
		t.Fatal(err)
	}
	kn, err := NewRestorableKeyval[int]("test count", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := NewRestorableTypeKeyval[string]("test unit", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRestorableKeyval[int]("test count", nil, nil); Class(err) != ErrKeyval {
		t.Errorf("a name made twice: %v", err)
	}
	if _, err := NewRestorableKeyval[func()]("test func", nil, nil); Class(err) != ErrKeyval {
		t.Errorf("a value type gob cannot encode: %v", err)
	}
	d, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	vec, err := TypeVector(2, 1, 2, Int32)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []error{SetAttr(d, kg, grid{[]int{2, 3}, "xy"}), SetAttr(d, kn, 7), SetAttr(World, kn, 9), SetTypeAttr(vec, kt, "metres")} {
		if e != nil {
			t.Fatal(e)
		}
	}
	defer DeleteAttr(World, kn)
	b := checkpointBytes(t, func(w *CheckpointWriter) error {
		for _, c := range []*Comm{d, World} {
			if err := w.Comm(c); err != nil {
				return err
			}
		}
		return w.Datatype(vec)
	})
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	rd, _ := r.Comm()
	rw, _ := r.Comm()
	rt, err := r.Datatype()
	if err != nil || rd == d || rw != World {
		t.Fatalf("restored %v %v %v", rd, rw, err)
	}
	defer rd.Free()
	if g, ok, err := GetAttr(rd, kg); !ok || err != nil || g.Label != "xy" || len(g.Dims) != 2 || g.Dims[1] != 3 {
		t.Errorf("grid attribute: %+v %v %v", g, ok, err)
	}
	if n, ok, _ := GetAttr(rd, kn); !ok || n != 7 {
		t.Errorf("count attribute: %d %v", n, ok)
	}
	if n, ok, _ := GetAttr(World, kn); !ok || n != 9 {
		t.Errorf("World's count attribute: %d %v", n, ok)
	}
	if u, ok, _ := GetTypeAttr(rt, kt); !ok || u != "metres" {
		t.Errorf("datatype attribute: %q %v", u, ok)
	}
	// A keyval without a name is refused, naming the communicator.
	plain := NewKeyval[int](nil, nil)
	if err := SetAttr(d, plain, 1); err != nil {
		t.Fatal(err)
	}
	OnCheckpoint(func(w *CheckpointWriter) error { return w.Comm(d) })
	defer OnCheckpoint(nil)
	if err := saveState(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "1 cached attributes of keyvals that are not restorable") {
		t.Errorf("an attribute of a plain keyval: %v", err)
	}
	DeleteAttr(d, plain)
	// A restart in a program that has not made the keyval.
	crKeyvals.mu.Lock()
	saved := crKeyvals.byName["comm:test grid"]
	delete(crKeyvals.byName, "comm:test grid")
	crKeyvals.mu.Unlock()
	_, err = readState(bytes.NewReader(b), "test")
	crKeyvals.mu.Lock()
	crKeyvals.byName["comm:test grid"] = saved
	crKeyvals.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), `keyval "test grid", which this program has not made before MPI_Init`) {
		t.Errorf("restart without the keyval: %v", err)
	}
}

// TestKeyvalRestorable: a keyval made by NewKeyval and named afterwards
// (the C and Fortran keyvals, MPIL_Cr_keyval_name) is restorable as one
// made by NewRestorableKeyval; named twice, or with a name taken, it is
// refused.
func TestKeyvalRestorable(t *testing.T) {
	k := NewKeyval[uintptr](nil, nil)
	kt := NewTypeKeyval[uintptr](nil, nil)
	d, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	if err := SetAttr(d, k, 42); err != nil {
		t.Fatal(err)
	}
	if err := saveState(&bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	OnCheckpoint(func(w *CheckpointWriter) error { return w.Comm(d) })
	if err := saveState(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not restorable") {
		t.Errorf("an attribute of a keyval not named: %v", err)
	}
	OnCheckpoint(nil)
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"", k.Restorable(""), false},
		{"named", k.Restorable("test c keyval"), true},
		{"twice", k.Restorable("test c keyval 2"), false},
		{"type", kt.Restorable("test c keyval"), true}, // another kind
		{"taken", NewKeyval[uintptr](nil, nil).Restorable("test c keyval"), false},
	} {
		if (c.err == nil) != c.want {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
	b := checkpointBytes(t, func(w *CheckpointWriter) error { return w.Comm(d) })
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := r.Comm()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Free()
	if v, ok, err := GetAttr(rd, k); !ok || err != nil || v != 42 {
		t.Errorf("restored attribute: %v %v %v", v, ok, err)
	}
}
