package attr

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	var log []string
	mk := func(name string, keep bool) *Key {
		return NewKey(func(old, v any) (any, bool, error) {
			log = append(log, fmt.Sprintf("copy %s %v", name, v))
			return v, keep, nil
		}, func(obj, v any) error {
			log = append(log, fmt.Sprintf("delete %s %v", name, v))
			return nil
		})
	}
	k1, k2, k3 := mk("k1", true), mk("k2", false), mk("k3", true)
	var s, d Set
	for _, k := range []*Key{k2, k3, k1} {
		if err := s.Put("s", k, k.ID()); err != nil {
			t.Fatal(err)
		}
	}
	s.Put("s", k2, "again") // k2 is now the newest
	if err := s.CopyTo("s", &d); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAll("s"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("delete k2 %d", k2.ID()),
		fmt.Sprintf("copy k1 %d", k1.ID()), "copy k2 again", fmt.Sprintf("copy k3 %d", k3.ID()),
		"delete k2 again", fmt.Sprintf("delete k1 %d", k1.ID()), fmt.Sprintf("delete k3 %d", k3.ID()),
	}
	if !slices.Equal(log, want) {
		t.Errorf("\n got %q\nwant %q", log, want)
	}
	if d.Len() != 2 || s.Len() != 0 {
		t.Errorf("copy holds %d, original %d", d.Len(), s.Len())
	}
}

func TestMisuse(t *testing.T) {
	p := NewPredefined()
	var s Set
	if err := s.Put(nil, p, 1); !errors.Is(err, ErrPredefined) {
		t.Errorf("Put on a predefined key: %v", err)
	}
	if err := p.Free(); !errors.Is(err, ErrPredefined) {
		t.Errorf("Free of a predefined key: %v", err)
	}
	k := NewKey(nil, nil)
	k.Free()
	if err := k.Free(); !errors.Is(err, ErrFreed) {
		t.Errorf("second Free: %v", err)
	}
	if err := s.Delete(nil, k); !errors.Is(err, ErrFreed) {
		t.Errorf("Delete with a freed key: %v", err)
	}
}
