package coll

import (
	"errors"
	"reflect"
	"testing"
)

// stubT is a Transport that only knows its place, for the argument
// check's encodings.
type stubT struct{ rank, size, remote int }

func (s stubT) Rank() int                               { return s.rank }
func (s stubT) Size() int                               { return s.size }
func (s stubT) RemoteSize() int                         { return s.remote }
func (s stubT) Node(int) int32                          { return 0 }
func (s stubT) Isend([]byte, int, int) (Request, error) { return nil, errors.New("stub") }
func (s stubT) Irecv([]byte, int, int) (Request, error) { return nil, errors.New("stub") }
func (s stubT) Split(int, int) (*Comm, error)           { return nil, errors.New("stub") }
func (s stubT) Local() *Comm                            { return nil }
func (s stubT) Free() error                             { return nil }
func (s stubT) Name() string                            { return "stub" }

// sigDigest keeps the last call's digest: it must give what
// digest(sigVector) gives for every call, also right after another call,
// and an erroneous call must not be kept.
func TestSigDigest(t *testing.T) {
	sigs := []Sig{
		{Kind: Bcast, Root: 0, Send: 8, Recv: -1},
		{Kind: Bcast, Root: 0, Send: 8, Recv: -1}, // the same again: kept
		{Kind: Bcast, Root: 1, Send: 8, Recv: -1},
		{Kind: Bcast, Root: 1, Send: 16, Recv: -1},
		{Kind: Allreduce, Send: 16, Recv: -1, Op: 3, Type: 9},
		{Kind: Allreduce, Send: 16, Recv: -1, Op: 4, Type: 9},
		{Kind: Allreduce, Send: 16, Recv: -1, Op: 4, Type: 10},
		{Kind: Gatherv, Root: 0, Send: 4, Recv: -1, Counts: 0x1235},
		{Kind: Gatherv, Root: 0, Send: 4, Recv: -1, Counts: 0x5679},
		{Kind: Gatherv, Root: 0, Send: 4, Recv: -1, Counts: 0x5679, Err: &Error{Class: ErrCount}},
		{Kind: Gatherv, Root: 0, Send: 4, Recv: -1, Counts: 0x5679, Err: &Error{Class: ErrBuffer}},
		{Kind: Gatherv, Root: 0, Send: 4, Recv: -1, Counts: 0x5679},
	}
	c := New(stubT{rank: 1, size: 3}, nil)
	seen := map[uint64]Sig{}
	for i, s := range sigs {
		want := digest(c.sigVector(s))
		if got := c.sigDigest(&s); got != want {
			t.Errorf("call %d %+v: sigDigest %#x, digest of the vector %#x", i, s, got, want)
		}
		if s.Err != nil && c.lastSig.ok && c.lastSig.sig.Err != nil {
			t.Errorf("call %d: a call with an error was kept", i)
		}
		if o, ok := seen[want]; ok && o != s && (o.Err == nil) == (s.Err == nil) {
			t.Errorf("calls %+v and %+v have one digest", o, s)
		}
		seen[want] = s
	}
}

// Sig.same must tell apart two calls that differ in any one field, or
// the kept digest and way (sigDigest, checkWay) would serve another call:
// a field added to Sig and not to same fails here.
func TestSigSame(t *testing.T) {
	base := Sig{Kind: Bcast, Root: 1, Send: 8, Recv: -1, Op: 2, Type: 3, Counts: 4, Err: nil}
	if !base.same(&base) {
		t.Fatal("a call is not the same as itself")
	}
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint8, reflect.Uint64:
			f.SetUint(f.Uint() + 1)
		case reflect.Pointer:
			f.Set(reflect.ValueOf(&Error{Class: ErrCount}))
		default:
			t.Fatalf("field %s of kind %s: teach this test to change it", v.Type().Field(i).Name, f.Kind())
		}
		if base.same(&other) || other.same(&base) {
			t.Errorf("calls that differ in %s are the same", v.Type().Field(i).Name)
		}
	}
}

// checkWay asks the module (Carries, SendsCall) once per distinct call,
// and again after another call came between; a call with an argument
// error is asked every time and never kept.
func TestCheckWay(t *testing.T) {
	c := New(stubT{rank: 0, size: 3}, nil)
	asked := 0
	c.act.Carries = func(_ *Comm, sig Sig) bool { asked++; return sig.Kind != Allreduce }
	c.act.SendsCall = func(_ *Comm, sig Sig) bool { return sig.Kind == Bcast }
	bad := Errorf(ErrType, "bad type")
	for i, tc := range []struct {
		sig   Sig
		way   uint8
		asked int
	}{
		{Sig{Kind: Bcast, Send: 8, Recv: -1}, waySent, 1},
		{Sig{Kind: Bcast, Send: 8, Recv: -1}, waySent, 1},
		{Sig{Kind: Gather, Send: 8, Recv: -1}, wayCarried, 2},
		{Sig{Kind: Gather, Send: 8, Recv: -1}, wayCarried, 2},
		{Sig{Kind: Bcast, Send: 8, Recv: -1}, waySent, 3},
		{Sig{Kind: Allreduce, Send: 8, Recv: -1, Op: 1, Type: 2}, wayAgree, 4},
		{Sig{Kind: Allreduce, Send: 8, Recv: -1, Op: 1, Type: 2}, wayAgree, 4},
		{Sig{Kind: Gather, Send: 8, Recv: -1, Err: bad}, wayAgree, 5},
		{Sig{Kind: Gather, Send: 8, Recv: -1, Err: bad}, wayAgree, 6},
		{Sig{Kind: Bcast, Send: 8, Recv: -1, Err: bad}, waySent, 7},
		{Sig{Kind: Allreduce, Send: 8, Recv: -1, Op: 1, Type: 2}, wayAgree, 7},
	} {
		way, d := c.checkWay(&tc.sig)
		if way != tc.way || asked != tc.asked {
			t.Errorf("call %d %+v: way %d after %d questions, want %d after %d", i, tc.sig, way, asked, tc.way, tc.asked)
		}
		if want := digest(c.sigVector(tc.sig)); tc.sig.Err == nil && d != want {
			t.Errorf("call %d: digest %#x, want %#x", i, d, want)
		}
	}
}

// Empty says which calls return before any bookkeeping: those that move
// nothing on an intracommunicator, with the process's own arguments
// right, while nobody records how collectives ran (the C fast path
// learns zero-byte calls from the record).
func TestEmpty(t *testing.T) {
	intra, inter := New(stubT{rank: 0, size: 3}, nil), New(stubT{rank: 0, size: 3, remote: 2}, nil)
	recorded := New(stubT{rank: 0, size: 3}, nil)
	recorded.Record()
	bad := Errorf(ErrType, "bad type")
	for _, tc := range []struct {
		name string
		c    *Comm
		sig  Sig
		want bool
	}{
		{"bcast of nothing", intra, Sig{Kind: Bcast, Send: 0, Recv: -1}, true},
		{"allreduce of nothing", intra, Sig{Kind: Allreduce, Send: 0, Recv: -1, Op: 1, Type: 1}, true},
		{"alltoall of nothing", intra, Sig{Kind: Alltoall, Send: 0, Recv: -1}, true},
		{"bcast of 8 bytes", intra, Sig{Kind: Bcast, Send: 8, Recv: -1}, false},
		{"an argument error", intra, Sig{Kind: Bcast, Send: 0, Recv: -1, Err: bad}, false},
		{"barrier", intra, Sig{Kind: Barrier, Send: -1, Recv: -1}, false},
		{"a v collective", intra, Sig{Kind: Gatherv, Send: 0, Recv: -1}, false},
		{"intercommunicator", inter, Sig{Kind: Bcast, Send: 0, Recv: -1}, false},
		{"recorded", recorded, Sig{Kind: Bcast, Send: 0, Recv: -1}, false},
	} {
		if got := tc.c.Empty(&tc.sig); got != tc.want {
			t.Errorf("%s: Empty = %v, want %v", tc.name, got, tc.want)
		}
	}
}
