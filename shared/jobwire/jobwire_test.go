package jobwire

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/wire"
)

func TestRoundTrip(t *testing.T) {
	in := &Init{Rank: 3, PID: 77, Node: 1, RPI: "tcp 0.1", Addr: "10.0.0.1:5000"}
	out, err := DecodeInit(in.Encode())
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Errorf("Init: %+v %v", out, err)
	}
	tab := &Table{RPI: "tcp 0.1", Secret: []byte("0123456789abcdef"), Procs: []Proc{{Node: 0, PID: 10, Addr: "a:1"}, {Node: 1, PID: 11, Addr: "b:2", Where: Where{Machine: "m", CPUs: []byte{3}}}}}
	got, err := DecodeTable(tab.Encode())
	if err != nil || !reflect.DeepEqual(tab, got) {
		t.Errorf("Table: %+v %v", got, err)
	}
	ab := &Abort{Rank: 2, Code: 5, Msg: "bye", Dead: 1}
	if a, err := DecodeAbort(ab.Encode()); err != nil || *a != *ab {
		t.Errorf("Abort: %+v %v", a, err)
	}
	if r, err := DecodeRank(EncodeRank(9)); err != nil || r != 9 {
		t.Errorf("rank: %d %v", r, err)
	}
	j, err := ParseJobID("2:345")
	if err != nil || j != (JobID{2, 345}) || j.String() != "2:345" {
		t.Errorf("job id %v %v", j, err)
	}
	for _, bad := range []string{"", "1", "x:1", "1:0", "-1:5"} {
		if _, err := ParseJobID(bad); err == nil {
			t.Errorf("ParseJobID(%q) accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add((&Table{RPI: "tcp", Procs: []Proc{{Node: 0, PID: 1, Addr: "x"}}}).Encode())
	f.Add((&Init{Rank: 1, PID: 2, RPI: "tcp"}).Encode())
	f.Add((&Abort{Rank: 1, Code: 3, Msg: "x"}).Encode())
	f.Add(EncodeRank(4))
	f.Add((&CRRank{Seq: 1, Dir: "d"}).Encode())
	f.Add((&CRDone{Rank: 1, Seq: 1, Err: "x"}).Encode())
	f.Add((&Checkpoint{ReplyEvent: 1, Stop: true}).Encode())
	f.Add((&CheckpointReply{Seq: 1, Dir: "d"}).Encode())
	// Whatever decodes must encode back to the same bytes.
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := DecodeInit(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Init %+v does not round-trip", m)
		}
		if m, err := DecodeTable(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Table %+v does not round-trip", m)
		}
		if m, err := DecodeAbort(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Abort %+v does not round-trip", m)
		}
		if r, err := DecodeRank(b); err == nil && !bytes.Equal(EncodeRank(r), b) {
			t.Fatalf("rank %d does not round-trip", r)
		}
		if m, err := DecodeCheckpoint(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Checkpoint %+v does not round-trip", m)
		}
		if m, err := DecodeCheckpointReply(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("CheckpointReply %+v does not round-trip", m)
		}
		if m, err := DecodeCRRank(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("CRRank %+v does not round-trip", m)
		}
		if m, err := DecodeCRDone(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("CRDone %+v does not round-trip", m)
		}
	})
}

func TestMalformed(t *testing.T) {
	in := (&Init{Rank: 1, PID: 2, RPI: "tcp"}).Encode()
	tab := (&Table{RPI: "tcp", Procs: []Proc{{Node: 0, PID: 1, Addr: "x"}}}).Encode()
	patch := func(b []byte, off int, v ...byte) []byte { c := append([]byte(nil), b...); copy(c[off:], v); return c }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"rank range", func() error { _, err := DecodeInit((&Init{Rank: -1, PID: 1}).Encode()); return err }(), "rank -1 out of range"},
		{"pid range", func() error { _, err := DecodeInit((&Init{PID: 0}).Encode()); return err }(), "pid 0 out of range"},
		{"left over", func() error { _, err := DecodeInit(append(in, 0)); return err }(), "left over"},
		{"truncated", func() error { _, err := DecodeInit(in[:len(in)-1]); return err }(), "truncated"},
		{"cr empty dir", func() error { _, err := DecodeCRRank((&CRRank{Seq: 1}).Encode()); return err }(), "empty checkpoint directory"},
		{"cr seq", func() error { _, err := DecodeCRDone((&CRDone{Seq: 0}).Encode()); return err }(), "checkpoint number 0 out of range"},
		{"cr size", func() error { _, err := DecodeCRDone((&CRDone{Seq: 1, Bytes: -1}).Encode()); return err }(), "negative checkpoint size"},
		{"empty table", func() error { _, err := DecodeTable((&Table{RPI: "tcp"}).Encode()); return err }(), "empty table"},
		{"huge table", func() error { _, err := DecodeTable(patch(tab, 11, 0x10, 0, 0, 0)); return err }(), "exceed"},
		{"lying table", func() error { _, err := DecodeTable(patch(tab, 11, 0, 0, 1, 0)); return err }(), "do not fit"},
		{"long secret", func() error { _, err := DecodeTable((&Table{Secret: make([]byte, 257)}).Encode()); return err }(), "exceeds 256"},
		{"bad rank", func() error { _, err := DecodeRank(EncodeRank(MaxRanks)); return err }(), "out of range"},
		{"abort rank", func() error { _, err := DecodeAbort((&Abort{Rank: MaxRanks}).Encode()); return err }(), "out of range"},
		{"abort dead rank", func() error { _, err := DecodeAbort((&Abort{Dead: -2}).Encode()); return err }(), "dead rank -2 out of range"},
	}
	for _, tt := range tests {
		if tt.err == nil || !errors.Is(tt.err, wire.ErrMalformed) || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}

func TestCRRoundTrip(t *testing.T) {
	r := &CRRank{Seq: 7, Dir: "/c/7.partial", Deadline: 123, Stop: true}
	if got, err := DecodeCRRank(r.Encode()); err != nil || *got != *r {
		t.Errorf("CRRank: %+v %v", got, err)
	}
	d := &CRDone{Rank: 3, Seq: 7, Bytes: 4096, Drain: DrainCounts{Polls: 300, Yields: 240, Sleeps: 44}}
	if got, err := DecodeCRDone(d.Encode()); err != nil || *got != *d {
		t.Errorf("CRDone: %+v %v", got, err)
	}
	rep := &CheckpointReply{Seq: 7, Dir: "/c/7", Drain: DrainCounts{Polls: 1, Yields: 2, Sleeps: 3}}
	if got, err := DecodeCheckpointReply(rep.Encode()); err != nil || *got != *rep {
		t.Errorf("CheckpointReply: %+v %v", got, err)
	}
	sum := DrainCounts{Polls: 1<<32 - 2, Yields: 1}
	sum.Add(DrainCounts{Polls: 5, Yields: 2, Sleeps: 3})
	if sum != (DrainCounts{Polls: 1<<32 - 1, Yields: 3, Sleeps: 3}) {
		t.Errorf("DrainCounts.Add: %+v", sum)
	}
	if got := RankFile("/c/7", 12); got != "/c/7/rank-12.ckpt" {
		t.Errorf("RankFile = %q", got)
	}
}
