package wire

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSamples is samples() and a few messages with every field set, so
// that each field's place and width on the wire is pinned.
func goldenSamples() []Message {
	full := Node{ID: MaxNodes - 1, Host: "host.example", Addr: "192.168.1.2", Link: "192.168.1.2:65535", CPUs: 1 << 24, Flags: NodeNoSchedule | NodeOrigin | NodeDead}
	return append(samples(),
		&Hello{Version: 0xfffe, Role: RoleRun, PID: -1, Name: "mpirun"},
		&Welcome{Version: 1, Node: 7, LamdPID: 1 << 30, Universe: "universe-id"},
		&Error{Code: 255, Msg: "ü"},
		&Nodes{Self: 0, Nodes: []Node{{ID: 0, CPUs: 1}, full}, HeartbeatMS: 1 << 30},
		&Echo{Node: 5, Data: bytes.Repeat([]byte{0xa5}, 300)},
		&HaltProgress{Node: 2, Host: "c", Acked: false, Err: "timed out"},
		&Spawn{Node: LocalNode, Job: "3:9", Argv: []string{"a", "", "c c"}, Env: nil, Dir: "", Flags: SpawnNoWait | SpawnStdin | SpawnTryDir | SpawnRemoveProgram},
		&Output{Stream: Stdout, Data: nil},
		&Exited{Status: 255, Signal: 64},
		&Signal{Node: 1, Job: "", PID: 1 << 30, Signal: 64},
		&Clean{Node: LocalNode, Phase: CleanMessages},
		&Send{Node: LocalNode, Event: -1 << 31, Type: 1<<31 - 1, Data: nil},
		&Recv{Event: -3, Type: -4, Try: false, Probe: true},
		&Msg{From: 0, Event: -77, Type: 0, Data: []byte{0}},
		&AddNode{Node: full},
		&RemoveNode{ID: 0, WaitMS: 0},
		&LinkHello{Version: 2, Universe: "", Node: 0},
		&BootHello{Version: 1, Node: 3, Link: "", CPUs: 1 << 24, PID: -5, Host: ""},
		&Universe{ID: "", Nodes: nil, HeartbeatMS: 0, Join: true},
		&Stdin{Data: nil, EOF: false},
		&FileGet{Node: LocalNode, Path: "/usr/bin/x"},
		&FilePut{Node: 0, Name: "a.out", Append: false, Data: bytes.Repeat([]byte{7}, 70)},
	)
}

// TestGolden checks that every message encodes to the bytes saved in
// testdata/golden.txt (go test -update rewrites it), and that those bytes
// decode back to the message.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.txt")
	var lines []string
	for i, m := range goldenSamples() {
		lines = append(lines, fmt.Sprintf("%v %x", m.Kind(), AppendFrame(nil, uint64(i), 0, m)))
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
		t.Fatalf("%d golden frames, %d samples", len(want), len(lines))
	}
	for i := range lines {
		if lines[i] != want[i] {
			t.Errorf("sample %d encodes as\n%s\nwant\n%s", i, lines[i], want[i])
			continue
		}
		_, h, _ := strings.Cut(want[i], " ")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFrame(bytes.NewReader(b)); err != nil {
			t.Errorf("golden frame %d: %v", i, err)
		}
	}
}

// BenchmarkSendMsg encodes a Send frame and decodes a Msg frame, the work
// of the lamd rpi's path per message.
func BenchmarkSendMsg(b *testing.B) {
	data := []byte{1}
	var buf []byte
	msg := AppendFrame(nil, 1, FlagReply, &Msg{From: 0, Event: 2, Type: 1, Data: data})
	r := bytes.NewReader(nil)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendFrame(buf[:0], 1, 0, &Send{Node: 0, Event: 2, Type: 1, Data: data})
		r.Reset(msg)
		if _, err := ReadFrame(r); err != nil {
			b.Fatal(err)
		}
	}
}
