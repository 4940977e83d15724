package integration

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	lamtraceOnce sync.Once
	lamtraceErr  error
)

func buildLamtrace(t *testing.T) {
	t.Helper()
	lamtraceOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", filepath.Join(prefix, "bin")+"/", "./lamtrace")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			lamtraceErr = &buildError{err: err, out: string(out)}
		}
	})
	if lamtraceErr != nil {
		t.Fatal(lamtraceErr)
	}
}

type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	TID  int            `json:"tid"`
	ID   int            `json:"id"`
	Args map[string]any `json:"args"`
}

// TestLamtraceRing traces a 4-rank ring and checks the trace's structure:
// a row per rank, every send joined to its receive by an arrow that goes
// forward in time, slices that nest, and an SVG that parses.
func TestLamtraceRing(t *testing.T) {
	buildLamtrace(t)
	ctx, l := bootLocal(t, 90*time.Second)
	if r := l.run(ctx, "mpirun", "-t", "-np", "4", bin("ring")); r.code != 0 {
		t.Fatalf("mpirun: %v", r)
	}
	if r := l.run(ctx, "lamtrace", "-v", "-svg", "ring.svg", "ring.json"); r.code != 0 {
		t.Fatalf("lamtrace: %v", r)
	}
	b, err := os.ReadFile(filepath.Join(l.prefix, "ring.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	rows := map[int]string{}
	slices := map[int][]traceEvent{}
	starts, finishes := map[int]traceEvent{}, map[int]traceEvent{}
	sends := 0
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				rows[e.TID], _ = e.Args["name"].(string)
			}
		case "X":
			slices[e.TID] = append(slices[e.TID], e)
			if e.Name == "Send" {
				sends++
			}
		case "s":
			starts[e.ID] = e
		case "f":
			finishes[e.ID] = e
		}
	}
	for rank := range 4 {
		if !strings.HasPrefix(rows[rank], "rank ") || len(slices[rank]) == 0 {
			t.Errorf("rank %d: row %q with %d slices", rank, rows[rank], len(slices[rank]))
		}
	}
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4", len(rows))
	}
	// The ring passes a token 10 times around: every rank sends at least
	// 10 times, and every send has its receive.
	if sends < 40 || len(starts) != sends || len(finishes) != sends {
		t.Errorf("%d sends, %d arrows started, %d finished", sends, len(starts), len(finishes))
	}
	for id, s := range starts {
		f, ok := finishes[id]
		switch {
		case !ok:
			t.Errorf("arrow %d has no end", id)
		case f.Ts < s.Ts:
			t.Errorf("arrow %d goes back in time: sent at %.3f µs, received at %.3f µs", id, s.Ts, f.Ts)
		case f.TID != (s.TID+1)%4:
			t.Errorf("arrow %d from rank %d to rank %d, not to the next rank", id, s.TID, f.TID)
		}
	}
	// Slices of one rank are nested or disjoint.
	for rank, ss := range slices {
		sort.Slice(ss, func(i, j int) bool { return ss[i].Ts < ss[j].Ts || ss[i].Ts == ss[j].Ts && ss[i].Dur > ss[j].Dur })
		var open []traceEvent
		for _, s := range ss {
			for len(open) > 0 && open[len(open)-1].Ts+open[len(open)-1].Dur <= s.Ts {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && s.Ts+s.Dur > open[len(open)-1].Ts+open[len(open)-1].Dur+1e-3 {
				t.Errorf("rank %d: %s at %.3f overlaps %s at %.3f without nesting", rank, s.Name, s.Ts, open[len(open)-1].Name, open[len(open)-1].Ts)
			}
			open = append(open, s)
		}
	}
	svg, err := os.ReadFile(filepath.Join(l.prefix, "ring.svg"))
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	rects := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("the SVG does not parse: %v", err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if rects < len(tr.TraceEvents)/4 {
		t.Errorf("the SVG has %d boxes", rects)
	}
	// The records were taken: a second lamtrace finds none.
	if r := l.run(ctx, "lamtrace", "-f", "0", "again.json"); r.code != 1 || !strings.Contains(r.stderr, "no trace records") {
		t.Errorf("second lamtrace: %v", r)
	}
}
