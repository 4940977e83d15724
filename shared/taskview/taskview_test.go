package taskview

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		nodes        int
		pids, ranks  []int
		bad, badProc bool
	}{
		{args: nil},
		{args: []string{"n0-2", "h"}, nodes: 2},
		{args: []string{"p303", "%1,2", "%4-5"}, pids: []int{303}, ranks: []int{1, 2, 4, 5}},
		{args: []string{"N", "p0x10"}, nodes: 1, pids: []int{16}},
		{args: []string{"pfoo"}, bad: true},
		{args: []string{"p1"}, pids: []int{1}},
		{args: []string{"%"}, bad: true, badProc: true},
		{args: []string{"%3-1"}, bad: true, badProc: true},
		{args: []string{"%0-99999999"}, bad: true, badProc: true},
		{args: []string{"bogus"}, bad: true},
	} {
		s, err := Parse(tc.args)
		if (err != nil) != tc.bad {
			t.Errorf("Parse(%q) error %v, want error %v", tc.args, err, tc.bad)
			continue
		}
		if tc.badProc && !errors.Is(err, ErrBadProcess) {
			t.Errorf("Parse(%q) = %v, not ErrBadProcess", tc.args, err)
		}
		if tc.bad {
			continue
		}
		if len(s.Nodes) != tc.nodes || !reflect.DeepEqual(s.PIDs, tc.pids) || !reflect.DeepEqual(s.Ranks, tc.ranks) {
			t.Errorf("Parse(%q) = %+v", tc.args, s)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"n0", "p1,2", "%0-3", "N", "c1", "%", "p0x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		s, err := Parse([]string{arg})
		if err == nil && len(s.PIDs)+len(s.Ranks) > maxList {
			t.Fatalf("%q expanded to %d processes", arg, len(s.PIDs)+len(s.Ranks))
		}
	})
}

// sample is a job of 4 ranks on node 0: blocked in Recv, in Barrier, in
// Bcast from root 0, running; and one finalized and one silent process.
func sample() []Node {
	st := func(rank int32, state uint8, c jobwire.Call, pending ...jobwire.Pending) *jobwire.Status {
		return &jobwire.Status{Rank: rank, Size: 4, PID: 100 + rank, Program: "ring", State: state, Call: c, Pending: pending}
	}
	none := jobwire.Call{Peer: -2, PeerW: -1, Tag: -2}
	return []Node{{ID: 0, Procs: []Proc{
		{Node: 0, Info: wire.InspectedProc{PID: 100, Name: "ring", Rank: 0}, Status: st(0, jobwire.StateBlocked,
			jobwire.Call{Func: "Recv", Comm: "WORLD", Peer: 1, PeerW: 1, Tag: 201, Count: 4, Datatype: "INT"})},
		{Node: 0, Info: wire.InspectedProc{PID: 101, Name: "ring", Rank: 1}, Status: st(1, jobwire.StateBlocked,
			jobwire.Call{Func: "Barrier", Comm: "WORLD", Peer: -2, PeerW: -1, Tag: -2},
			jobwire.Pending{Comm: "WORLD", Source: 2, From: 2, Tag: 77, Bytes: 8},
			jobwire.Pending{Comm: "WORLD", Source: 3, From: 3, Tag: 1, Bytes: 0, Coll: true})},
		{Node: 0, Info: wire.InspectedProc{PID: 102, Name: "ring", Rank: 2}, Status: st(2, jobwire.StateBlocked,
			jobwire.Call{Func: "Recv", Comm: "5", Peer: -1, PeerW: -1, Tag: -1, Count: 1, Datatype: "DOUBLE"})},
		{Node: 0, Info: wire.InspectedProc{PID: 103, Name: "ring", Rank: 3}, Status: st(3, jobwire.StateRunning, none)},
		{Node: 0, Info: wire.InspectedProc{PID: 104, Name: "ring", Rank: 4, State: wire.ProcFinalized}},
		{Node: 0, Info: wire.InspectedProc{PID: 105, Name: "x", Rank: -1, State: wire.ProcSilent}},
	}, Queue: []wire.QueuedMsg{{Seq: 1, From: 1, Event: -101, Type: 16, Len: 300, Head: []byte{1, 2, 3}},
		{Seq: 2, From: 0, Event: jobwire.EventTrace, Type: jobwire.TypeTrace, Len: 50}}}}
}

func TestPrintTasks(t *testing.T) {
	var b strings.Builder
	PrintTasks(&b, sample(), TaskOptions{})
	want := `TASK (G/L)           FUNCTION      PEER|ROOT  TAG    COMM   COUNT   DATATYPE
0/0 ring             Recv          1/1        201    WORLD  4       INT
1/1 ring             Barrier                         WORLD          
2 ring               Recv          ANY        ANY    5      1       DOUBLE
3 ring               <running>
4 ring               <finalized>
? x                  <no answer>
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	PrintTasks(&b, sample(), TaskOptions{Type: true})
	if want := "TASK (G/L):\t0 ring\nDATATYPE:\tINT\n\nTASK (G/L):\t2 ring\nDATATYPE:\tDOUBLE\n\n"; b.String() != want {
		t.Errorf("-d: got %q", b.String())
	}
	b.Reset()
	PrintTasks(&b, sample(), TaskOptions{GPS: true})
	if !strings.Contains(b.String(), "n0,p100 ring         Recv          1 ") {
		t.Errorf("-gps: got\n%s", b.String())
	}
}

func TestPrintMsgs(t *testing.T) {
	var b strings.Builder
	n := PrintMsgs(&b, sample(), MsgOptions{})
	want := `SRC (G/L)      DEST (G/L)     TAG     COMM     COUNT    DATATYPE    MSG
2/2            1              77      WORLD    8        BYTE        n0,#1
n1             1              16      RPI      300      BYTE        n0,#3
n0             lamtrace       128     TRACE    50       BYTE        n0,#4
`
	if n != 3 || b.String() != want {
		t.Errorf("got %d\n%s\nwant\n%s", n, b.String(), want)
	}
	b.Reset()
	PrintMsgs(&b, sample(), MsgOptions{All: true, Limit: 1})
	if !strings.HasSuffix(b.String(), "...and more buffered messages...\n") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("-a -B 1: got\n%s", b.String())
	}
	b.Reset()
	PrintMsgs(&b, sample(), MsgOptions{Body: true, Seq: 3})
	if want := "MESSAGE: 1 #3\n0000000 01 02 03\n...and more message data...\n\n"; b.String() != want {
		t.Errorf("-m 3: got %q, want %q", b.String(), want)
	}
	b.Reset()
	PrintMsgs(&b, sample(), MsgOptions{Comm: true, Seq: 1})
	if want := "MESSAGE:\t1 #1\nCOMM:\tWORLD\n\n"; b.String() != want {
		t.Errorf("-c 1: got %q", b.String())
	}
}

func TestSelectionKeep(t *testing.T) {
	p := &Proc{Info: wire.InspectedProc{PID: 7, Rank: 2}}
	for _, tc := range []struct {
		s    Selection
		want bool
	}{
		{Selection{}, true}, {Selection{PIDs: []int{7}}, true}, {Selection{PIDs: []int{8}}, false},
		{Selection{Ranks: []int{2}}, true}, {Selection{Ranks: []int{3}, Nodes: []nodespec.Spec{{Kind: nodespec.AllNodes}}}, false},
	} {
		if got := tc.s.keep(p); got != tc.want {
			t.Errorf("%+v keep = %v", tc.s, got)
		}
	}
}
