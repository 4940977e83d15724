package task

import (
	"sync"
	"sync/atomic"
	"time"
)

// Tracing (mpirun -t, lamtrace): while it is on, the blocking calls'
// Enter and Leave, and every send (TraceSend, which also sees the sends
// that complete at once), append an event to this process's buffer; at
// MPI_Finalize the buffer goes to mpirun's lamd for lamtrace. While it is
// off (the default) each hook costs one atomic load.

// Event is one trace record.
type Event struct {
	T     int64 // wall clock, Unix nanoseconds
	Fn    Fn
	Begin bool
	Peer  int32 // world rank of the peer or root, or -1
	Tag   int32
	Ctx   uint32
	Count int32
}

// MaxEvents bounds a process's trace; later events are counted, not kept.
const MaxEvents = 1 << 17

var (
	tracing atomic.Bool // recording now
	traced  atomic.Bool // tracing was enabled for this process
	trace   struct {
		mu      sync.Mutex
		events  []Event
		dropped int
	}
)

// EnableTracing enables tracing for this process (mpirun -t, -ton: on
// at once; -toff: off until the program switches it on).
func EnableTracing(on bool) {
	traced.Store(true)
	tracing.Store(on)
}

// SetTracing switches recording on or off, if tracing is enabled
// (MPI_Pcontrol).
func SetTracing(on bool) {
	if traced.Load() {
		tracing.Store(on)
	}
}

// Traced reports whether tracing is enabled for this process.
func Traced() bool { return traced.Load() }

// Tracing reports whether events are being recorded.
func Tracing() bool { return tracing.Load() }

func addEvent(e Event) {
	e.T = time.Now().UnixNano()
	trace.mu.Lock()
	if len(trace.events) < MaxEvents {
		trace.events = append(trace.events, e)
	} else {
		trace.dropped++
	}
	trace.mu.Unlock()
}

// Events returns the recorded events and how many were dropped.
func Events() ([]Event, int) {
	trace.mu.Lock()
	defer trace.mu.Unlock()
	return append([]Event(nil), trace.events...), trace.dropped
}

// isSend reports whether fn is a send, which TraceSend records.
func isSend(fn Fn) bool { return fn == Send || fn == Ssend || fn == Rsend || fn == Bsend }

// Span is a traced send; End ends it.
type Span struct{ fn Fn }

// TraceSend records the start of a send of count elements to world rank
// peer with tag on context ctx, when tracing is on.
func TraceSend(fn Fn, ctx uint32, peer, tag int32, count int) Span {
	if !tracing.Load() {
		return Span{}
	}
	addEvent(Event{Fn: fn, Begin: true, Peer: peer, Tag: tag, Ctx: ctx, Count: int32(min(count, 1<<31-1))})
	return Span{fn: fn}
}

// End records the end of the send.
func (s Span) End() {
	if s.fn != None && tracing.Load() {
		addEvent(Event{Fn: s.fn, Peer: -1})
	}
}
