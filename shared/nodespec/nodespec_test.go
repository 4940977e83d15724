package nodespec

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
	}{
		{"N", Spec{Kind: AllNodes}},
		{"C", Spec{Kind: AllCPUs}},
		{"h", Spec{Kind: Local}},
		{"o", Spec{Kind: OriginNode}},
		{"n0", Spec{Kind: Nodes, IDs: []int{0}}},
		{"n0-3,5,0xa,12-15", Spec{Kind: Nodes, IDs: []int{0, 1, 2, 3, 5, 10, 12, 13, 14, 15}}},
		{"c2", Spec{Kind: CPUs, IDs: []int{2}}},
		{"n1,1", Spec{Kind: Nodes, IDs: []int{1, 1}}},
		{"n0x10-0x11", Spec{Kind: Nodes, IDs: []int{16, 17}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if !Is(tt.in) {
			t.Errorf("Is(%q) = false", tt.in)
		}
	}
	for _, bad := range []string{"", "n", "c", "x1", "n-1", "n3-1", "n1,", "n,1", "n1-", "nine", "node1", "./n0", "C++", "n0x", "n0xg", "n1.5", "n99999999999", "n0-4000000000", "N0", "hh", "n0-2000000"} {
		if _, err := Parse(bad); !errors.Is(err, ErrBadSpec) {
			t.Errorf("Parse(%q) = %v, want ErrBadSpec", bad, err)
		}
		if Is(bad) {
			t.Errorf("Is(%q) = true", bad)
		}
	}
}

var universe = []Node{
	{ID: 0, Host: "a", CPUs: 2, Schedulable: true, Origin: true, Local: true},
	{ID: 1, Host: "b", CPUs: 1, Schedulable: false},
	{ID: 3, Host: "d", CPUs: 3, Schedulable: true}, // sparse: n2 was removed
}

func TestResolve(t *testing.T) {
	tests := []struct {
		specs string
		want  []int
		err   error
	}{
		{"N", []int{0, 3}, nil},
		{"C", []int{0, 0, 3, 3, 3}, nil},
		{"n1", []int{1}, nil},                  // explicit may name a no-schedule node
		{"c2", []int{1}, nil},                  // CPUs count every node
		{"c0-5", []int{0, 0, 1, 3, 3, 3}, nil}, //
		{"h", []int{0}, nil},
		{"o", []int{0}, nil},
		{"n0 N", []int{0, 0, 3}, nil},
		{"n2", nil, ErrBadNode},
		{"c6", nil, ErrBadNode},
	}
	for _, tt := range tests {
		var specs []Spec
		for _, f := range splitFields(tt.specs) {
			s, err := Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			specs = append(specs, s)
		}
		got, err := Resolve(specs, universe)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Resolve(%s) error = %v, want %v", tt.specs, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Resolve(%s) = %v, %v; want %v", tt.specs, got, err, tt.want)
		}
	}
	var ne *NodeError
	if _, err := Resolve([]Spec{{Kind: Nodes, IDs: []int{7}}}, universe); !errors.As(err, &ne) || ne.ID != 7 || ne.Error() != "n7: no such node in the universe" {
		t.Errorf("NodeError: %v", err)
	}
	if _, err := Resolve([]Spec{{Kind: Local}}, []Node{{ID: 0}}); !errors.Is(err, ErrBadNode) {
		t.Errorf("h without a local node: %v", err)
	}
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == ' ' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(r)
	}
	return append(out, cur)
}

func TestFormatAll(t *testing.T) {
	if got := Format(0, universe); got != "n0 (o)" {
		t.Errorf("Format(0) = %q", got)
	}
	if got := Format(3, universe); got != "n3" {
		t.Errorf("Format(3) = %q", got)
	}
	if got := All(universe); !reflect.DeepEqual(got, []int{0, 1, 3}) {
		t.Errorf("All = %v", got)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"N", "n0-3,5,0xa,12-15", "c2", "n1,1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			return
		}
		if len(spec.IDs) > MaxIDs {
			t.Fatalf("%q expanded to %d ids", s, len(spec.IDs))
		}
		back, err := Parse(spec.String())
		if err != nil || !reflect.DeepEqual(back, spec) {
			t.Fatalf("%q → %q does not round-trip: %v", s, spec.String(), err)
		}
		if _, err := Resolve([]Spec{spec}, universe); err != nil && !errors.Is(err, ErrBadNode) && !errors.Is(err, ErrBadSpec) {
			t.Fatalf("Resolve(%q): unexpected error %v", s, err)
		}
	})
}
