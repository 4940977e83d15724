package jobwire

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden checks that every message encodes to the bytes saved in
// testdata/golden.txt (go test -update rewrites it), and decodes.
func TestGolden(t *testing.T) {
	decInit := func(b []byte) error { _, err := DecodeInit(b); return err }
	decTable := func(b []byte) error { _, err := DecodeTable(b); return err }
	decAbort := func(b []byte) error { _, err := DecodeAbort(b); return err }
	decRank := func(b []byte) error { _, err := DecodeRank(b); return err }
	decCkpt := func(b []byte) error { _, err := DecodeCheckpoint(b); return err }
	decReply := func(b []byte) error { _, err := DecodeCheckpointReply(b); return err }
	decCRRank := func(b []byte) error { _, err := DecodeCRRank(b); return err }
	decCRDone := func(b []byte) error { _, err := DecodeCRDone(b); return err }
	samples := []struct {
		name   string
		b      []byte
		decode func([]byte) error
	}{
		{"init", (&Init{Rank: 3, PID: 77, Node: 1, RPI: "tcp 0.1", Addr: "10.0.0.1:5000"}).Encode(), decInit},
		{"init", (&Init{Rank: MaxRanks - 1, PID: 1 << 30, Node: 1<<16 - 1}).Encode(), decInit},
		{"table", (&Table{RPI: "tcp 0.1", Secret: []byte("0123456789abcdef"), Procs: []Proc{{Node: 0, PID: 10, Addr: "a:1"}, {Node: 1, PID: 11, Addr: "b:2"}}}).Encode(), decTable},
		{"table", (&Table{RPI: "", Secret: nil, Procs: []Proc{{Node: 65535, PID: 1, Addr: ""}}}).Encode(), decTable},
		{"abort", (&Abort{Rank: 2, Code: 5, Msg: "bye", Dead: -1}).Encode(), decAbort},
		{"abort", (&Abort{Rank: 0, Code: -1 << 31, Msg: "", Dead: MaxRanks - 1}).Encode(), decAbort},
		{"rank", EncodeRank(9), decRank},
		{"rank", EncodeRank(0), decRank},
		{"init", (&Init{Rank: 1, PID: 5, RPI: "lamd 7.1", NoCR: "rpi lamd cannot be checkpointed"}).Encode(), decInit},
		{"init", (&Init{Rank: 2, PID: 9, RPI: "usysv 7.1", Where: Where{Machine: "2b1e3f0c-4f5e-4d2a-9c1b-7e6f5d4c3b2a", CPUs: []byte{0x0f}}}).Encode(), decInit},
		{"table", (&Table{RPI: "usysv 7.1", Procs: []Proc{{Node: 0, PID: 3, Where: Where{Machine: "m", CPUs: []byte{1}}}, {Node: 1, PID: 4, Where: Where{Machine: "m", CPUs: []byte{2}}}}}).Encode(), decTable},
		{"checkpoint", (&Checkpoint{ReplyEvent: -99, ReplyType: 512, Deadline: 1 << 40, Stop: true}).Encode(), decCkpt},
		{"checkpoint-reply", (&CheckpointReply{Seq: 3, Dir: "/home/u/ckpt/3", Err: ""}).Encode(), decReply},
		{"checkpoint-reply", (&CheckpointReply{Err: "rank 2: rpi lamd cannot be checkpointed"}).Encode(), decReply},
		{"cr-rank", (&CRRank{Seq: 1, Dir: "/tmp/x.partial", Deadline: -1}).Encode(), decCRRank},
		{"cr-done", (&CRDone{Rank: 4, Seq: 2, Bytes: 1 << 33, Err: "disk full"}).Encode(), decCRDone},
		{"cr-done", (&CRDone{Rank: 1, Seq: 3, Bytes: 512, Drain: DrainCounts{Polls: 300, Yields: 240, Sleeps: 45}}).Encode(), decCRDone},
	}
	var got strings.Builder
	for i, s := range samples {
		fmt.Fprintf(&got, "%s %x\n", s.name, s.b)
		if err := s.decode(s.b); err != nil {
			t.Errorf("sample %d: %v", i, err)
		}
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(path); err != nil || got.String() != string(want) {
		t.Errorf("encodings differ from %s (%v):\n%s\nwant\n%s", path, err, got.String(), want)
	}
}
