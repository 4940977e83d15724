package faults

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// resultPrefix starts the machine-readable line every scenario logs.
const resultPrefix = "faults-result "

// scenario is one row of the results table.
type scenario struct {
	Name    string   `json:"scenario"`
	Held    bool     `json:"held"`
	Outcome string   `json:"outcome,omitempty"` // what the tools and the job reported
	Before  *usage   `json:"before,omitempty"`  // the lamd before the attack
	Load    *usage   `json:"load,omitempty"`    // under it
	After   *usage   `json:"after,omitempty"`   // once it ended
	Left    []string `json:"left"`              // nil: not checked
	Checked bool     `json:"checked"`
	Seconds float64  `json:"seconds"`

	hidden []string // old, new pairs: temporary paths shortened in notes
}

var (
	resultsMu sync.Mutex
	results   []*scenario
)

// record starts a scenario; when the test ends it logs the scenario's
// result line and keeps it for the table.
func record(t *testing.T, name string) *scenario {
	t.Helper()
	sc := &scenario{Name: name}
	start := time.Now()
	t.Cleanup(func() {
		sc.Held = !t.Failed()
		sc.Seconds = time.Since(start).Round(100 * time.Millisecond).Seconds()
		b, _ := json.Marshal(sc)
		t.Logf("%s%s", resultPrefix, b)
		resultsMu.Lock()
		results = append(results, sc)
		resultsMu.Unlock()
	})
	return sc
}

// hide makes notes say name for the temporary path.
func (sc *scenario) hide(path, name string) { sc.hidden = append(sc.hidden, path, name) }

// note adds to the scenario's outcome, with temporary paths shortened
// and bytes that are not UTF-8 replaced.
func (sc *scenario) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	s = strings.NewReplacer(append(sc.hidden, prefix, "$PREFIX")...).Replace(s)
	s = strings.ToValidUTF8(s, "\uFFFD")
	if sc.Outcome != "" {
		sc.Outcome += "; "
	}
	sc.Outcome += s
}

// left records what a leftover check found.
func (sc *scenario) left(found []string) {
	sc.Checked = true
	if sc.Left == nil {
		sc.Left = []string{}
	}
	sc.Left = append(sc.Left, found...)
}

// markdownTable renders the results of the run as the table of
// docs/faults.md.
func markdownTable() string {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	var b strings.Builder
	b.WriteString("| Scenario | Held | Outcome | Left behind | lamd before | under load | after | s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, sc := range results {
		held := "yes"
		if !sc.Held {
			held = "**no**"
		}
		left := "nothing"
		switch {
		case !sc.Checked:
			left = "not checked"
		case len(sc.Left) > 0:
			left = "**" + strings.Join(sc.Left, ", ") + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %.1f |\n", cell(sc.Name), held, cell(sc.Outcome),
			cell(left), cellUsage(sc.Before), cellUsage(sc.Load), cellUsage(sc.After), sc.Seconds)
	}
	b.WriteString("\nlamd columns: open descriptors / threads / resident memory.\n")
	return b.String()
}

func cellUsage(u *usage) string {
	if u == nil {
		return ""
	}
	return fmt.Sprintf("%d / %d / %.1f MiB", u.FDs, u.Threads, float64(u.RSSKiB)/1024)
}

// cell keeps text inside one table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
