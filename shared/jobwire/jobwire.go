// Package jobwire is the MPI wire-up protocol between mpirun and the
// ranks it starts, carried as out-of-band messages through the lamds.
//
// mpirun starts every rank with LAMRANK, LAMWORLD and LAMJOBID
// (<node>:<mpirun's pid>) in its environment. In MPI_Init each rank sends
// an Init to mpirun (node and event from LAMJOBID, type TypeInit) saying
// where its chosen rpi module can be reached; once every rank has, mpirun
// sends each rank the Table (event: minus the rank's pid, type TypeTable)
// with every rank's address and the job's secret. A rank sends Finalize
// from MPI_Finalize and Abort from MPI_Abort.
package jobwire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lamgo/lam/shared/wire"
)

// Message types (the out-of-band type field).
const (
	TypeInit     int32 = 1
	TypeTable    int32 = 2
	TypeFinalize int32 = 4
	TypeAbort    int32 = 8
)

// Environment variables mpirun gives every rank.
const (
	EnvRank  = "LAMRANK"
	EnvWorld = "LAMWORLD"
	EnvJob   = "LAMJOBID"
	// EnvAppNum is the index of the rank's line in the job's application
	// schema (MPI_APPNUM).
	EnvAppNum = "LAMAPPNUM"
	// EnvTrace is set by mpirun -t/-ton (TraceOn) and -toff (TraceOff):
	// the ranks record their MPI calls and messages (LAM's RTF_TRACE);
	// TraceOff starts with message recording switched off (LAM's
	// RTF_TRSWITCH clear) until the program switches it on. Unset:
	// no tracing.
	EnvTrace = "LAMTRACE"
)

// The values of EnvTrace.
const (
	TraceOn  = "on"
	TraceOff = "off"
)

// Limits.
const (
	MaxRanks  = 1 << 20
	maxString = 4096
)

// JobID is where mpirun listens: its node and pid.
type JobID struct {
	Node int32
	PID  int32
}

func (j JobID) String() string { return fmt.Sprintf("%d:%d", j.Node, j.PID) }

// ParseJobID reads LAMJOBID.
func ParseJobID(s string) (JobID, error) {
	a, b, ok := strings.Cut(s, ":")
	n, err1 := strconv.ParseInt(a, 10, 32)
	p, err2 := strconv.ParseInt(b, 10, 32)
	if !ok || err1 != nil || err2 != nil || n < 0 || p <= 0 {
		return JobID{}, fmt.Errorf("bad %s %q", EnvJob, s)
	}
	return JobID{Node: int32(n), PID: int32(p)}, nil
}

// RankEvent is the out-of-band event a rank receives on.
func RankEvent(pid int) int32 { return -int32(pid) }

// message is a jobwire message: its fields method declares its layout
// (see wire.Codec), which both encodes and decodes it.
type message interface{ fields(*wire.Codec) }

// decode reads a message of type T from b, checking every field.
func decode[T any, P interface {
	*T
	message
}](b []byte) (*T, error) {
	m := P(new(T))
	if err := wire.Unmarshal(b, m.fields); err != nil {
		return nil, err
	}
	return m, nil
}

// Init is a rank's report from MPI_Init.
type Init struct {
	Rank int32
	PID  int32
	Node int32
	RPI  string // module name and version, e.g. "tcp 0.1"
	Addr string
	// NoCR is empty when this rank can be checkpointed, else why not
	// (e.g. "rpi lamd cannot be checkpointed"); mpirun refuses a job
	// started with a cr module when a rank says so (no-cr-support).
	NoCR string
	// Where is the processors the rank may run on (Where).
	Where Where
}

// Where is the processors a process may run on: its machine (the
// kernel's boot id: LAM nodes that are namespaces or containers of one
// machine share its processors) and its affinity mask (a bit per
// processor, little-endian), so that every process can tell whether the
// job's processes of its machine outnumber their processors.
type Where struct {
	Machine string
	CPUs    []byte
}

// MaxCPUMask is the longest affinity mask a Where carries (1024
// processors).
const MaxCPUMask = 128

func (w *Where) fields(c *wire.Codec) {
	c.String(&w.Machine, "machine", 64)
	c.Blob(&w.CPUs, "processor mask", MaxCPUMask)
	if c.Checking() && len(w.CPUs) == 0 {
		w.CPUs = nil // none given, as before encoding
	}
}

func (m *Init) fields(c *wire.Codec) {
	rank(c, &m.Rank)
	pid(c, &m.PID)
	node(c, &m.Node)
	c.String(&m.RPI, "rpi", maxString)
	c.String(&m.Addr, "address", maxString)
	c.String(&m.NoCR, "checkpoint refusal", maxString)
	m.Where.fields(c)
}

// Encode returns the message's bytes.
func (m *Init) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeInit reads an Init, checking every field.
func DecodeInit(b []byte) (*Init, error) { return decode[Init](b) }

// Proc is one rank in the table.
type Proc struct {
	Node  int32
	PID   int32
	Addr  string
	Where Where
}

func (p *Proc) fields(c *wire.Codec) {
	node(c, &p.Node)
	pid(c, &p.PID)
	c.String(&p.Addr, "address", maxString)
	p.Where.fields(c)
}

// Table is what every rank gets back: the whole job.
type Table struct {
	RPI    string
	Secret []byte
	Procs  []Proc // by rank
}

func (m *Table) fields(c *wire.Codec) {
	c.String(&m.RPI, "rpi", maxString)
	c.Blob(&m.Secret, "secret", 256)
	wire.List(c, &m.Procs, "ranks", MaxRanks, 20, (*Proc).fields)
	if c.Checking() && len(m.Procs) == 0 {
		c.Fail("empty table")
	}
}

// Encode returns the message's bytes.
func (m *Table) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeTable reads a Table, checking every field.
func DecodeTable(b []byte) (*Table, error) { return decode[Table](b) }

// Abort is a rank's MPI_Abort.
type Abort struct {
	Rank int32
	Code int32
	Msg  string
	// Dead is the rank whose death made this one abort (its link broke),
	// or -1: mpirun then reports that rank's end, which came first.
	Dead int32
}

func (m *Abort) fields(c *wire.Codec) {
	rank(c, &m.Rank)
	c.I32(&m.Code)
	c.String(&m.Msg, "message", maxString)
	c.Int32(&m.Dead, "dead rank", -1, MaxRanks-1)
}

// Encode returns the message's bytes.
func (m *Abort) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeAbort reads an Abort.
func DecodeAbort(b []byte) (*Abort, error) { return decode[Abort](b) }

// finalize is a bare rank (Finalize).
type finalize struct{ Rank int32 }

func (m *finalize) fields(c *wire.Codec) { rank(c, &m.Rank) }

// EncodeRank encodes a bare rank (Finalize).
func EncodeRank(r int32) []byte { return wire.Marshal(nil, (&finalize{r}).fields) }

// DecodeRank reads a bare rank.
func DecodeRank(b []byte) (int32, error) {
	m, err := decode[finalize](b)
	if err != nil {
		return 0, err
	}
	return m.Rank, nil
}

func rank(c *wire.Codec, p *int32) { c.Int32(p, "rank", 0, MaxRanks-1) }
func pid(c *wire.Codec, p *int32)  { c.Int32(p, "pid", 1, 1<<30) }
func node(c *wire.Codec, p *int32) { c.Int32(p, "node", 0, wire.MaxNodes-1) }
