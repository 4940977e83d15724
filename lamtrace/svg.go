package main

import (
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math"
)

// SVG drawing of a timeline, for a person with no trace viewer at hand:
// one row per rank, each call a coloured box (nested calls inside, lower
// and thinner), each message an arrow from the start of its send to the
// end of its receive, a time axis with round ticks.

const (
	svgWidth  = 1200.0
	svgLeft   = 190.0 // room for the row names
	svgRight  = 20.0
	svgTop    = 40.0
	svgRowH   = 44.0
	svgBoxH   = 26.0
	svgBottom = 50.0
)

var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// colour gives each function name its own colour, the same in every run.
func colour(name string) string {
	switch name {
	case "Send", "Ssend", "Rsend", "Bsend":
		return palette[0]
	case "Recv":
		return palette[1]
	case "Wait", "Waitall":
		return palette[9]
	case "Barrier":
		return palette[2]
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return palette[3+int(h.Sum32()%6)]
}

// niceStep is a round tick spacing (1, 2 or 5 times a power of ten) for
// about n ticks over span.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// timeLabel prints ns in the largest unit that keeps it readable.
func timeLabel(ns float64) string {
	switch {
	case ns == 0:
		return "0"
	case ns >= 1e9:
		return fmt.Sprintf("%.3gs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3gms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3gµs", ns/1e3)
	}
	return fmt.Sprintf("%.0fns", ns)
}

// WriteSVG draws t.
func WriteSVG(w io.Writer, t *Timeline) error {
	end := float64(max(t.End(), 1))
	height := svgTop + float64(len(t.Rows))*svgRowH + svgBottom
	scale := (svgWidth - svgLeft - svgRight) / end
	x := func(ns int64) float64 { return svgLeft + float64(ns)*scale }
	rowOf := map[int]int{}
	for i, r := range t.Rows {
		rowOf[r.Rank] = i
	}
	rowY := func(rank int) float64 { return svgTop + float64(rowOf[rank])*svgRowH }

	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", svgWidth, height, svgWidth, height)
	p(`<title>MPI job %s: %d ranks, %d calls, %d messages</title>`+"\n", html.EscapeString(t.Job), len(t.Rows), len(t.Slices), len(t.Flows))
	p(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>` + "\n")
	p(`<rect x="0" y="0" width="%.0f" height="%.0f" fill="white"/>`+"\n", svgWidth, height)
	p(`<text x="10" y="22" font-size="14" font-weight="bold">MPI job %s — %d ranks, %d calls, %d messages, %s</text>`+"\n",
		html.EscapeString(t.Job), len(t.Rows), len(t.Slices), len(t.Flows), timeLabel(end))
	// Rows.
	for i, r := range t.Rows {
		y := svgTop + float64(i)*svgRowH
		if i%2 == 1 {
			p(`<rect x="0" y="%.1f" width="%.0f" height="%.0f" fill="#f4f4f4"/>`+"\n", y, svgWidth, svgRowH)
		}
		p(`<text x="8" y="%.1f">%s</text>`+"\n", y+svgRowH/2+4, html.EscapeString(r.Name))
	}
	// Time axis.
	axisY := svgTop + float64(len(t.Rows))*svgRowH + 8
	p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", svgLeft, axisY, svgWidth-svgRight, axisY)
	step := niceStep(end, 8)
	for v := 0.0; v <= end+step/2; v += step {
		xx := svgLeft + v*scale
		if xx > svgWidth-svgRight+0.5 {
			break
		}
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd" stroke-dasharray="2,3"/>`+"\n",
			xx, axisY, xx, axisY+5, xx, svgTop, xx, axisY)
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", xx, axisY+18, timeLabel(v))
	}
	// Calls.
	for _, s := range t.Slices {
		y := rowY(s.Rank) + (svgRowH-svgBoxH)/2 + float64(s.Depth)*4
		h := svgBoxH - float64(s.Depth)*8
		if h < 6 {
			h = 6
		}
		wd := math.Max(x(s.End)-x(s.Start), 1)
		tip := s.Func
		if s.Peer >= 0 {
			tip += fmt.Sprintf(" peer %d", s.Peer)
		}
		if s.Tag >= 0 {
			tip += fmt.Sprintf(" tag %d", s.Tag)
		}
		tip += " " + timeLabel(float64(s.End-s.Start))
		p(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" stroke="#222" stroke-width="0.3"><title>%s</title></rect>`+"\n",
			x(s.Start), y, wd, h, colour(s.Func), html.EscapeString(tip))
		if wd > 7*float64(len(s.Func))+4 {
			p(`<text x="%.2f" y="%.1f" text-anchor="middle" fill="white" font-size="11">%s</text>`+"\n", x(s.Start)+wd/2, y+h/2+4, html.EscapeString(s.Func))
		}
	}
	// Messages.
	for _, f := range t.Flows {
		y1 := rowY(f.From) + svgRowH/2
		y2 := rowY(f.To) + svgRowH/2
		p(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="#333" stroke-width="1" marker-end="url(#arrow)"><title>%d → %d tag %d</title></line>`+"\n",
			x(f.SendStart), y1, x(f.RecvEnd), y2, f.From, f.To, f.Tag)
	}
	p("</svg>\n")
	return nil
}
