package mpi

import (
	"errors"
	"slices"
	"testing"
)

// TestFinalizeSelfAttrs: Finalize's first step deletes Self's attributes,
// newest first (MPI-2.2 §8.7.1).
func TestFinalizeSelfAttrs(t *testing.T) {
	if !Self.ready {
		t.Skip("MPI is not initialised")
	}
	var log []string
	mk := func(name string) *Keyval[int] {
		return NewKeyval(nil, func(c *Comm, v int) error {
			if c != Self {
				t.Errorf("%s deleted from %s", name, c.name)
			}
			log = append(log, name)
			return nil
		})
	}
	a, b := mk("a"), mk("b")
	SetAttr(Self, b, 1)
	SetAttr(Self, a, 2)
	if err := finalizeSelf(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(log, want) {
		t.Errorf("deleted %q, want %q", log, want)
	}
	if Self.attrs.Len() != 0 {
		t.Error("Self still has attributes")
	}
}

// TestTypeAttrHooks: datatype attributes through the hooks TypeDup and
// Type_free call.
func TestTypeAttrHooks(t *testing.T) {
	var log []string
	k := NewTypeKeyval(func(old *Datatype, v string) (string, bool, error) {
		log = append(log, "copy "+old.Name()+" "+v)
		return v + "'", true, nil
	}, func(d *Datatype, v string) error {
		log = append(log, "delete "+d.Name()+" "+v)
		if v == "refuse" {
			return errors.New("no")
		}
		return nil
	})
	refuse := NewTypeKeyval(func(*Datatype, int) (int, bool, error) { return 0, false, nil }, nil)
	vec, err := TypeVector(2, 1, 2, Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetTypeAttr(vec, k, "v"); err != nil {
		t.Fatal(err)
	}
	SetTypeAttr(vec, refuse, 3)
	if v, ok, err := GetTypeAttr(vec, k); v != "v" || !ok || err != nil {
		t.Errorf("GetTypeAttr: %q %v %v", v, ok, err)
	}
	dup, _ := TypeVector(2, 1, 2, Int32)
	dup.name = "dup"
	if err := vec.dupTypeAttrs(dup); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := GetTypeAttr(dup, k); v != "v'" {
		t.Errorf("copied value %q", v)
	}
	if _, ok, _ := GetTypeAttr(dup, refuse); ok {
		t.Error("a refused copy was kept")
	}
	if err := dup.deleteTypeAttrs(); err != nil {
		t.Fatal(err)
	}
	SetTypeAttr(vec, k, "refuse")
	if err := vec.deleteTypeAttrs(); Class(err) != ErrOther {
		t.Errorf("refusing delete: %v", err)
	}
	want := []string{"copy " + vec.Name() + " v", "delete dup v'", "delete " + vec.Name() + " v", "delete " + vec.Name() + " refuse"}
	if !slices.Equal(log, want) {
		t.Errorf("callbacks\n got %q\nwant %q", log, want)
	}
	// Predefined datatypes hold attributes too.
	if err := SetTypeAttr(Float64, k, "f"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTypeAttr(Float64, k); err != nil {
		t.Fatal(err)
	}
	if err := k.Free(); err != nil {
		t.Fatal(err)
	}
	if err := SetTypeAttr(Float64, k, "f"); Class(err) != ErrKeyval {
		t.Errorf("freed keyval: %v", err)
	}
	if err := SetTypeAttr(nil, k, "f"); Class(err) != ErrType {
		t.Errorf("nil datatype: %v", err)
	}
}
