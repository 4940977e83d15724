package jobwire

import (
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := &Init{Rank: 3, PID: 77, Node: 1, RPI: "tcp 0.1", Addr: "10.0.0.1:5000"}
	out, err := DecodeInit(in.Encode())
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Errorf("Init: %+v %v", out, err)
	}
	tab := &Table{RPI: "tcp 0.1", Secret: []byte("0123456789abcdef"), Procs: []Proc{{0, 10, "a:1"}, {1, 11, "b:2"}}}
	got, err := DecodeTable(tab.Encode())
	if err != nil || !reflect.DeepEqual(tab, got) {
		t.Errorf("Table: %+v %v", got, err)
	}
	ab := &Abort{Rank: 2, Code: 5, Msg: "bye"}
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
	f.Add((&Table{RPI: "tcp", Procs: []Proc{{0, 1, "x"}}}).Encode())
	f.Add((&Init{Rank: 1, PID: 2, RPI: "tcp"}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeInit(b)
		DecodeTable(b)
		DecodeAbort(b)
		DecodeRank(b)
	})
}
