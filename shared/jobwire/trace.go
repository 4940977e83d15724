package jobwire

import (
	"github.com/lamgo/lam/shared/wire"
)

// Tracing (mpirun -t/-ton/-toff, lamtrace). mpirun sets LAMTRACE in every
// rank's environment: "on" records from MPI_Init, "off" enables tracing
// but records only once the program turns it on (MPI_Pcontrol). At
// MPI_Finalize each traced rank sends its Trace to mpirun's node, event
// EventTrace, type TypeTrace; lamtrace collects them there.
const (
	TypeTrace  = int32(128)
	EventTrace = int32(1<<30 - 1) // above every pid (tools' events), below the lamds' own
)

// Trace is one rank's trace records.
type Trace struct {
	Job     string
	Rank    int32
	Size    int32
	Node    int32
	PID     int32
	Program string
	Dropped int32 // records beyond the buffer, not kept
	Events  []TraceEvent
}

// TraceEvent is the start (Begin) or the end of an MPI call.
type TraceEvent struct {
	T     int64 // wall clock, Unix nanoseconds
	Begin bool
	Func  string
	Peer  int32 // world rank of the peer or root, -1 none or any
	Tag   int32
	Comm  string
	Count int32
}

// MaxTraceEvents bounds a Trace.
const MaxTraceEvents = 1 << 17

func (e *TraceEvent) fields(c *wire.Codec) {
	i64(c, &e.T)
	c.Bool(&e.Begin)
	c.String(&e.Func, "function", 64)
	c.Int32(&e.Peer, "peer", -1, MaxRanks)
	c.I32(&e.Tag)
	c.String(&e.Comm, "communicator", 64)
	c.I32(&e.Count)
}

func (m *Trace) fields(c *wire.Codec) {
	c.String(&m.Job, "job", 64)
	rank(c, &m.Rank)
	c.Int32(&m.Size, "size", 1, MaxRanks)
	node(c, &m.Node)
	pid(c, &m.PID)
	c.String(&m.Program, "program", maxString)
	c.Int32(&m.Dropped, "dropped", 0, 1<<31-1)
	wire.List(c, &m.Events, "trace events", MaxTraceEvents, 26, (*TraceEvent).fields)
}

// Encode returns the message's bytes.
func (m *Trace) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeTrace reads a Trace, checking every field.
func DecodeTrace(b []byte) (*Trace, error) { return decode[Trace](b) }
