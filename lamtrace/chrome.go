package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// The Chrome/Perfetto trace event format (JSON object form): "X" events
// are complete slices, "s"/"f" a flow (an arrow) from the slice around
// the "s" to the slice around the "f", "M" names processes and threads.
// Times are in microseconds. Every rank is a thread of one process (the
// job), so the viewer shows one row per rank.

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

type chromeTrace struct {
	TraceEvents     []chromeEvent  `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData,omitempty"`
}

func us(ns int64) float64 { return float64(ns) / 1000 }

// WriteChrome writes t as a Chrome/Perfetto JSON trace.
func WriteChrome(w io.Writer, t *Timeline) error {
	ct := chromeTrace{DisplayTimeUnit: "ns", OtherData: map[string]any{
		"job": t.Job, "origin_unix_ns": t.Origin, "generator": "lamtrace (LAM/Go)"}}
	ev := func(e chromeEvent) { ct.TraceEvents = append(ct.TraceEvents, e) }
	ev(chromeEvent{Name: "process_name", Ph: "M", Args: map[string]any{"name": "MPI job " + t.Job}})
	for _, r := range t.Rows {
		ev(chromeEvent{Name: "thread_name", Ph: "M", TID: r.Rank, Args: map[string]any{"name": r.Name}})
		ev(chromeEvent{Name: "thread_sort_index", Ph: "M", TID: r.Rank, Args: map[string]any{"sort_index": r.Rank}})
	}
	for _, s := range t.Slices {
		d := us(s.End - s.Start)
		args := map[string]any{}
		if s.Peer >= 0 {
			args["peer"] = s.Peer
		}
		if s.Tag >= 0 {
			args["tag"] = s.Tag
		}
		if s.Comm != "" {
			args["comm"] = s.Comm
		}
		if s.Count > 0 {
			args["count"] = s.Count
		}
		ev(chromeEvent{Name: s.Func, Cat: "mpi", Ph: "X", Ts: us(s.Start), Dur: &d, TID: s.Rank, Args: args})
	}
	for _, f := range t.Flows {
		name := fmt.Sprintf("message tag %d", f.Tag)
		ev(chromeEvent{Name: name, Cat: "message", Ph: "s", Ts: us(f.SendStart), TID: f.From, ID: f.ID})
		ev(chromeEvent{Name: name, Cat: "message", Ph: "f", BP: "e", Ts: us(f.RecvEnd), TID: f.To, ID: f.ID})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(ct)
}
