package jobwire

import (
	"github.com/lamgo/lam/shared/wire"
)

// A lamd asks its MPI processes what they are doing (for mpitask and
// mpimsg) with a Query, sent to the process's event with type TypeQuery;
// the process answers with a Status to the query's reply event and type,
// unless the query's deadline has passed (the lamd gave up waiting).
const (
	TypeQuery  int32 = 32
	TypeStatus int32 = 64
)

// Query is a lamd's question to one of its MPI processes.
type Query struct {
	ReplyEvent int32
	ReplyType  int32
	Deadline   int64 // Unix nanoseconds: do not answer after it
	Msgs       bool  // list the unexpected queue too
	MaxMsgs    int32
}

func (m *Query) fields(c *wire.Codec) {
	c.I32(&m.ReplyEvent)
	c.I32(&m.ReplyType)
	i64(c, &m.Deadline)
	c.Bool(&m.Msgs)
	c.Int32(&m.MaxMsgs, "message limit", 0, maxPending)
}

// Encode returns the message's bytes.
func (m *Query) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeQuery reads a Query.
func DecodeQuery(b []byte) (*Query, error) { return decode[Query](b) }

// States of a process in a Status.
const (
	StateRunning   uint8 = 1 + iota // in no blocking MPI call
	StateBlocked                    // in Call
	StateFinalized                  // past MPI_Finalize
	stateEnd
)

// Status is an MPI process's answer to a Query.
type Status struct {
	Rank    int32 // in MPI_COMM_WORLD
	Size    int32
	PID     int32
	Node    int32
	Program string
	State   uint8
	Call    Call      // when StateBlocked
	Pending []Pending // the unexpected queue, oldest first
	More    bool      // more unexpected messages than listed
}

// Call is the blocking MPI call a process is in.
type Call struct {
	Func     string // "Recv", "Barrier", ...
	Comm     string // "WORLD", "SELF", or the context id
	Peer     int32  // rank in Comm (or root); -1 any source, -2 none
	PeerW    int32  // the peer's rank in MPI_COMM_WORLD, or -1
	Tag      int32  // -1 any tag, -2 none
	Count    int32
	Datatype string
}

// Pending is a message waiting unmatched in a process's queue.
type Pending struct {
	Comm   string
	Source int32 // rank in Comm
	From   int32 // world rank, or -1
	Tag    int32
	Bytes  int64
	Sync   bool // its sender waits for the match (synchronous or long)
	Coll   bool // a collective's traffic (the communicator's hidden context)
}

// maxPending bounds the unexpected messages in a Status.
const maxPending = 4096

func (m *Call) fields(c *wire.Codec) {
	c.String(&m.Func, "function", 64)
	c.String(&m.Comm, "communicator", 64)
	c.Int32(&m.Peer, "peer", -2, MaxRanks)
	c.Int32(&m.PeerW, "peer world rank", -1, MaxRanks)
	c.Int32(&m.Tag, "tag", -2, 1<<31-1)
	c.Int32(&m.Count, "count", 0, 1<<31-1)
	c.String(&m.Datatype, "datatype", 64)
}

func (m *Pending) fields(c *wire.Codec) {
	c.String(&m.Comm, "communicator", 64)
	c.Int32(&m.Source, "source", -1, MaxRanks)
	c.Int32(&m.From, "sender world rank", -1, MaxRanks)
	c.Int32(&m.Tag, "tag", -2, 1<<31-1)
	i64(c, &m.Bytes)
	if c.Checking() && m.Bytes < 0 {
		c.Fail("negative message length")
	}
	c.Bool(&m.Sync)
	c.Bool(&m.Coll)
}

func (m *Status) fields(c *wire.Codec) {
	rank(c, &m.Rank)
	c.Int32(&m.Size, "size", 1, MaxRanks)
	pid(c, &m.PID)
	node(c, &m.Node)
	c.String(&m.Program, "program", maxString)
	c.Enum(&m.State, "state", 1, stateEnd-1)
	m.Call.fields(c)
	wire.List(c, &m.Pending, "pending messages", maxPending, 17, (*Pending).fields)
	c.Bool(&m.More)
}

// Encode returns the message's bytes.
func (m *Status) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeStatus reads a Status, checking every field.
func DecodeStatus(b []byte) (*Status, error) { return decode[Status](b) }

// i64 is a signed 64-bit field (two 32-bit halves, high first).
func i64(c *wire.Codec, p *int64) {
	hi, lo := uint32(uint64(*p)>>32), uint32(uint64(*p))
	c.U32(&hi)
	c.U32(&lo)
	*p = int64(uint64(hi)<<32 | uint64(lo))
}
