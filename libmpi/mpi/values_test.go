package mpi_test

import (
	"context"
	"encoding/gob"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

type particle struct {
	X, Y, Z float64
	ID      int64
}

type padded struct {
	A int8
	B float64
	C int32
}

type node struct {
	Name string
	Next *node
	Tags map[string][]int
}

type shape interface{ Area() float64 }

type square struct{ Side float64 }

func (s square) Area() float64 { return s.Side * s.Side }

func init() { gob.Register(square{}) }

// valueCase sends one value to this process and receives it back, as
// SendValue and IsendValue; check compares.
type valueCase struct {
	name string
	run  func(t *testing.T, tag int)
}

func roundTrip[T any](name string, v T) valueCase {
	return valueCase{name, func(t *testing.T, tag int) {
		t.Helper()
		w := mpi.World
		if err := mpi.SendValue(w, v, 0, tag); err != nil {
			t.Fatalf("SendValue: %v", err)
		}
		got, st, err := mpi.RecvValue[T](w, mpi.AnySource, tag)
		if err != nil || st.Source != 0 || st.Tag != tag {
			t.Fatalf("RecvValue: %+v %v", st, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("got %#v, want %#v", got, v)
		}
		r, err := mpi.IsendValue(w, v, 0, tag)
		if err != nil {
			t.Fatalf("IsendValue: %v", err)
		}
		got, _, err = mpi.RecvValue[T](w, 0, tag)
		if _, werr := r.Wait(); err != nil || werr != nil {
			t.Fatalf("IsendValue then RecvValue: %v %v", err, werr)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("after IsendValue: got %#v, want %#v", got, v)
		}
		// IrecvValue started before the message is sent.
		var into T
		r, err = mpi.IrecvValue(w, &into, 0, tag)
		if err != nil {
			t.Fatalf("IrecvValue: %v", err)
		}
		if err := mpi.SendValue(w, v, 0, tag); err != nil {
			t.Fatalf("SendValue: %v", err)
		}
		if st, err := r.Wait(); err != nil || st.Source != 0 || st.Tag != tag {
			t.Fatalf("IrecvValue: %+v %v", st, err)
		}
		if !reflect.DeepEqual(into, v) {
			t.Errorf("IrecvValue: got %#v, want %#v", into, v)
		}
	}}
}

func TestValueRoundTrips(t *testing.T) {
	loop := &node{Name: "a", Tags: map[string][]int{"x": {1, 2}}}
	big := make([]particle, 5000) // long enough not to go eagerly
	for i := range big {
		big[i] = particle{float64(i), 2, 3, int64(i)}
	}
	tests := []valueCase{
		roundTrip("int", 42),
		roundTrip("float64", 3.25),
		roundTrip("complex128", 1+2i),
		roundTrip("bool", true),
		roundTrip("struct", particle{1, 2, 3, 4}),
		roundTrip("padded struct", padded{-1, 2.5, 7}),
		roundTrip("array", [4]int16{1, -2, 3, -4}),
		roundTrip("empty struct", struct{}{}),
		roundTrip("struct slice", []particle{{1, 2, 3, 4}, {5, 6, 7, 8}}),
		roundTrip("long struct slice", big),
		roundTrip("bytes", []byte("hello")),
		roundTrip("nil slice", []int32(nil)),
		roundTrip("string", "héllo, world"),
		roundTrip("empty string", ""),
		roundTrip("map", map[string]float64{"pi": 3.14, "e": 2.72}),
		roundTrip("nested", map[int][]particle{1: {{1, 2, 3, 4}}, 2: nil}),
		roundTrip("slices of slices", [][]string{{"a"}, {"b", "c"}}),
		roundTrip("pointer to struct", &node{Name: "head", Next: loop}),
		roundTrip("nil pointer", (*node)(nil)),
		roundTrip("interface", shape(square{2})),
		roundTrip("nil interface", any(nil)),
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, 700+i) })
	}
}

// A value that cannot be encoded, or a message that cannot be a value of
// the receiver's type, is an ErrType error.
func TestValueTypeErrors(t *testing.T) {
	w := mpi.World
	var ge interface{ Unwrap() error }
	if err := mpi.SendValue(w, make(chan int), 0, 800); mpi.Class(err) != mpi.ErrType || !errors.As(err, &ge) {
		t.Errorf("a channel: %v", err)
	}
	if err := mpi.SendValue(w, struct{ a string }{"x"}, 0, 800); mpi.Class(err) != mpi.ErrType {
		t.Errorf("unexported fields: %v", err)
	}
	if _, err := mpi.IsendValue(w, func() {}, 0, 800); mpi.Class(err) != mpi.ErrType {
		t.Errorf("a function: %v", err)
	}
	// Three bytes are no particle, nor a slice of them, nor a gob.
	for _, recv := range []func() error{
		func() error { _, _, err := mpi.RecvValue[particle](w, 0, 801); return err },
		func() error { _, _, err := mpi.RecvValue[[]particle](w, 0, 801); return err },
		func() error { _, _, err := mpi.RecvValue[map[string]int](w, 0, 801); return err },
	} {
		mpi.Send(w, []byte{1, 2, 3}, 0, 801)
		if err := recv(); mpi.Class(err) != mpi.ErrType {
			t.Errorf("3 bytes received as a value: %v", err)
		}
	}
	// The bad message was taken: nothing is left.
	if _, ok, _ := mpi.Iprobe(w, mpi.AnySource, 801); ok {
		t.Error("a message received as a wrong type is still there")
	}
	if err := mpi.SendValue(w, 1, 3, 0); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("rank 3: %v", err)
	}
	if _, _, err := mpi.RecvValue[int](nil, 0, 0); mpi.Class(err) != mpi.ErrComm {
		t.Errorf("nil communicator: %v", err)
	}
}

func TestValueProcNull(t *testing.T) {
	if err := mpi.SendValue(mpi.World, "x", mpi.ProcNull, 0); err != nil {
		t.Error(err)
	}
	v, st, err := mpi.RecvValue[string](mpi.World, mpi.ProcNull, 0)
	if v != "" || st.Source != mpi.ProcNull || err != nil {
		t.Errorf("%q %+v %v", v, st, err)
	}
	u, _, err := mpi.SendrecvValue[int, string](mpi.World, 5, mpi.ProcNull, 0, mpi.ProcNull, 0)
	if u != "" || err != nil {
		t.Errorf("Sendrecv with ProcNull: %q %v", u, err)
	}
	got, _, err := mpi.SendrecvValue[[]int, []int](mpi.World, []int{1, 2}, 0, 810, 0, 810)
	if err != nil || !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("Sendrecv to self: %v %v", got, err)
	}
}

// The value collectives on a world of one process (testprog's values
// suite runs them on several).
func TestValueCollectivesAlone(t *testing.T) {
	w := mpi.World
	m := map[string]int{"a": 1}
	if got, err := mpi.BcastValue(w, m, 0); err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("BcastValue: %v %v", got, err)
	}
	if got, err := mpi.GatherValue(w, []particle{{1, 2, 3, 4}}, 0); err != nil || !reflect.DeepEqual(got, [][]particle{{{1, 2, 3, 4}}}) {
		t.Errorf("GatherValue: %v %v", got, err)
	}
	if got, err := mpi.ScatterValue(w, []string{"only"}, 0); err != nil || got != "only" {
		t.Errorf("ScatterValue: %q %v", got, err)
	}
	if got, err := mpi.AllgatherValue(w, padded{1, 2, 3}); err != nil || !reflect.DeepEqual(got, []padded{{1, 2, 3}}) {
		t.Errorf("AllgatherValue: %v %v", got, err)
	}
	if got, err := mpi.AlltoallValue(w, []*node{{Name: "n"}}); err != nil || len(got) != 1 || got[0].Name != "n" {
		t.Errorf("AlltoallValue: %v %v", got, err)
	}
	// Errors: a bad root, a value gob refuses, a wrong number of values;
	// the communicator works after each.
	if _, err := mpi.BcastValue(w, 1, 3); mpi.Class(err) != mpi.ErrRoot {
		t.Errorf("BcastValue to root 3: %v", err)
	}
	if _, err := mpi.BcastValue(w, func() {}, 0); mpi.Class(err) != mpi.ErrType {
		t.Errorf("BcastValue of a function: %v", err)
	}
	if _, err := mpi.GatherValue(w, make(chan int), 0); mpi.Class(err) != mpi.ErrType {
		t.Errorf("GatherValue of a channel: %v", err)
	}
	if _, err := mpi.AllgatherValue(w, make(chan int)); mpi.Class(err) != mpi.ErrType {
		t.Errorf("AllgatherValue of a channel: %v", err)
	}
	if _, err := mpi.ScatterValue(w, []int{1, 2}, 0); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("ScatterValue of 2 values to 1 process: %v", err)
	}
	if _, err := mpi.AlltoallValue(w, []func(){nil}); mpi.Class(err) != mpi.ErrType {
		t.Errorf("AlltoallValue of functions: %v", err)
	}
	if _, err := mpi.AlltoallValue(w, []int{}); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("AlltoallValue of no values: %v", err)
	}
	if got, err := mpi.AllgatherValue(w, "still works"); err != nil || got[0] != "still works" {
		t.Errorf("after the errors: %v %v", got, err)
	}
}

func TestValueContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err := mpi.RecvValueContext[string](ctx, mpi.World, 0, 820)
	if !errors.Is(err, context.DeadlineExceeded) || mpi.Class(err) != mpi.ErrOther {
		t.Errorf("nothing sent: %v", err)
	}
	if err := mpi.SendValueContext(context.Background(), mpi.World, []string{"a"}, 0, 821); err != nil {
		t.Fatal(err)
	}
	got, _, err := mpi.RecvValueContext[[]string](context.Background(), mpi.World, 0, 821)
	if err != nil || !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("%v %v", got, err)
	}
}

// IrecvValue: several outstanding at once on distinct tags complete
// through Waitall, Waitany and Test with their own messages; receives
// match in the order they were posted; a cancelled
// one reports Cancelled and leaves the message to the next receive; one
// of the wrong type fails with ErrType; ProcNull and a nil pointer.
func TestIrecvValue(t *testing.T) {
	w := mpi.World
	const n = 6
	got := make([]particle, n)
	reqs := make([]*mpi.Request, n)
	for i := range n {
		r, err := mpi.IrecvValue(w, &got[i], 0, 200+i)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = r
	}
	for i := n - 1; i >= 0; i-- {
		if err := mpi.SendValue(w, particle{X: float64(i), ID: int64(i)}, 0, 200+i); err != nil {
			t.Fatal(err)
		}
	}
	if i, st, err := mpi.Waitany(reqs...); err != nil || st.Tag != 200+i {
		t.Fatalf("Waitany: %d %+v %v", i, st, err)
	}
	for {
		_, done, err := reqs[n-1].Test()
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
	for i, p := range got {
		if p.ID != int64(i) || p.X != float64(i) {
			t.Errorf("receive %d got %+v", i, p)
		}
	}

	// Posted order: of two receives that match the same messages, the
	// first posted gets the first message, whatever their kinds.
	var first, second string
	r1, _ := mpi.IrecvValue(w, &first, 0, 299)
	r2, _ := mpi.IrecvValue(w, &second, 0, 299)
	third := make([]byte, 5)
	r3, _ := mpi.Irecv(w, third, 0, 299)
	for _, s := range []string{"one", "two", "three"} {
		mpi.SendValue(w, s, 0, 299)
	}
	if _, err := mpi.Waitall(r3, r2, r1); err != nil || first != "one" || second != "two" || string(third) != "three" {
		t.Errorf("posted order: %q %q %q %v", first, second, third, err)
	}

	var m map[string]int
	r, err := mpi.IrecvValue(w, &m, 0, 300)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, err := r.Wait(); err != nil || !st.Cancelled {
		t.Fatalf("cancelled IrecvValue: %+v %v", st, err)
	}
	mpi.SendValue(w, map[string]int{"a": 1}, 0, 300)
	if v, _, err := mpi.RecvValue[map[string]int](w, 0, 300); err != nil || v["a"] != 1 {
		t.Errorf("after the cancel: %v %v", v, err)
	}

	var wrong int64
	r, _ = mpi.IrecvValue(w, &wrong, 0, 301)
	mpi.SendValue(w, "not eight bytes", 0, 301)
	if st, err := r.Wait(); mpi.Class(err) != mpi.ErrType || mpi.Class(st.Err) != mpi.ErrType {
		t.Errorf("wrong type: %+v %v", st, err)
	}

	x := 7
	if r, err := mpi.IrecvValue(w, &x, mpi.ProcNull, 0); err != nil {
		t.Errorf("ProcNull: %v", err)
	} else if st, err := r.Wait(); err != nil || st.Source != mpi.ProcNull || x != 0 {
		t.Errorf("ProcNull: %+v %v %d", st, err, x)
	}
	if _, err := mpi.IrecvValue[int](w, nil, 0, 0); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("nil pointer: %v", err)
	}
	if _, err := mpi.IrecvValue(w, &x, 5, 0); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("rank 5: %v", err)
	}
}
