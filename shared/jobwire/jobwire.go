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

// Init is a rank's report from MPI_Init.
type Init struct {
	Rank int32
	PID  int32
	Node int32
	RPI  string // module name and version, e.g. "tcp 0.1"
	Addr string
}

// Encode returns the message's bytes.
func (m *Init) Encode() []byte {
	e := wire.NewEncoder(nil)
	e.I32(m.Rank)
	e.I32(m.PID)
	e.I32(m.Node)
	e.String(m.RPI)
	e.String(m.Addr)
	return e.Bytes()
}

// DecodeInit reads an Init, checking every field.
func DecodeInit(b []byte) (*Init, error) {
	d := wire.NewDecoder(b)
	m := &Init{Rank: int32(d.Int("rank", 0, MaxRanks-1)), PID: int32(d.Int("pid", 1, 1<<30)),
		Node: int32(d.Int("node", 0, wire.MaxNodes-1)), RPI: d.String("rpi", maxString), Addr: d.String("address", maxString)}
	return m, d.Finish()
}

// Proc is one rank in the table.
type Proc struct {
	Node int32
	PID  int32
	Addr string
}

// Table is what every rank gets back: the whole job.
type Table struct {
	RPI    string
	Secret []byte
	Procs  []Proc // by rank
}

// Encode returns the message's bytes.
func (m *Table) Encode() []byte {
	e := wire.NewEncoder(nil)
	e.String(m.RPI)
	e.Blob(m.Secret)
	e.U32(uint32(len(m.Procs)))
	for _, p := range m.Procs {
		e.I32(p.Node)
		e.I32(p.PID)
		e.String(p.Addr)
	}
	return e.Bytes()
}

// DecodeTable reads a Table, checking every field.
func DecodeTable(b []byte) (*Table, error) {
	d := wire.NewDecoder(b)
	m := &Table{RPI: d.String("rpi", maxString), Secret: d.Blob("secret", 256)}
	n := int(d.Int("size", 1, MaxRanks))
	if d.Err() == nil && n*12 > len(b) {
		d.Fail("truncated table")
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	m.Procs = make([]Proc, n)
	for i := range m.Procs {
		m.Procs[i] = Proc{Node: int32(d.Int("node", 0, wire.MaxNodes-1)), PID: int32(d.Int("pid", 1, 1<<30)), Addr: d.String("address", maxString)}
	}
	return m, d.Finish()
}

// Abort is a rank's MPI_Abort.
type Abort struct {
	Rank int32
	Code int32
	Msg  string
}

// Encode returns the message's bytes.
func (m *Abort) Encode() []byte {
	e := wire.NewEncoder(nil)
	e.I32(m.Rank)
	e.I32(m.Code)
	e.String(m.Msg)
	return e.Bytes()
}

// DecodeAbort reads an Abort.
func DecodeAbort(b []byte) (*Abort, error) {
	d := wire.NewDecoder(b)
	m := &Abort{Rank: int32(d.Int("rank", 0, MaxRanks-1)), Code: d.I32(), Msg: d.String("message", maxString)}
	return m, d.Finish()
}

// EncodeRank encodes a bare rank (Finalize).
func EncodeRank(rank int32) []byte {
	e := wire.NewEncoder(nil)
	e.I32(rank)
	return e.Bytes()
}

// DecodeRank reads a bare rank.
func DecodeRank(b []byte) (int32, error) {
	d := wire.NewDecoder(b)
	r := int32(d.Int("rank", 0, MaxRanks-1))
	return r, d.Finish()
}
