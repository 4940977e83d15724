package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/taskview"
)

func ev(t int64, begin bool, fn string, peer, tag int32) jobwire.TraceEvent {
	return jobwire.TraceEvent{T: 1000 + t, Begin: begin, Func: fn, Peer: peer, Tag: tag, Comm: "WORLD"}
}

// A 2-rank exchange: rank 0 sends twice (tags 1, 1) then a Barrier; rank 1
// receives twice from 0 and once from any source.
func sample() []*jobwire.Trace {
	return []*jobwire.Trace{
		{Job: "0:9", Rank: 1, Size: 2, Node: 0, PID: 11, Program: "p", Events: []jobwire.TraceEvent{
			ev(0, true, "Recv", 0, 1), ev(30, false, "Recv", -1, 0),
			ev(40, true, "Recv", 0, 1), ev(60, false, "Recv", -1, 0),
			ev(70, true, "Recv", -1, -1), ev(80, false, "Recv", -1, 0),
		}},
		{Job: "0:9", Rank: 0, Size: 2, Node: 0, PID: 10, Program: "p", Events: []jobwire.TraceEvent{
			ev(10, true, "Send", 1, 1), ev(20, false, "Send", -1, 0),
			ev(35, true, "Send", 1, 1), ev(36, false, "Send", -1, 0),
			ev(50, true, "Barrier", -1, -1), ev(55, true, "Send", 1, 9), ev(56, false, "Send", -1, 0), ev(90, false, "Barrier", -1, 0),
		}},
	}
}

func TestBuild(t *testing.T) {
	tl, err := Build(sample())
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Rows) != 2 || tl.Rows[0].Rank != 0 || !strings.Contains(tl.Rows[1].Name, "rank 1 (n0, pid 11, p)") {
		t.Errorf("rows %+v", tl.Rows)
	}
	if tl.Origin != 1000 || tl.End() != 90 {
		t.Errorf("origin %d end %d", tl.Origin, tl.End())
	}
	// Two arrows for the two tag-1 messages, in order; the tag-9 send
	// has no receive with a specific source.
	want := []Flow{{ID: 1, From: 0, To: 1, SendStart: 10, RecvEnd: 30, Tag: 1, Comm: "WORLD"}, {ID: 2, From: 0, To: 1, SendStart: 35, RecvEnd: 60, Tag: 1, Comm: "WORLD"}}
	if len(tl.Flows) != 2 || tl.Flows[0] != want[0] || tl.Flows[1] != want[1] {
		t.Errorf("flows %+v", tl.Flows)
	}
	if tl.UnmatchedSends != 1 || tl.UnmatchedRecvs != 0 {
		t.Errorf("unmatched %d %d", tl.UnmatchedSends, tl.UnmatchedRecvs)
	}
	// The send inside the barrier nests in it.
	for _, s := range tl.Slices {
		if s.Func == "Send" && s.Start == 55 && s.Depth != 1 {
			t.Errorf("nested send depth %d", s.Depth)
		}
	}
	if _, err := Build(nil); err == nil {
		t.Error("Build(nil) succeeded")
	}
}

func TestWriteChrome(t *testing.T) {
	tl, _ := Build(sample())
	var b bytes.Buffer
	if err := WriteChrome(&b, tl); err != nil {
		t.Fatal(err)
	}
	var out struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range out.TraceEvents {
		count[e["ph"].(string)]++
	}
	if count["X"] != 7 || count["s"] != 2 || count["f"] != 2 || count["M"] != 5 {
		t.Errorf("events by phase %v", count)
	}
}

func TestWriteSVG(t *testing.T) {
	tl, _ := Build(sample())
	var b bytes.Buffer
	if err := WriteSVG(&b, tl); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&b)
	rects, lines := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "rect":
				rects++
			case "line":
				lines++
			}
		}
	}
	if rects < 7 || lines < 2 {
		t.Errorf("%d boxes, %d lines", rects, lines)
	}
}

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ span, want float64 }{{10.4e6, 2e6}, {1000, 200}, {7, 1}, {0, 1}} {
		if got := niceStep(tc.span, 8); got != tc.want {
			t.Errorf("niceStep(%g) = %g, want %g", tc.span, got, tc.want)
		}
	}
	if timeLabel(2e6) != "2ms" || timeLabel(1500) != "1.5µs" || timeLabel(0) != "0" {
		t.Errorf("labels %q %q", timeLabel(2e6), timeLabel(1500))
	}
}

func TestPick(t *testing.T) {
	a := sample()
	old := &jobwire.Trace{Job: "0:1", Rank: 0, Size: 1, Node: 0, PID: 5, Program: "old", Events: []jobwire.TraceEvent{ev(-500, true, "Recv", -1, -1)}}
	raw := [][]byte{a[0].Encode(), old.Encode(), a[1].Encode(), []byte("junk")}
	got, rest := pick(raw, taskview.Selection{})
	if len(got) != 2 || got[0].Job != "0:9" || len(rest) != 1 {
		t.Errorf("pick: %d traces, %d left", len(got), len(rest))
	}
}
