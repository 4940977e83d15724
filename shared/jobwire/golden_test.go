package jobwire

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden checks that every message encodes to the bytes saved in
// testdata/golden.txt (go test -update rewrites it), and that those bytes
// decode.
func TestGolden(t *testing.T) {
	type sample struct {
		name   string
		b      []byte
		decode func([]byte) error
	}
	decInit := func(b []byte) error { _, err := DecodeInit(b); return err }
	decTable := func(b []byte) error { _, err := DecodeTable(b); return err }
	decAbort := func(b []byte) error { _, err := DecodeAbort(b); return err }
	decRank := func(b []byte) error { _, err := DecodeRank(b); return err }
	samples := []sample{
		{"init", (&Init{Rank: 3, PID: 77, Node: 1, RPI: "tcp 0.1", Addr: "10.0.0.1:5000"}).Encode(), decInit},
		{"init", (&Init{Rank: MaxRanks - 1, PID: 1 << 30, Node: 1<<16 - 1}).Encode(), decInit},
		{"table", (&Table{RPI: "tcp 0.1", Secret: []byte("0123456789abcdef"), Procs: []Proc{{0, 10, "a:1"}, {1, 11, "b:2"}}}).Encode(), decTable},
		{"table", (&Table{RPI: "", Secret: nil, Procs: []Proc{{Node: 65535, PID: 1, Addr: ""}}}).Encode(), decTable},
		{"abort", (&Abort{Rank: 2, Code: 5, Msg: "bye"}).Encode(), decAbort},
		{"abort", (&Abort{Rank: 0, Code: -1 << 31, Msg: ""}).Encode(), decAbort},
		{"rank", EncodeRank(9), decRank},
		{"rank", EncodeRank(0), decRank},
	}
	path := filepath.Join("testdata", "golden.txt")
	var lines []string
	for _, s := range samples {
		lines = append(lines, fmt.Sprintf("%s %x", s.name, s.b))
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		want = append(want, sc.Text())
	}
	if len(want) != len(lines) {
		t.Fatalf("%d golden messages, %d samples", len(want), len(lines))
	}
	for i, s := range samples {
		if lines[i] != want[i] {
			t.Errorf("sample %d encodes as\n%s\nwant\n%s", i, lines[i], want[i])
			continue
		}
		_, h, _ := strings.Cut(want[i], " ")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.decode(b); err != nil {
			t.Errorf("golden message %d: %v", i, err)
		}
	}
}
