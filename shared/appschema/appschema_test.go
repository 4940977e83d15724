package appschema

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/lamgo/lam/shared/nodespec"
)

func nodes(ids ...int) nodespec.Spec { return nodespec.Spec{Kind: nodespec.Nodes, IDs: ids} }
func cpus(ids ...int) nodespec.Spec  { return nodespec.Spec{Kind: nodespec.CPUs, IDs: ids} }

var (
	allNodes = nodespec.Spec{Kind: nodespec.AllNodes}
	allCPUs  = nodespec.Spec{Kind: nodespec.AllCPUs}
	local    = nodespec.Spec{Kind: nodespec.Local}
	origin   = nodespec.Spec{Kind: nodespec.OriginNode}
)

func where(s ...nodespec.Spec) []nodespec.Spec { return s }
func strs(s ...string) []string                { return s }

var splitTests = []struct {
	in   string
	want []string
	err  string
}{
	{"", nil, ""},
	{"   \t ", nil, ""},
	{"a b\tc", strs("a", "b", "c"), ""},
	{"  a   b  ", strs("a", "b"), ""},
	{"# all comment", nil, ""},
	{"a # comment", strs("a"), ""},
	{"a# comment", strs("a"), ""}, // # starts a comment anywhere outside quotes
	{"a b#c", strs("a", "b"), ""},
	{`a "b c" d`, strs("a", "b c", "d"), ""},
	{`"" a`, strs("", "a"), ""},
	{`a ""`, strs("a", ""), ""},
	{`a"b c"d`, strs("ab cd"), ""},
	{`"#not a comment" x`, strs("#not a comment", "x"), ""},
	{`'# neither' x`, strs("# neither", "x"), ""},
	{`'single "quotes" keep \\ as is'`, strs(`single "quotes" keep \\ as is`), ""},
	{`"double 'quotes' \"escape\" \\ and \n"`, strs(`double 'quotes' "escape" \ and \n`), ""},
	{`\"a\" \\ \' b\c \`, strs(`"a"`, `\`, `'`, `b\c`, `\`), ""},
	{`-x A=v\,w`, strs("-x", `A=v\,w`), ""},
	{`"a\"`, nil, "unbalanced double quote (opened at column 1)"},
	{`a 'b`, nil, "unbalanced single quote (opened at column 3)"},
	{`it's`, nil, "unbalanced single quote (opened at column 3)"},
	{`"a" "`, nil, "unbalanced double quote (opened at column 5)"},
	{"é ü", strs("é", "ü"), ""},
}

func TestSplitWords(t *testing.T) {
	for _, tt := range splitTests {
		got, err := splitWords(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("splitWords(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

var parseLineTests = []struct {
	in   []string
	want Line
}{
	{strs("./hello"), Line{Program: "./hello"}},
	{strs("n0", "-np", "2", "./hello"), Line{Where: where(nodes(0)), NP: 2, Program: "./hello"}},
	{strs("c0", "./hello"), Line{Where: where(cpus(0)), Program: "./hello"}},
	{strs("-c", "3", "prog"), Line{NP: 3, Program: "prog"}},
	{strs("N", "-np", "16", "prog"), Line{Where: where(allNodes), NP: 16, Program: "prog"}},
	{strs("n0", "N", "prog"), Line{Where: where(nodes(0), allNodes), Program: "prog"}},
	{strs("h", "o", "C", "prog"), Line{Where: where(local, origin, allCPUs), Program: "prog"}},
	{strs("n0x1,0xa-0xc", "prog"), Line{Where: where(nodes(1, 10, 11, 12)), Program: "prog"}},
	// Options and where specifications in any order before the program.
	{strs("-np", "2", "n0", "-wd", "/tmp", "n1", "-s", "h", "prog"),
		Line{Where: where(nodes(0), nodes(1)), NP: 2, Wd: "/tmp", Source: "h", Program: "prog"}},
	// Everything after the program is its own, even options and specs.
	{strs("n0", "-np", "2", "-wd", "/tmp", "-x", "A,B=1", "-x", "C", "-s", "n1", "./prog", "-np", "9", "-x", "z", "n3", "--"),
		Line{Where: where(nodes(0)), NP: 2, Wd: "/tmp", Export: strs("A", "B=1", "C"), Source: "n1", Program: "./prog", Args: strs("-np", "9", "-x", "z", "n3", "--")}},
	// -x may be repeated; every one counts.
	{strs("-x", "AA", "-x", "BB", "-x", `C=1\,2,D`, "p"), Line{Export: strs("AA", "BB", "C=1,2", "D"), Program: "p"}},
	// -s accepts one node: nX, cX, h, o.
	{strs("-s", "n0", "p"), Line{Source: "n0", Program: "p"}},
	{strs("-s", "c5", "p"), Line{Source: "c5", Program: "p"}},
	{strs("-s", "o", "p"), Line{Source: "o", Program: "p"}},
	{strs("-s", "n0x3", "p"), Line{Source: "n0x3", Program: "p"}}, // kept as written
	{strs("-wd", "-np", "p"), Line{Wd: "-np", Program: "p"}},      // an option's value is taken as is
	{strs("-np", "007", "p"), Line{NP: 7, Program: "p"}},
	{strs("-np", "1048576", "p"), Line{NP: MaxProcs, Program: "p"}},
	// Program names that are not where specifications.
	{strs("node1"), Line{Program: "node1"}},
	{strs("nine", "n0"), Line{Program: "nine", Args: strs("n0")}},
	{strs("C++"), Line{Program: "C++"}},
	{strs("./n0"), Line{Program: "./n0"}},
	{strs("n"), Line{Program: "n"}},
	{strs("c"), Line{Program: "c"}},
	{strs("n-1"), Line{Program: "n-1"}},
	// -- ends the options.
	{strs("--", "n0"), Line{Program: "n0"}},
	{strs("N", "--", "-weird", "a"), Line{Where: where(allNodes), Program: "-weird", Args: strs("a")}},
	{strs("--", "--"), Line{Program: "--"}},
	{strs("p", ""), Line{Program: "p", Args: strs("")}},
}

var parseLineErrors = []struct {
	in   []string
	want string
	is   error // besides ErrSyntax
}{
	{nil, "no program", nil},
	{strs("n0"), "no program after the options", nil},
	{strs("-np", "2"), "no program after the options", nil},
	{strs("-np"), "-np needs a value", nil},
	{strs("-c"), "-c needs a value", nil},
	{strs("p", "-np"), "", nil}, // not an error: see parseLineTests
	{strs("-np", "0", "a"), `-np needs a positive integer, not "0"`, nil},
	{strs("-np", "x", "a"), `-np needs a positive integer, not "x"`, nil},
	{strs("-np", "-1", "a"), `-np needs a positive integer, not "-1"`, nil},
	{strs("-np", "+1", "a"), `-np needs a positive integer, not "+1"`, nil},
	{strs("-np", "0x10", "a"), `-np needs a positive integer, not "0x10"`, nil},
	{strs("-np", "", "a"), `-np needs a positive integer, not ""`, nil},
	{strs("-np", "1048577", "a"), `-np "1048577": more than 1048576 processes`, nil},
	{strs("-c", "99999999999999999999999", "a"), `-c "99999999999999999999999": more than 1048576 processes`, nil},
	{strs("-np", "1", "-c", "2", "a"), "-np and -c cannot both be given", nil},
	{strs("-c", "1", "-np", "2", "a"), "-np and -c cannot both be given", nil},
	{strs("-np", "1", "-np", "2", "a"), "-np given twice", nil},
	{strs("-c", "1", "-c", "1", "a"), "-c given twice", nil},
	{strs("-wd", "a", "-wd", "b", "c"), "-wd given twice", nil},
	{strs("-wd", "", "c"), "-wd needs a directory, not an empty word", nil},
	{strs("-wd"), "-wd needs a value", nil},
	{strs("-s", "n1", "-s", "n2", "p"), "-s given twice", nil},
	{strs("-s", "bogus", "p"), `-s needs one node (nX, cX, h or o): bad node or CPU specification "bogus": not n<list>, c<list>, N, C, h or o`, nodespec.ErrBadSpec},
	{strs("-s", "N", "p"), `-s needs one node (nX, cX, h or o), not "N"`, nil},
	{strs("-s", "C", "p"), `-s needs one node (nX, cX, h or o), not "C"`, nil},
	{strs("-s", "n0,1", "p"), `-s needs one node (nX, cX, h or o), not "n0,1"`, nil},
	{strs("-s", "n0-1", "p"), `-s needs one node (nX, cX, h or o), not "n0-1"`, nil},
	{strs("-s"), "-s needs a value", nil},
	{strs("-x"), "-x needs a value", nil},
	{strs("-x", "=1", "a"), `-x "=1": item 1 ("=1") has no variable name`, nil},
	{strs("-x", ",a", "p"), `-x ",a": item 1 is empty`, nil},
	{strs("-x", "", "p"), `-x "": item 1 is empty`, nil},
	{strs("-q", "a"), `unknown option "-q" before the program (use -- before a program whose name starts with -)`, nil},
	{strs("-", "a"), `unknown option "-" before the program (use -- before a program whose name starts with -)`, nil},
	{strs("-nw", "a"), `unknown option "-nw" before the program (use -- before a program whose name starts with -)`, nil},
	{strs("n3-1", "prog"), `bad node or CPU specification "n3-1": range 3-1 runs backwards`, nodespec.ErrBadSpec},
	{strs("n1x", "prog"), `bad node or CPU specification "n1x": bad number "1x"`, nodespec.ErrBadSpec},
	{strs("n0-4000000000", "prog"), `bad node or CPU specification "n0-4000000000": number "4000000000" is larger than 2147483647`, nodespec.ErrBadSpec},
	{strs(""), "empty program name", nil},
	{strs("n0", "", "a"), "empty program name", nil},
	{strs("--"), "no program after --", nil},
	{strs("--", ""), "empty program name", nil},
}

func TestParseLine(t *testing.T) {
	for _, tt := range parseLineTests {
		got, err := ParseLine(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseLine(%q) = %#v, %v\nwant %#v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range parseLineErrors {
		got, err := ParseLine(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ParseLine(%q): %v", tt.in, err)
			}
			continue
		}
		var se *SyntaxError
		switch {
		case err == nil:
			t.Errorf("ParseLine(%q) = %#v; want error %q", tt.in, got, tt.want)
		case err.Error() != tt.want:
			t.Errorf("ParseLine(%q) error = %q; want %q", tt.in, err, tt.want)
		case !errors.Is(err, ErrSyntax) || !errors.As(err, &se) || se.File != "" || se.Line != 0:
			t.Errorf("ParseLine(%q) error %#v is not a plain *SyntaxError", tt.in, err)
		case tt.is != nil && !errors.Is(err, tt.is):
			t.Errorf("ParseLine(%q) error %v does not wrap %v", tt.in, err, tt.is)
		}
		if err != nil && !reflect.DeepEqual(got, Line{}) {
			t.Errorf("ParseLine(%q) returned %#v with its error", tt.in, got)
		}
	}
}

// ParseLine must not keep the caller's slice.
func TestParseLineCopiesArgs(t *testing.T) {
	in := strs("p", "a", "b")
	l, err := ParseLine(in)
	if err != nil {
		t.Fatal(err)
	}
	in[1] = "changed"
	if l.Args[0] != "a" {
		t.Errorf("Args shares the caller's slice: %q", l.Args)
	}
}

var parseTests = []struct {
	name string
	in   string
	want []Line
}{
	{"empty", "", nil},
	{"comments only", "# a schema\n\n   # nothing\n\t\n", nil},
	{"LAM's example", "n0 -np 2 ./hello\nc0 ./hello\n", []Line{
		{Where: where(nodes(0)), NP: 2, Program: "./hello", LineNo: 1},
		{Where: where(cpus(0)), Program: "./hello", LineNo: 2},
	}},
	{"line numbers count comments and blanks", "# c\n\nn0 a\n  # c\nb # trailing\n", []Line{
		{Where: where(nodes(0)), Program: "a", LineNo: 3},
		{Program: "b", LineNo: 5},
	}},
	{"no final newline", "a\nb", []Line{{Program: "a", LineNo: 1}, {Program: "b", LineNo: 2}}},
	{"CRLF", "a x\r\nb\r\n", []Line{{Program: "a", Args: strs("x"), LineNo: 1}, {Program: "b", LineNo: 2}}},
	{"byte order mark", "\uFEFFa\n", []Line{{Program: "a", LineNo: 1}}},
	{"quotes", "c0 ./hello \"an arg\" 'and another' # trailing\n  C -x \"A=b c\" -wd \"/my dir\" prog\n",
		[]Line{
			{Where: where(cpus(0)), Program: "./hello", Args: strs("an arg", "and another"), LineNo: 1},
			{Where: where(allCPUs), Export: strs("A=b c"), Wd: "/my dir", Program: "prog", LineNo: 2},
		}},
	{"tabs and UTF-8", "\tN\t-np 4\tprogramme\tété\n", []Line{
		{Where: where(allNodes), NP: 4, Program: "programme", Args: strs("été"), LineNo: 1},
	}},
	{"every option", "n0-2 h -c 3 -s o -wd /w -x A -x B=1,C p -x D\n", []Line{
		{Where: where(nodes(0, 1, 2), local), NP: 3, Source: "o", Wd: "/w", Export: strs("A", "B=1", "C"), Program: "p", Args: strs("-x", "D"), LineNo: 1},
	}},
	{"#! later is a comment", "a\n#!/bin/sh\n", []Line{{Program: "a", LineNo: 1}}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		got, err := Parse(strings.NewReader(tt.in), "app")
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Parse = %#v, %v\nwant %#v", tt.name, got, err, tt.want)
		}
	}
}

var parseErrors = []struct {
	in   string
	want string
	is   error // besides ErrSyntax
}{
	{"p\nn0 -np x p", `app:2: -np needs a positive integer, not "x"`, nil},
	{"\"open", "app:1: unbalanced double quote (opened at column 1)", nil},
	{"a\n\nb 'c\n", "app:3: unbalanced single quote (opened at column 3)", nil},
	{"-np 2", "app:1: no program after the options", nil},
	{"n0\n", "app:1: no program after the options", nil},
	{"n0 # ./prog", "app:1: no program after the options", nil},
	{"a\n-q b", `app:2: unknown option "-q" before the program (use -- before a program whose name starts with -)`, nil},
	{"a\n-wd x -wd y b", "app:2: -wd given twice", nil},
	{"-np 1 -c 1 b", "app:1: -np and -c cannot both be given", nil},
	{"n9-1 b", `app:1: bad node or CPU specification "n9-1": range 9-1 runs backwards`, nodespec.ErrBadSpec},
	{"-s N b", `app:1: -s needs one node (nX, cX, h or o), not "N"`, nil},
	{"-x A,,B b", `app:1: -x "A,,B": item 2 is empty`, nil},
	{`"" a`, "app:1: empty program name", nil},
	{"ok\n\x01bin", "app:2: exec format error: non-printable character U+0001 at column 1", ErrNotText},
	{"ok\nbin\x00", "app:2: exec format error: non-printable character U+0000 at column 4", ErrNotText},
	{"a\rb\n", "app:1: exec format error: non-printable character U+000D at column 2", ErrNotText},
	{"a\vb\n", "app:1: exec format error: non-printable character U+000B at column 2", ErrNotText},
	{"a\u00a0b\n", "app:1: exec format error: non-printable character U+00A0 at column 2", ErrNotText},
	{"a\x7fb\n", "app:1: exec format error: non-printable character U+007F at column 2", ErrNotText},
	{"a \xff\xfe\n", "app:1: exec format error: not UTF-8 text (byte 0xff at column 3)", ErrNotText},
	{"# comment \x80\na\n", "app:1: exec format error: not UTF-8 text (byte 0x80 at column 11)", ErrNotText},
	{"\x7fELF\x02\x01\x01", "app:1: exec format error: non-printable character U+007F at column 1", ErrNotText},
	{"#!/bin/sh\necho hi\n", "app:1: exec format error: starts with #!: a script, not an application schema", ErrNotText},
	{"\uFEFF#!/bin/sh\n", "app:1: exec format error: starts with #!: a script, not an application schema", ErrNotText},
	{"a\n\uFEFFb\n", "app:2: exec format error: non-printable character U+FEFF at column 1", ErrNotText},
	{strings.Repeat("a", MaxLine+1), "app:1: line longer than 65536 bytes", nil},
	{"a\n" + strings.Repeat("a", MaxLine+1) + "\n", "app:2: line longer than 65536 bytes", nil},
	{strings.Repeat("a", MaxLine+1) + "\r\n", "app:1: line longer than 65536 bytes", nil},
	{strings.Repeat("a", 10*MaxLine), "app:1: line longer than 65536 bytes", nil},
	{strings.Repeat("\n", MaxLines) + "a", "app:65537: more than 65536 lines", nil},
	{strings.Repeat("# comment\n", MaxLines) + "\n", "app:65537: more than 65536 lines", nil},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrors {
		got, err := Parse(strings.NewReader(tt.in), "app")
		var se *SyntaxError
		switch {
		case err == nil:
			t.Errorf("Parse(%.30q) = %#v; want error %q", tt.in, got, tt.want)
		case err.Error() != tt.want:
			t.Errorf("Parse(%.30q) error = %q; want %q", tt.in, err, tt.want)
		case !errors.Is(err, ErrSyntax) || !errors.As(err, &se) || se.File != "app" || se.Line < 1:
			t.Errorf("Parse(%.30q) error %#v is not a *SyntaxError naming the line", tt.in, err)
		case tt.is != nil && !errors.Is(err, tt.is):
			t.Errorf("Parse(%.30q) error %v does not wrap %v", tt.in, err, tt.is)
		case tt.is != ErrNotText && errors.Is(err, ErrNotText):
			t.Errorf("Parse(%.30q) error %v wraps ErrNotText", tt.in, err)
		}
		if got != nil {
			t.Errorf("Parse(%.30q) returned lines with its error", tt.in)
		}
	}
}

func TestParseLimits(t *testing.T) {
	ok := []struct{ name, in string }{
		{"longest line", strings.Repeat("a", MaxLine) + "\n"},
		{"longest line, no newline", strings.Repeat("a", MaxLine)},
		{"longest line, CRLF", strings.Repeat("a", MaxLine) + "\r\n"},
		{"most lines", strings.Repeat("a\n", MaxLines)},
		{"most lines, no final newline", strings.Repeat("a\n", MaxLines-1) + "a"},
	}
	for _, tt := range ok {
		if _, err := Parse(strings.NewReader(tt.in), "app"); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// MaxBytes: 300 lines of 64 KiB is more than 16 MiB.
	long := "p " + strings.Repeat("x", MaxLine-2) + "\n"
	_, err := Parse(strings.NewReader(strings.Repeat(long, 300)), "big")
	if err == nil || err.Error() != "big:256: schema larger than 16777216 bytes" || !errors.Is(err, ErrSyntax) {
		t.Errorf("oversized schema: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

func TestParseReadErrors(t *testing.T) {
	_, err := Parse(io.MultiReader(strings.NewReader("a\nb"), errReader{}), "app")
	if err == nil || err.Error() != "app: disk on fire" || errors.Is(err, ErrSyntax) {
		t.Errorf("read error: %v", err)
	}
	// A reader that never makes progress must not hang Parse.
	if _, err := Parse(stuckReader{}, "app"); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("stuck reader: %v", err)
	}
	// One byte at a time, and errors with the data, still parse.
	lines, err := Parse(iotest.DataErrReader(iotest.OneByteReader(strings.NewReader("n0 -np 2 a\nc0 b"))), "app")
	if err != nil || len(lines) != 2 || lines[1].Program != "b" {
		t.Errorf("one byte reader: %#v, %v", lines, err)
	}
}

var splitExportTests = []struct {
	in   string
	want []string
	err  string
}{
	{"A", strs("A"), ""},
	{"A,B", strs("A", "B"), ""},
	{`A,B=x\,y,C=`, strs("A", "B=x,y", "C="), ""},
	{"A=b=c", strs("A=b=c"), ""},
	{`A=\a\\b\`, strs(`A=\a\\b\`), ""}, // only \, is an escape
	{`A=a\\,B`, strs(`A=a\,B`), ""},
	{"A=with space", strs("A=with space"), ""},
	{`A="q"`, strs(`A="q"`), ""},
	{"PATH=/bin:/usr/bin,HOME", strs("PATH=/bin:/usr/bin", "HOME"), ""},
	{"", nil, "item 1 is empty"},
	{",", nil, "item 1 is empty"},
	{"A,", nil, "item 2 is empty"},
	{"A,,B", nil, "item 2 is empty"},
	{"=v", nil, `item 1 ("=v") has no variable name`},
	{"A,=v", nil, `item 2 ("=v") has no variable name`},
	{"A B=1", nil, `item 1: bad variable name "A B"`},
	{"A\tB", nil, `item 1: bad variable name "A\tB"`},
	{"A\nB=1", nil, `item 1: bad variable name "A\nB"`},
	{"A=x\x00y", nil, `item 1 ("A=x\x00y") holds a NUL`},
}

func TestSplitExport(t *testing.T) {
	for _, tt := range splitExportTests {
		got, err := SplitExport(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || got != nil {
				t.Errorf("SplitExport(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitExport(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// universe: n0 (origin, local) and n1 have two CPUs each; n2 was
// removed; n3 was booted with schedule=no; n4 has one CPU.
var universe = []nodespec.Node{
	{ID: 0, CPUs: 2, Schedulable: true, Origin: true, Local: true},
	{ID: 1, CPUs: 2, Schedulable: true},
	{ID: 3, CPUs: 1, Schedulable: false},
	{ID: 4, CPUs: 1, Schedulable: true},
}

var twoNodes = []nodespec.Node{
	{ID: 0, CPUs: 2, Schedulable: true, Origin: true, Local: true},
	{ID: 1, CPUs: 2, Schedulable: true},
}

func repeat(ids []int, n int) []int {
	var out []int
	for len(out) < n {
		out = append(out, ids...)
	}
	return out[:n]
}

var scheduleTests = []struct {
	name   string
	schema string
	nodes  []nodespec.Node
	want   []int // node of each rank
}{
	{"LAM's example: 3 ranks", "n0 -np 2 ./hello\nc0 ./hello", universe, []int{0, 0, 0}},
	{"n0 N runs two on n0", "n0 N p", twoNodes, []int{0, 0, 1}},
	{"N -np 16 by node", "N -np 16 p", twoNodes, repeat([]int{0, 1}, 16)},
	{"-np 16 by CPU", "-np 16 p", twoNodes, repeat([]int{0, 0, 1, 1}, 16)},
	{"C -np 16 by CPU", "C -np 16 p", twoNodes, repeat([]int{0, 0, 1, 1}, 16)},
	{"N: schedulable nodes only", "N p", universe, []int{0, 1, 4}},
	{"C: schedulable CPUs only", "C p", universe, []int{0, 0, 1, 1, 4}},
	{"-np over C skips no-schedule", "-np 6 p", universe, []int{0, 0, 1, 1, 4, 0}},
	{"explicit nX may name a no-schedule node", "n3 p", universe, []int{3}},
	{"explicit nX with -np", "n3 -np 3 p", universe, []int{3, 3, 3}},
	{"cX counts no-schedule CPUs", "c4,5 p", universe, []int{3, 4}},
	{"sparse ids", "n4 p\nn0,4 p", universe, []int{4, 0, 4}},
	{"hex ids", "n0x4 p\nc0x5 p", universe, []int{4, 4}},
	{"both: round robin over the listed targets", "n1,4 -np 5 p", universe, []int{1, 4, 1, 4, 1}},
	{"both: fewer than the targets", "C -np 3 p", universe, []int{0, 0, 1}},
	{"neither: the local node", "p", universe, []int{0}},
	{"h and o", "h o p", universe, []int{0, 0}},
	{"ranks follow line order", "n4 a\n-np 3 b\nn1 c", universe, []int{4, 0, 0, 1, 1}},
	{"-c is -np", "-c 2 p", universe, []int{0, 0}},
	{"local node is not the origin", "p\no p", []nodespec.Node{{ID: 0, Origin: true, CPUs: 1}, {ID: 7, Local: true, CPUs: 1}}, []int{7, 0}},
	{"no lines", "", universe, nil},
}

func TestSchedule(t *testing.T) {
	for _, tt := range scheduleTests {
		lines, err := Parse(strings.NewReader(tt.schema), "app")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		procs, err := Schedule(lines, tt.nodes)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []int
		for i, p := range procs {
			if p.Rank != i {
				t.Errorf("%s: rank %d at position %d", tt.name, p.Rank, i)
			}
			if !pointsInto(p.Line, lines) {
				t.Errorf("%s: rank %d does not point into the lines", tt.name, i)
			}
			got = append(got, p.Node)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Schedule = %v; want %v", tt.name, got, tt.want)
		}
	}
}

func TestScheduleLines(t *testing.T) {
	lines, err := Parse(strings.NewReader("n0 -np 2 a\nc0 b\n"), "app")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := Schedule(lines, universe)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"a", "a", "b"} {
		if procs[i].Line.Program != want {
			t.Errorf("rank %d runs %s; want %s", i, procs[i].Line.Program, want)
		}
	}
	if procs[0].Line != &lines[0] || procs[2].Line != &lines[1] {
		t.Errorf("Proc.Line does not point at the caller's lines")
	}
}

func TestScheduleErrors(t *testing.T) {
	big := []nodespec.Node{{ID: 0, CPUs: MaxProcs, Schedulable: true, Local: true}}
	tests := []struct {
		name  string
		lines []Line
		nodes []nodespec.Node
		want  string
		is    error
	}{
		{"unknown node", []Line{{Where: where(nodes(7)), Program: "p"}}, universe, "n7: no such node in the universe", nodespec.ErrBadNode},
		{"removed node", []Line{{Where: where(nodes(2)), Program: "p", LineNo: 3}}, universe, "line 3: n2: no such node in the universe", nodespec.ErrBadNode},
		{"unknown CPU", []Line{{Where: where(cpus(6)), Program: "p"}}, universe, "c6: no such CPU in the universe", nodespec.ErrBadNode},
		{"N with nothing schedulable", []Line{{Where: where(allNodes), Program: "p"}}, []nodespec.Node{{ID: 0, CPUs: 1, Local: true}}, "invalid node: no schedulable node to run p on", nodespec.ErrBadNode},
		{"-np with nothing schedulable", []Line{{NP: 2, Program: "p", LineNo: 4}}, []nodespec.Node{{ID: 0, CPUs: 1, Local: true}}, "line 4: invalid node: no schedulable node to run p on", nodespec.ErrBadNode},
		{"no local node", []Line{{Program: "p"}}, []nodespec.Node{{ID: 0, CPUs: 1, Schedulable: true}}, "invalid node: the universe has no local node", nodespec.ErrBadNode},
		{"empty universe", []Line{{NP: 1, Program: "p"}}, nil, "invalid node: no schedulable node to run p on", nodespec.ErrBadNode},
		{"negative -np", []Line{{NP: -1, Program: "p"}}, universe, "syntax error in application schema: -np -1", ErrSyntax},
		{"-np too large", []Line{{NP: MaxProcs + 1, Program: "p"}}, universe, "too many processes: more than 1048576 processes", ErrTooMany},
		{"too many in all", []Line{{NP: MaxProcs, Program: "p"}, {Program: "q", LineNo: 2}}, universe, "line 2: too many processes: more than 1048576 processes", ErrTooMany},
		{"C too large with earlier lines", []Line{{Program: "p"}, {Where: where(allCPUs), Program: "q"}}, big, "too many processes: more than 1048576 processes", ErrTooMany},
		{"bad hand-built spec", []Line{{Where: where(nodespec.Spec{}), Program: "p"}}, universe, "bad node or CPU specification: Kind(0)", nodespec.ErrBadSpec},
	}
	for _, tt := range tests {
		procs, err := Schedule(tt.lines, tt.nodes)
		if err == nil || err.Error() != tt.want || !errors.Is(err, tt.is) || procs != nil {
			t.Errorf("%s: Schedule = %d procs, %v; want error %q wrapping %v", tt.name, len(procs), err, tt.want, tt.is)
		}
	}
	// The launcher names the bad node from the *nodespec.NodeError.
	_, err := Schedule([]Line{{Where: where(cpus(9)), Program: "p", LineNo: 1}}, universe)
	var ne *nodespec.NodeError
	if !errors.As(err, &ne) || ne.ID != 9 || !ne.CPU {
		t.Errorf("NodeError not reachable: %v", err)
	}
	// Exactly MaxProcs is allowed.
	procs, err := Schedule([]Line{{Program: "p"}, {NP: MaxProcs - 1, Program: "q"}}, big)
	if err != nil || len(procs) != MaxProcs || procs[MaxProcs-1].Rank != MaxProcs-1 {
		t.Errorf("MaxProcs processes: %d, %v", len(procs), err)
	}
}

var stringTests = []struct {
	line Line
	want string
}{
	{Line{Program: "p"}, "p"},
	{Line{Where: where(nodes(0, 1, 2, 5), allNodes), NP: 2, Source: "n0x1", Wd: "/tmp", Export: strs("A", "B=1,2"), Program: "./hello", Args: strs("-np", "x y", "")},
		`n0-2,5 N -np 2 -s n0x1 -wd /tmp -x A -x B=1\,2 ./hello -np "x y" ""`},
	{Line{Program: "-weird"}, "-- -weird"},
	{Line{Program: "n0"}, "-- n0"},
	{Line{Program: "node1"}, "node1"},
	{Line{Program: "a#b", Args: strs(`q"uo'te`, `back\slash`, "tab\there")}, `"a#b" "q\"uo'te" back\slash "tab	here"`},
	{Line{Export: strs(`A=x\`, `B=p\,q`), Program: "p"}, `-x A=x\ -x "B=p\\\\,q" p`},
	{Line{Program: "p", LineNo: 9}, "p"},
}

func TestLineString(t *testing.T) {
	for _, tt := range stringTests {
		got := tt.line.String()
		if got != tt.want {
			t.Errorf("%#v.String() =\n%s\nwant\n%s", tt.line, got, tt.want)
		}
		back, err := Parse(strings.NewReader(got), "s")
		want := tt.line
		want.LineNo = 1
		if err != nil || len(back) != 1 || !reflect.DeepEqual(back[0], want) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", got, back, err, want)
		}
	}
}

// FuzzParseSchema checks that Parse never panics, that what it returns
// keeps its invariants and limits, that writing the lines back out with
// Line.String gives the same lines, and that Schedule stays bounded.
func FuzzParseSchema(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range parseErrors {
		if len(tt.in) < 1000 {
			f.Add(tt.in)
		}
	}
	for _, tt := range scheduleTests {
		f.Add(tt.schema)
	}
	for _, tt := range splitTests {
		f.Add(tt.in)
	}
	for _, tt := range parseLineTests {
		f.Add(strings.Join(tt.in, " "))
	}
	for _, tt := range stringTests {
		f.Add(tt.line.String())
	}
	for _, tt := range splitExportTests {
		f.Add("-x " + tt.in + " p")
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines, err := Parse(strings.NewReader(in), "f")
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, ErrSyntax) || !errors.As(err, &se) || se.File != "f" || se.Line < 1 || se.Line > strings.Count(in, "\n")+1 {
				t.Fatalf("Parse(%q): bad error %#v", in, err)
			}
			if !strings.HasPrefix(err.Error(), "f:") || len(err.Error()) > 400 {
				t.Fatalf("Parse(%q): error text %q", in, err)
			}
			return
		}
		if len(lines) > MaxLines {
			t.Fatalf("%d lines", len(lines))
		}
		var text strings.Builder
		roundTrip := true
		for i, l := range lines {
			if l.Program == "" || l.LineNo < 1 || (i > 0 && l.LineNo <= lines[i-1].LineNo) || l.NP < 0 || l.NP > MaxProcs {
				t.Fatalf("Parse(%q): bad line %#v", in, l)
			}
			for _, s := range l.Where {
				if back, err := nodespec.Parse(s.String()); err != nil || !reflect.DeepEqual(back, s) {
					t.Fatalf("Parse(%q): where %#v", in, s)
				}
			}
			if _, err := SplitExport(strings.Join(escapeCommas(l.Export), ",")); len(l.Export) > 0 && err != nil {
				t.Fatalf("Parse(%q): exports %q: %v", in, l.Export, err)
			}
			s := l.String()
			if strings.Contains(s, "\n") {
				t.Fatalf("Parse(%q): String %q is not one line", in, s)
			}
			roundTrip = roundTrip && len(s) <= MaxLine
			text.WriteString(s + "\n")
		}
		if roundTrip {
			back, err := Parse(strings.NewReader(text.String()), "f")
			if err != nil || len(back) != len(lines) {
				t.Fatalf("Parse(%q) then String:\n%s\nre-Parse: %d lines, %v", in, text.String(), len(back), err)
			}
			for i := range back {
				want := lines[i]
				want.LineNo = i + 1
				if !reflect.DeepEqual(back[i], want) {
					t.Fatalf("re-Parse of %q:\n got %#v\nwant %#v", text.String(), back[i], want)
				}
			}
		}
		universes := [][]nodespec.Node{universe, twoNodes, nil}
		requested := 0
		for _, l := range lines {
			requested += l.NP
		}
		if requested > 1<<12 {
			// Big jobs are slow to build; one universe is enough to
			// check their bound without starving the fuzzer.
			universes = universes[:1]
		}
		for _, u := range universes {
			procs, err := Schedule(lines, u)
			if err != nil {
				if !errors.Is(err, nodespec.ErrBadNode) && !errors.Is(err, nodespec.ErrBadSpec) && !errors.Is(err, ErrTooMany) {
					t.Fatalf("Schedule(%q): unexpected error %v", in, err)
				}
				if procs != nil {
					t.Fatalf("Schedule(%q) returned processes with its error", in)
				}
				continue
			}
			if len(procs) > MaxProcs || len(procs) < len(lines) {
				t.Fatalf("Schedule(%q): %d processes for %d lines", in, len(procs), len(lines))
			}
			for i, p := range procs {
				if p.Rank != i || p.Line == nil {
					t.Fatalf("Schedule(%q): bad process %d: %#v", in, i, p)
				}
				if p.Line.NP > 0 && len(p.Line.Where) == 0 && !schedulable(u, p.Node) {
					t.Fatalf("Schedule(%q): -np placed rank %d on unschedulable n%d", in, i, p.Node)
				}
			}
		}
	})
}

func escapeCommas(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = strings.ReplaceAll(it, ",", `\,`)
	}
	return out
}

func schedulable(nodes []nodespec.Node, id int) bool {
	for _, n := range nodes {
		if n.ID == id {
			return n.Schedulable
		}
	}
	return false
}

func pointsInto(l *Line, lines []Line) bool {
	for i := range lines {
		if l == &lines[i] {
			return true
		}
	}
	return false
}
