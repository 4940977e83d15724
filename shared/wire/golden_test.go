package wire

import (
	"bytes"
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
		&Inspect{Node: LocalNode, Msgs: false, MaxMsgs: 0},
		&Inspection{Node: MaxNodes - 1, Procs: []InspectedProc{{PID: 1 << 30, Name: "", Rank: -1, Job: "", State: ProcStarting, Status: nil}}, Queue: nil, More: false},
		&Hello{Version: Version, Role: RoleStream, PID: 1, Name: "ring"},
		&Attach{Event: -1 << 31, Type: 0},
		&Post{Node: LocalNode, Event: 1<<31 - 1, Type: -1, Data: nil},
		&Credit{Bytes: MaxWindow},
	)
}

// TestGolden checks that every message encodes to the bytes saved in
// testdata/golden.txt (go test -update rewrites it), and decodes.
func TestGolden(t *testing.T) {
	var got strings.Builder
	for i, m := range goldenSamples() {
		frame := AppendFrame(nil, uint64(i), 0, m)
		fmt.Fprintf(&got, "%v %x\n", m.Kind(), frame)
		if _, err := ReadFrame(bytes.NewReader(frame)); err != nil {
			t.Errorf("sample %d: %v", i, err)
		}
	}
	checkGolden(t, got.String())
}

func checkGolden(t *testing.T, got string) {
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			t.Errorf("sample %d encodes as\n%s\nwant\n%s", i, g[i], w[i])
		}
	}
	if len(g) != len(w) {
		t.Errorf("%d golden lines, %d samples", len(w)-1, len(g)-1)
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
