package appschema

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/nodespec"
)

var nodes = []nodespec.Node{
	{ID: 0, CPUs: 2, Schedulable: true, Origin: true, Local: true},
	{ID: 1, CPUs: 1, Schedulable: false},
	{ID: 2, CPUs: 2, Schedulable: true},
}

func TestParseLine(t *testing.T) {
	l, err := ParseLine(strings.Fields("n0 -np 2 -wd /tmp -x A,B=1 -x C -s n1 ./prog -np 9 -x z"))
	if err != nil {
		t.Fatal(err)
	}
	want := Line{Where: []nodespec.Spec{{Kind: nodespec.Nodes, IDs: []int{0}}}, NP: 2, Wd: "/tmp", Export: []string{"A", "B=1", "C"}, Source: "n1", Program: "./prog", Args: []string{"-np", "9", "-x", "z"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("ParseLine = %+v\nwant %+v", l, want)
	}
	for _, bad := range []string{"-np", "-np 0 a", "-np x a", "-np 1 -c 2 a", "-wd a -wd b c", "-s n1 -s n2 p", "-s bogus p", "-q a", "n0", "", "-x =1 a", "-x ,a p"} {
		if _, err := ParseLine(strings.Fields(bad)); err == nil {
			t.Errorf("ParseLine(%q) succeeded", bad)
		}
	}
}

func TestParseSchema(t *testing.T) {
	in := "# comment\nn0 -np 2 ./hello\n\nc0 ./hello \"an arg\" # trailing\r\n  C -x \"A=b c\" prog"
	lines, err := Parse(strings.NewReader(in), "app")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0].LineNo != 2 || lines[1].LineNo != 4 || lines[1].Args[0] != "an arg" || lines[2].Export[0] != "A=b c" {
		t.Errorf("Parse = %+v", lines)
	}
	procs, err := Schedule(lines[:2], nodes)
	if err != nil || len(procs) != 3 {
		t.Fatalf("LAM's example n0 -np 2 + c0 gives 3 ranks: %v %v", procs, err)
	}
	tests := []struct {
		in, want string
	}{
		{"p\nn0 -np x p", "app:2: -np needs a positive count"},
		{"\"open", "app:1: unbalanced quote"},
		{"ok\n\x01bin", "app:2: not text"},
		{"-np 2", "app:1: no program"},
		{strings.Repeat("a", MaxLine+10), "longer than"},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.in), "app")
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%.20q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		line string
		want []int
	}{
		{"N p", []int{0, 2}},
		{"C p", []int{0, 0, 2, 2}},
		{"-np 6 p", []int{0, 0, 2, 2, 0, 0}},
		{"N -np 3 p", []int{0, 2, 0}},
		{"n1 p", []int{1}},
		{"n0 N p", []int{0, 0, 2}},
		{"p", []int{0}},
		{"c2 -np 2 p", []int{1, 1}},
	}
	for _, tt := range tests {
		l, err := ParseLine(strings.Fields(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		procs, err := Schedule([]Line{l}, nodes)
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		var got []int
		for i, p := range procs {
			if p.Rank != i {
				t.Errorf("%s: rank %d at %d", tt.line, p.Rank, i)
			}
			got = append(got, p.Node)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Schedule(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
	l, _ := ParseLine(strings.Fields("n7 p"))
	if _, err := Schedule([]Line{l}, nodes); !errors.Is(err, nodespec.ErrBadNode) {
		t.Errorf("n7: %v", err)
	}
	l, _ = ParseLine(strings.Fields("N p"))
	if _, err := Schedule([]Line{l}, []nodespec.Node{{ID: 0, CPUs: 1}}); !errors.Is(err, nodespec.ErrBadNode) {
		t.Errorf("no schedulable node: %v", err)
	}
}

func TestSplitExport(t *testing.T) {
	got, err := SplitExport(`A,B=x\,y,C=`)
	if err != nil || !reflect.DeepEqual(got, []string{"A", "B=x,y", "C="}) {
		t.Errorf("SplitExport = %q, %v", got, err)
	}
}

func FuzzParseSchema(f *testing.F) {
	f.Add("n0 -np 2 ./hello\nc0 ./hello\n")
	f.Add("C -x A=1,B prog \"x y\" # c\n")
	f.Fuzz(func(t *testing.T, in string) {
		lines, err := Parse(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		for _, l := range lines {
			if l.Program == "" || l.LineNo < 1 || l.NP < 0 {
				t.Fatalf("bad line %+v", l)
			}
		}
		procs, err := Schedule(lines, nodes)
		if err == nil && len(procs) > MaxProcs {
			t.Fatalf("%d processes", len(procs))
		}
	})
}
