package codec

import (
	"errors"
	"reflect"
	"testing"
)

type point struct {
	X, Y float64
	ID   int32
	On   bool
}

type tree struct {
	Name string
	Kids []*tree
}

func roundTrip[T any](t *testing.T, name string, v T, kind Kind) {
	t.Helper()
	if k := KindOf[T](); k != kind {
		t.Errorf("%s: kind %v, want %v", name, k, kind)
	}
	b, err := Encode(&v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out T
	if err := Decode(append([]byte(nil), b...), &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(out, v) {
		t.Errorf("%s: %#v, want %#v", name, out, v)
	}
	// Through Target, as a receive does.
	var got T
	buf, direct, err := Target(&got, len(b))
	if err != nil {
		t.Fatalf("%s: target: %v", name, err)
	}
	copy(buf, b)
	if !direct {
		if err := Decode(buf, &got); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("%s through Target: %#v, want %#v", name, got, v)
	}
}

func TestRoundTrip(t *testing.T) {
	roundTrip(t, "int", 42, Plain)
	roundTrip(t, "float", 2.5, Plain)
	roundTrip(t, "complex", complex64(1+2i), Plain)
	roundTrip(t, "bool", true, Plain)
	roundTrip(t, "struct", point{1, 2, 3, true}, Plain)
	roundTrip(t, "array", [3]point{{X: 1}, {Y: 2}, {ID: 3}}, Plain)
	roundTrip(t, "empty struct", struct{}{}, Plain)
	roundTrip(t, "slice", []point{{1, 2, 3, true}, {4, 5, 6, false}}, Slice)
	roundTrip(t, "bytes", []byte("hello"), Slice)
	roundTrip(t, "nil slice", []float64(nil), Slice)
	roundTrip(t, "string", "héllo", String)
	roundTrip(t, "empty string", "", String)
	type name string
	roundTrip(t, "named string", name("n"), String)
	roundTrip(t, "map", map[string][]int{"a": {1, 2}, "b": nil}, Gob)
	roundTrip(t, "pointer", &tree{Name: "r", Kids: []*tree{{Name: "a"}, {Name: "b"}}}, Gob)
	roundTrip(t, "nil pointer", (*tree)(nil), Gob)
	roundTrip(t, "nested slices", [][]int{{1}, {2, 3}}, Gob)
	roundTrip(t, "interface", any(7), Gob)
	roundTrip(t, "uintptr", uintptr(7), Gob)
}

func TestErrors(t *testing.T) {
	ch := make(chan int)
	if _, err := Encode(&ch); err == nil {
		t.Error("a channel encoded")
	}
	var p point
	if _, _, err := Target(&p, 3); !errors.Is(err, ErrSize) {
		t.Errorf("3 bytes for a point: %v", err)
	}
	var s []int64
	if err := Decode([]byte{1, 2, 3}, &s); !errors.Is(err, ErrSize) {
		t.Errorf("3 bytes for []int64: %v", err)
	}
	var m map[string]int
	if err := Decode([]byte{1, 2, 3}, &m); err == nil {
		t.Error("garbage decoded as a map")
	}
}

// Plain and Slice values are sent from their own memory, not copied.
func TestZeroCopy(t *testing.T) {
	s := []int32{1, 2, 3}
	b, _ := Encode(&s)
	if &b[0] != (*byte)(reflect.ValueOf(s).UnsafePointer()) {
		t.Error("a slice was copied")
	}
}
