package main

import (
	"fmt"
	"slices"
	"sort"

	"github.com/lamgo/lam/shared/jobwire"
)

// Slice is one MPI call of one rank: from its start to its end.
type Slice struct {
	Rank       int
	Func       string
	Start, End int64 // ns since the timeline's origin
	Peer       int32
	Tag        int32
	Comm       string
	Count      int32
	Depth      int // nesting level (0 outermost)
}

// Flow is a message: from the send that started it to the receive that
// took it.
type Flow struct {
	ID        int
	From, To  int // ranks
	SendStart int64
	RecvEnd   int64
	Tag       int32
	Comm      string
}

// Row is one rank of the timeline.
type Row struct {
	Rank    int
	Name    string // "rank 0 (n0, pid 123, ring)"
	Dropped int
}

// Timeline is a job's trace, ready to be written.
type Timeline struct {
	Job    string
	Origin int64 // wall clock of time 0, Unix ns
	Rows   []Row
	Slices []Slice
	Flows  []Flow
	// Unmatched counts sends and receives with a specific peer that found
	// no partner (the job ended mid-message, or records were dropped).
	UnmatchedSends, UnmatchedRecvs int
}

// Build makes the timeline of one job's traces: each rank's begin/end
// events become slices (nested calls nest), and each send is joined to
// the receive that took it. Messages from one sender to one receiver
// with one tag on one communicator are taken in the order they were sent
// (MPI's non-overtaking rule), so the k-th such send pairs with the k-th
// such receive. A receive from any source gives no arrow.
func Build(traces []*jobwire.Trace) (*Timeline, error) {
	if len(traces) == 0 {
		return nil, fmt.Errorf("no trace records")
	}
	t := &Timeline{Job: traces[0].Job, Origin: -1}
	for _, tr := range traces {
		for _, e := range tr.Events {
			if t.Origin < 0 || e.T < t.Origin {
				t.Origin = e.T
			}
		}
	}
	if t.Origin < 0 {
		t.Origin = 0
	}
	type key struct {
		from, to int32
		tag      int32
		comm     string
	}
	sends := map[key][]int{} // slice indices, in order
	recvs := map[key][]int{}
	sorted := slices.Clone(traces)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Rank < sorted[j].Rank })
	for _, tr := range sorted {
		rank := int(tr.Rank)
		t.Rows = append(t.Rows, Row{Rank: rank, Dropped: int(tr.Dropped),
			Name: fmt.Sprintf("rank %d (n%d, pid %d, %s)", tr.Rank, tr.Node, tr.PID, tr.Program)})
		var stack []int
		for _, e := range tr.Events {
			ts := e.T - t.Origin
			if e.Begin {
				stack = append(stack, len(t.Slices))
				t.Slices = append(t.Slices, Slice{Rank: rank, Func: e.Func, Start: ts, End: -1, Peer: e.Peer,
					Tag: e.Tag, Comm: e.Comm, Count: e.Count, Depth: len(stack) - 1})
				continue
			}
			// An end closes the innermost open call of its name.
			for i := len(stack) - 1; i >= 0; i-- {
				s := &t.Slices[stack[i]]
				if s.Func != e.Func {
					continue
				}
				s.End = ts
				idx := stack[i]
				stack = append(stack[:i], stack[i+1:]...)
				switch {
				case s.Peer < 0:
				case isSend(s.Func):
					k := key{int32(rank), s.Peer, s.Tag, s.Comm}
					sends[k] = append(sends[k], idx)
				case s.Func == "Recv":
					k := key{s.Peer, int32(rank), s.Tag, s.Comm}
					recvs[k] = append(recvs[k], idx)
				}
				break
			}
		}
		// Calls still open when the trace ended end with it.
		for _, i := range stack {
			s := &t.Slices[i]
			s.End = s.Start
			for _, e := range tr.Events {
				s.End = max(s.End, e.T-t.Origin)
			}
		}
	}
	keys := make([]key, 0, len(sends))
	for k := range sends {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to < b.to
		}
		if a.tag != b.tag {
			return a.tag < b.tag
		}
		return a.comm < b.comm
	})
	for _, k := range keys {
		ss, rs := sends[k], recvs[k]
		n := min(len(ss), len(rs))
		for i := range n {
			s, r := t.Slices[ss[i]], t.Slices[rs[i]]
			t.Flows = append(t.Flows, Flow{ID: len(t.Flows) + 1, From: s.Rank, To: r.Rank, SendStart: s.Start, RecvEnd: r.End, Tag: k.tag, Comm: k.comm})
		}
		t.UnmatchedSends += len(ss) - n
		delete(recvs, k)
		t.UnmatchedRecvs += len(rs) - n
	}
	for _, rs := range recvs {
		t.UnmatchedRecvs += len(rs)
	}
	return t, nil
}

func isSend(f string) bool { return f == "Send" || f == "Ssend" || f == "Rsend" || f == "Bsend" }

// End is the time of the last event.
func (t *Timeline) End() int64 {
	var end int64
	for _, s := range t.Slices {
		end = max(end, s.End)
	}
	return end
}
