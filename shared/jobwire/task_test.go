package jobwire

import (
	"bytes"
	"reflect"
	"testing"
)

func sampleStatus() *Status {
	return &Status{Rank: 1, Size: 3, PID: 99, Node: 0, Program: "ring", State: StateBlocked,
		Call:    Call{Func: "Recv", Comm: "WORLD", Peer: -1, PeerW: -1, Tag: 201, Count: 4, Datatype: "INT"},
		Pending: []Pending{{Comm: "WORLD", Source: 2, From: 2, Tag: 7, Bytes: 1 << 40, Sync: true}}, More: true}
}

func TestTaskRoundTrip(t *testing.T) {
	q := &Query{ReplyEvent: 1 << 30, ReplyType: TypeStatus, Deadline: -5, Msgs: true, MaxMsgs: 10}
	if got, err := DecodeQuery(q.Encode()); err != nil || *got != *q {
		t.Errorf("Query: %+v %v", got, err)
	}
	s := sampleStatus()
	if got, err := DecodeStatus(s.Encode()); err != nil || !reflect.DeepEqual(got, s) {
		t.Errorf("Status: %+v %v", got, err)
	}
	bad := *s
	bad.State = 9
	if _, err := DecodeStatus(bad.Encode()); err == nil {
		t.Error("a Status with state 9 decoded")
	}
	bad = *s
	bad.Pending = []Pending{{Bytes: -1}}
	if _, err := DecodeStatus(bad.Encode()); err == nil {
		t.Error("a negative message length decoded")
	}
}

func FuzzDecodeTask(f *testing.F) {
	f.Add(sampleStatus().Encode())
	f.Add((&Query{ReplyEvent: 3, MaxMsgs: 1}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := DecodeStatus(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Status %+v does not round-trip", m)
		}
		if m, err := DecodeQuery(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Query %+v does not round-trip", m)
		}
	})
}

func sampleTrace() *Trace {
	return &Trace{Job: "0:77", Rank: 2, Size: 4, Node: 1, PID: 99, Program: "ring", Dropped: 3,
		Events: []TraceEvent{{T: 1 << 60, Begin: true, Func: "Send", Peer: 3, Tag: 201, Comm: "WORLD", Count: 1}, {T: 1<<60 + 5, Func: "Send", Peer: -1}}}
}

func TestTraceRoundTrip(t *testing.T) {
	tr := sampleTrace()
	if got, err := DecodeTrace(tr.Encode()); err != nil || !reflect.DeepEqual(got, tr) {
		t.Errorf("Trace: %+v %v", got, err)
	}
	bad := *sampleTrace()
	bad.Events = []TraceEvent{{Peer: -5}}
	if _, err := DecodeTrace(bad.Encode()); err == nil {
		t.Error("a peer of -5 decoded")
	}
}

func FuzzDecodeTrace(f *testing.F) {
	f.Add(sampleTrace().Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := DecodeTrace(b); err == nil && !bytes.Equal(m.Encode(), b) {
			t.Fatalf("Trace %+v does not round-trip", m)
		}
	})
}
