package nodespec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ids(v ...int) []int { return v }

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// parseTests are well-formed specifications; String gives canon.
var parseTests = []struct {
	in    string
	want  Spec
	canon string
}{
	{"N", Spec{Kind: AllNodes}, "N"},
	{"C", Spec{Kind: AllCPUs}, "C"},
	{"h", Spec{Kind: Local}, "h"},
	{"o", Spec{Kind: OriginNode}, "o"},
	{"n0", Spec{Kind: Nodes, IDs: ids(0)}, "n0"},
	{"c2", Spec{Kind: CPUs, IDs: ids(2)}, "c2"},
	{"n0-3,5,0xa,12-15", Spec{Kind: Nodes, IDs: ids(0, 1, 2, 3, 5, 10, 12, 13, 14, 15)}, "n0-3,5,10,12-15"},
	{"c0-3,5,0xa,12-15", Spec{Kind: CPUs, IDs: ids(0, 1, 2, 3, 5, 10, 12, 13, 14, 15)}, "c0-3,5,10,12-15"},
	{"n1,1", Spec{Kind: Nodes, IDs: ids(1, 1)}, "n1,1"},           // repeats kept
	{"n3,1,2", Spec{Kind: Nodes, IDs: ids(3, 1, 2)}, "n3,1,2"},    // written order kept
	{"n0,1", Spec{Kind: Nodes, IDs: ids(0, 1)}, "n0,1"},           // short runs stay lists
	{"n0,1,2", Spec{Kind: Nodes, IDs: ids(0, 1, 2)}, "n0-2"},      // long runs become ranges
	{"n2-2", Spec{Kind: Nodes, IDs: ids(2)}, "n2"},                // one-id range
	{"n0x10-0x11", Spec{Kind: Nodes, IDs: ids(16, 17)}, "n16,17"}, // hex both ends
	{"n0XfF", Spec{Kind: Nodes, IDs: ids(255)}, "n255"},           // 0X and mixed-case digits
	{"n0xa-12", Spec{Kind: Nodes, IDs: ids(10, 11, 12)}, "n10-12"},
	{"n010", Spec{Kind: Nodes, IDs: ids(10)}, "n10"}, // decimal, not octal
	{"n00", Spec{Kind: Nodes, IDs: ids(0)}, "n0"},
	{"n0x0", Spec{Kind: Nodes, IDs: ids(0)}, "n0"},
	{"n2147483647", Spec{Kind: Nodes, IDs: ids(MaxID)}, "n2147483647"},
	{"n2147483646-0x7fffffff", Spec{Kind: Nodes, IDs: ids(MaxID-1, MaxID)}, "n2147483646,2147483647"},
	{"c0-1048575", Spec{Kind: CPUs, IDs: seq(0, MaxIDs-1)}, "c0-1048575"}, // exactly MaxIDs
	{"n5,4,3,2", Spec{Kind: Nodes, IDs: ids(5, 4, 3, 2)}, "n5,4,3,2"},
	{"n1-3,4-6", Spec{Kind: Nodes, IDs: seq(1, 6)}, "n1-6"},
}

// badSpecs pass Is (they look like specifications) but do not parse.
var badSpecs = []string{
	"n3-1",          // backwards range
	"n1,",           // empty item
	"n1,,2",         // empty item
	"n1-",           // open range
	"n1--2",         // double dash
	"n1-2-3",        // two dashes
	"n0x",           // no hex digits
	"n0xg",          // bad hex digit
	"n1x",           // trailing garbage
	"n1.5",          // not an integer
	"n1,-2",         // negative item
	"n1,+2",         // sign
	"n1 ",           // space
	"n1,0x",         // no hex digits in a later item
	"c1a",           // hex digit without 0x
	"n2147483648",   // above MaxID
	"n99999999999",  // far above MaxID
	"n0-4000000000", // range end above MaxID
	"n0-2000000",    // more than MaxIDs ids
	"c0-1048576",    // MaxIDs+1 ids
	"n0-1048575,0",  // MaxIDs+1 ids over two items
	"n1\x00",        // NUL
	"n1\u00e9",      // non-ASCII
}

// notSpecs are not specifications at all: a command line's program name
// may be any of them.
var notSpecs = []string{
	"", "n", "c", "x1", "n-1", "nine", "node1", "n.1", "./n0", "C++", "N0", "NN", "hh", "h1",
	"o2", "origin", "local", "c++", "cat", "hello", "-np", "n", " n0", "N ", "\x00", "é",
	"p1", "%1", "i1", "ñ1",
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if !Is(tt.in) {
			t.Errorf("Is(%q) = false", tt.in)
		}
		if s := got.String(); s != tt.canon {
			t.Errorf("Parse(%q).String() = %q; want %q", tt.in, s, tt.canon)
		}
		if back, err := Parse(got.String()); err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", got.String(), back, err, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range badSpecs {
		if !Is(bad) {
			t.Errorf("Is(%q) = false; want true (malformed, but a specification)", bad)
		}
		if got, err := Parse(bad); !errors.Is(err, ErrBadSpec) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrBadSpec", bad, got, err)
		} else if !strings.Contains(err.Error(), "bad node or CPU specification") {
			t.Errorf("Parse(%q) error %q does not say what is wrong", bad, err)
		}
	}
	for _, s := range notSpecs {
		if Is(s) {
			t.Errorf("Is(%q) = true; want false", s)
		}
		if _, err := Parse(s); !errors.Is(err, ErrBadSpec) {
			t.Errorf("Parse(%q) = %v; want ErrBadSpec", s, err)
		}
	}
}

func TestParseErrorText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"n3-1", `bad node or CPU specification "n3-1": range 3-1 runs backwards`},
		{"n1,", `bad node or CPU specification "n1,": missing number`},
		{"n0xg", `bad node or CPU specification "n0xg": bad number "0xg"`},
		{"n99999999999", `bad node or CPU specification "n99999999999": number "99999999999" is larger than 2147483647`},
		{"n0-2000000", `bad node or CPU specification "n0-2000000": more than 1048576 ids`},
		{"nine", `bad node or CPU specification "nine": not n<list>, c<list>, N, C, h or o`},
		{"n" + strings.Repeat("1", 100), `bad node or CPU specification "n111111111111111111111111111111111111111...": number "11111111111111111111..." is larger than 2147483647`},
	}
	for _, tt := range tests {
		if _, err := Parse(tt.in); err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) error = %v; want %s", tt.in, err, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: Nodes, IDs: ids(0, 1, 2, 3, 5, 10, 12, 13, 14, 15)}, "n0-3,5,10,12-15"},
		{Spec{Kind: Nodes, IDs: ids(1, 2, 3, 3, 4, 5)}, "n1-3,3-5"},
		{Spec{Kind: CPUs, IDs: ids(7)}, "c7"},
		{Spec{Kind: Nodes, IDs: ids(MaxID-1, MaxID)}, "n2147483646,2147483647"},
		{Spec{Kind: Nodes, IDs: ids(MaxID, MaxID)}, "n2147483647,2147483647"},
		{Spec{Kind: Local}, "h"},
		{Spec{Kind: OriginNode}, "o"},
		// Specs Parse cannot return give text Parse rejects.
		{Spec{}, "?Kind(0)"},
		{Spec{Kind: Nodes}, "n"},
		{Spec{Kind: Nodes, IDs: ids(-1)}, "n-1"},
	}
	for _, tt := range tests {
		if got := tt.spec.String(); got != tt.want {
			t.Errorf("%+v.String() = %q; want %q", tt.spec, got, tt.want)
		}
	}
	for _, k := range []Kind{0, Nodes, CPUs, AllNodes, AllCPUs, Local, OriginNode, 99} {
		if k.String() == "" {
			t.Errorf("Kind(%d).String() is empty", k)
		}
	}
}

// universe: n2 was removed (ids are sparse), n1 was booted schedule=no,
// and n3 has three CPUs.
var universe = []Node{
	{ID: 0, Host: "a", CPUs: 2, Schedulable: true, Origin: true, Local: true},
	{ID: 1, Host: "b", CPUs: 1, Schedulable: false},
	{ID: 3, Host: "d", CPUs: 3, Schedulable: true},
}

// shuffled is universe in another order, with n3 local and the origin
// not schedulable, and a node claiming no CPUs (counts as one).
var shuffled = []Node{
	{ID: 10, Host: "k", CPUs: 0, Schedulable: true},
	{ID: 3, Host: "d", CPUs: 2, Schedulable: true, Local: true},
	{ID: 0, Host: "a", CPUs: 1, Schedulable: false, Origin: true},
}

func TestResolve(t *testing.T) {
	tests := []struct {
		specs string
		nodes []Node
		want  []int
		err   error
	}{
		{"N", universe, ids(0, 3), nil},          // no-schedule n1 left out
		{"C", universe, ids(0, 0, 3, 3, 3), nil}, // by CPU, adjacent
		{"n1", universe, ids(1), nil},            // explicit may name a no-schedule node
		{"n3", universe, ids(3), nil},            // sparse ids
		{"n0,3,0", universe, ids(0, 3, 0), nil},  // order and repeats kept
		{"n0x3", universe, ids(3), nil},          // hex
		{"c0", universe, ids(0), nil},            // CPUs 0,1 on n0
		{"c1", universe, ids(0), nil},            //
		{"c2", universe, ids(1), nil},            // CPUs count every node, n1 included
		{"c3-5", universe, ids(3, 3, 3), nil},    // n3 is the next node, not node 2
		{"c0-5", universe, ids(0, 0, 1, 3, 3, 3), nil},
		{"c5,0", universe, ids(3, 0), nil},
		{"h", universe, ids(0), nil},
		{"o", universe, ids(0), nil},
		{"n0 N", universe, ids(0, 0, 3), nil}, // LAM: n0 N runs two on n0
		{"N C h o", universe, ids(0, 3, 0, 0, 3, 3, 3, 0, 0), nil},
		{"", universe, nil, nil},
		{"n2", universe, nil, ErrBadNode},   // removed
		{"n0,2", universe, nil, ErrBadNode}, // one bad id spoils the spec
		{"n4", universe, nil, ErrBadNode},
		{"c6", universe, nil, ErrBadNode}, // 6 CPUs: c0-c5
		{"n2147483647", universe, nil, ErrBadNode},
		{"N", shuffled, ids(3, 10), nil},          // id order, not table order
		{"C", shuffled, ids(3, 3, 10), nil},       // CPUs 0 counts as one
		{"c0-3", shuffled, ids(0, 3, 3, 10), nil}, // id order over all nodes
		{"c4", shuffled, nil, ErrBadNode},
		{"h", shuffled, ids(3), nil},
		{"o", shuffled, ids(0), nil},
		{"N", nil, nil, nil},                      // no nodes: no targets, no error
		{"C", []Node{{ID: 0, CPUs: 4}}, nil, nil}, // nothing schedulable
		{"n0", nil, nil, ErrBadNode},
		{"c0", nil, nil, ErrBadNode},
		{"h", []Node{{ID: 0, Origin: true}}, nil, ErrBadNode},
		{"o", []Node{{ID: 0, Local: true}}, nil, ErrBadNode},
		{"C", []Node{{ID: 0, CPUs: MaxIDs + 1, Schedulable: true}}, nil, ErrBadSpec},
		{"C C", []Node{{ID: 0, CPUs: MaxIDs/2 + 1, Schedulable: true}}, nil, ErrBadSpec},
		{"C", []Node{{ID: 0, CPUs: MaxIDs, Schedulable: true}}, repeat(0, MaxIDs), nil},
		{"c0-1048575 c0", []Node{{ID: 5, CPUs: 1 << 30}}, nil, ErrBadSpec},
		{"c1073741823", []Node{{ID: 0, CPUs: 1 << 30}, {ID: 1, CPUs: MaxID}}, ids(0), nil},
		{"c1073741824", []Node{{ID: 0, CPUs: 1 << 30}, {ID: 1, CPUs: MaxID}}, ids(1), nil},
		{"n7", []Node{{ID: 7}, {ID: 7, Origin: true}}, ids(7), nil}, // duplicate ids: first wins
		{"o", []Node{{ID: 7}, {ID: 7, Origin: true}}, nil, ErrBadNode},
	}
	for _, tt := range tests {
		var specs []Spec
		for f := range strings.FieldsSeq(tt.specs) {
			s, err := Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			specs = append(specs, s)
		}
		got, err := Resolve(specs, tt.nodes)
		if tt.err != nil {
			if !errors.Is(err, tt.err) || got != nil {
				t.Errorf("Resolve(%s) = %v, %v; want error %v", tt.specs, got, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			if len(got) > 20 {
				got = got[:20]
			}
			t.Errorf("Resolve(%s) = %v, %v; want %v", tt.specs, got, err, tt.want)
		}
	}
}

func repeat(id, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = id
	}
	return out
}

// Hand-built specifications that Parse could not have returned.
func TestResolveInvalidSpecs(t *testing.T) {
	for _, s := range []Spec{
		{},
		{Kind: 42},
		{Kind: Nodes},
		{Kind: CPUs, IDs: []int{}},
		{Kind: Nodes, IDs: ids(-1)},
		{Kind: CPUs, IDs: ids(-2)},
		{Kind: Nodes, IDs: ids(MaxID + 1)},
		{Kind: Nodes, IDs: repeat(0, MaxIDs+1)},
	} {
		if got, err := Resolve([]Spec{s}, universe); !errors.Is(err, ErrBadSpec) {
			t.Errorf("Resolve(%v) = %v, %v; want ErrBadSpec", s.Kind, got, err)
		}
	}
}

func TestNodeError(t *testing.T) {
	tests := []struct {
		spec  Spec
		want  NodeError
		error string
	}{
		{Spec{Kind: Nodes, IDs: ids(0, 7)}, NodeError{ID: 7}, "n7: no such node in the universe"},
		{Spec{Kind: CPUs, IDs: ids(9)}, NodeError{ID: 9, CPU: true}, "c9: no such CPU in the universe"},
	}
	for _, tt := range tests {
		_, err := Resolve([]Spec{tt.spec}, universe)
		var ne *NodeError
		if !errors.As(err, &ne) || *ne != tt.want || err.Error() != tt.error || !errors.Is(err, ErrBadNode) {
			t.Errorf("Resolve(%s) error = %#v; want %+v %q", tt.spec, err, tt.want, tt.error)
		}
	}
	_, err := Resolve([]Spec{{Kind: OriginNode}}, []Node{{ID: 1}})
	if err == nil || err.Error() != "invalid node: the universe has no origin node" {
		t.Errorf("o without an origin: %v", err)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		id    int
		nodes []Node
		want  string
	}{
		{0, universe, "n0 (o)"},
		{3, universe, "n3"},
		{1, universe, "n1"},
		{9, universe, "n9"}, // not in the table: LAM's nid_fmt does not look
		{0, shuffled, "n0 (o)"},
		{3, shuffled, "n3"},
		{0, nil, "n0"},
		{-1, universe, "?"},
	}
	for _, tt := range tests {
		if got := Format(tt.id, tt.nodes); got != tt.want {
			t.Errorf("Format(%d) = %q; want %q", tt.id, got, tt.want)
		}
	}
}

func TestAll(t *testing.T) {
	tests := []struct {
		nodes []Node
		want  []int
	}{
		{universe, ids(0, 1, 3)}, // no-schedule n1 included
		{shuffled, ids(0, 3, 10)},
		{nil, []int{}},
		{[]Node{{ID: 2}, {ID: 2}}, ids(2)},
	}
	for _, tt := range tests {
		if got := All(tt.nodes); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("All = %v; want %v", got, tt.want)
		}
	}
}

// Resolve must not change or keep the caller's table.
func TestResolveLeavesNodes(t *testing.T) {
	nodes := append([]Node(nil), shuffled...)
	if _, err := Resolve([]Spec{{Kind: AllCPUs}}, nodes); err != nil {
		t.Fatal(err)
	}
	All(nodes)
	if !reflect.DeepEqual(nodes, shuffled) {
		t.Errorf("Resolve reordered the table: %+v", nodes)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, s := range badSpecs {
		f.Add(s)
	}
	for _, s := range notSpecs {
		f.Add(s)
	}
	universes := [][]Node{universe, shuffled, nil, {{ID: 0, CPUs: 1 << 19, Schedulable: true}}}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrBadSpec) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrBadSpec", s, err)
			}
			if len(err.Error()) > 300 {
				t.Fatalf("Parse(%q) error is %d bytes long", s, len(err.Error()))
			}
			return
		}
		if !Is(s) {
			t.Fatalf("Parse(%q) succeeded but Is is false", s)
		}
		switch spec.Kind {
		case Nodes, CPUs:
			if len(spec.IDs) == 0 || len(spec.IDs) > MaxIDs {
				t.Fatalf("Parse(%q): %d ids", s, len(spec.IDs))
			}
			for _, id := range spec.IDs {
				if id < 0 || id > MaxID {
					t.Fatalf("Parse(%q): id %d", s, id)
				}
			}
		case AllNodes, AllCPUs, Local, OriginNode:
			if spec.IDs != nil {
				t.Fatalf("Parse(%q): ids %v", s, spec.IDs)
			}
		default:
			t.Fatalf("Parse(%q): kind %v", s, spec.Kind)
		}
		text := spec.String()
		if len(text) > len(s)+2*len(spec.IDs) {
			// Canonical text is never much longer than the input: each
			// id may lose its 0x prefix but gain at most one comma
			// when a short range is written out.
			t.Fatalf("Parse(%q).String() is %d bytes", s, len(text))
		}
		back, err := Parse(text)
		if err != nil || !reflect.DeepEqual(back, spec) {
			t.Fatalf("Parse(%q).String() = %q, which parses to %+v, %v", s, text, back, err)
		}
		if back.String() != text {
			t.Fatalf("String is not canonical: %q then %q", text, back.String())
		}
		for _, nodes := range universes {
			got, err := Resolve([]Spec{spec}, nodes)
			switch {
			case err == nil:
				if len(got) > MaxIDs {
					t.Fatalf("Resolve(%q): %d targets", s, len(got))
				}
				if (spec.Kind == Nodes || spec.Kind == CPUs) && len(got) != len(spec.IDs) {
					t.Fatalf("Resolve(%q): %d targets for %d ids", s, len(got), len(spec.IDs))
				}
			case errors.Is(err, ErrBadNode), errors.Is(err, ErrBadSpec):
				if got != nil {
					t.Fatalf("Resolve(%q) returned %v with error %v", s, got, err)
				}
			default:
				t.Fatalf("Resolve(%q): unexpected error %v", s, err)
			}
		}
	})
}
