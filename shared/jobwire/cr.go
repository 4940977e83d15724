package jobwire

import (
	"fmt"
	"path/filepath"

	"github.com/lamgo/lam/shared/wire"
)

// Checkpoint/restart (the cr framework) travels the same out-of-band path:
//
//  1. A tool (crcheckpoint, lamcheckpoint, or mpirun's own timer for
//     periodic checkpoints) sends a Checkpoint to mpirun (mpirun's node,
//     event = mpirun's pid, type TypeCheckpoint).
//  2. mpirun makes a fresh, empty directory for the set and sends every
//     rank a CRRank (event RankEvent(pid), type TypeCRRank) naming it.
//  3. Each rank quiesces its library, drains its transports with its
//     peers, writes its state to RankFile(dir, rank) (write, fsync) and
//     answers mpirun with a CRDone (type TypeCRDone); a rank that cannot
//     be checkpointed answers at once with the reason in Err.
//  4. When every rank has answered without error, mpirun writes the job
//     description beside the rank files, syncs, and renames the directory
//     to its final name, so a checkpoint set is complete or absent; it
//     answers the tool with a CheckpointReply (the request's reply event
//     and type). On any error it removes the directory and says why.
//
// A restarted job's ranks find the set in EnvRestart and load
// RankFile(dir, rank) inside MPI_Init.
const (
	TypeCRDone     int32 = 16
	TypeCheckpoint int32 = 128
	TypeCRRank     int32 = 256
)

// EnvRestart names the checkpoint set directory a restarted rank loads its
// state from (set by crrestart through mpirun; unset in a fresh job).
const EnvRestart = "LAMCRRESTART"

// RankFile is where rank's state lives in a checkpoint set.
func RankFile(dir string, rank int) string {
	return filepath.Join(dir, fmt.Sprintf("rank-%d.ckpt", rank))
}

// Checkpoint asks mpirun for a checkpoint of its job.
type Checkpoint struct {
	ReplyEvent int32
	ReplyType  int32
	Deadline   int64 // Unix nanoseconds: give up (and discard the set) after it
	Stop       bool  // end the job once the checkpoint is taken
}

func (m *Checkpoint) fields(c *wire.Codec) {
	c.I32(&m.ReplyEvent)
	c.I32(&m.ReplyType)
	i64(c, &m.Deadline)
	c.Bool(&m.Stop)
}

// Encode returns the message's bytes.
func (m *Checkpoint) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeCheckpoint reads a Checkpoint.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) { return decode[Checkpoint](b) }

// CheckpointReply is mpirun's answer: the set's directory, or why none was
// taken.
type CheckpointReply struct {
	Seq   int32 // the checkpoint's number in this job, from 1
	Dir   string
	Err   string
	Drain DrainCounts // the ranks' drains' waits, summed
}

func (m *CheckpointReply) fields(c *wire.Codec) {
	c.Int32(&m.Seq, "checkpoint number", 0, 1<<31-1)
	c.String(&m.Dir, "directory", maxString)
	c.String(&m.Err, "error", maxString)
	m.Drain.fields(c)
}

// DrainCounts is what a drain did while it waited for its peers (the
// library's core.DrainStats): polls of the links that found them waiting,
// and of those, the ones followed by a yield of the processor and by a
// sleep. A count the machine's load changes only through how long the
// peers take; the coordination benchmark reports them.
type DrainCounts struct {
	Polls, Yields, Sleeps uint32
}

func (d *DrainCounts) fields(c *wire.Codec) {
	c.U32(&d.Polls)
	c.U32(&d.Yields)
	c.U32(&d.Sleeps)
}

// Add adds o to d, saturating.
func (d *DrainCounts) Add(o DrainCounts) {
	add := func(a *uint32, b uint32) {
		if *a+b < *a {
			*a = 1<<32 - 1
			return
		}
		*a += b
	}
	add(&d.Polls, o.Polls)
	add(&d.Yields, o.Yields)
	add(&d.Sleeps, o.Sleeps)
}

// Encode returns the message's bytes.
func (m *CheckpointReply) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeCheckpointReply reads a CheckpointReply.
func DecodeCheckpointReply(b []byte) (*CheckpointReply, error) { return decode[CheckpointReply](b) }

// CRRank tells a rank to take its part of checkpoint Seq.
type CRRank struct {
	Seq      int32
	Dir      string // where the rank writes RankFile(Dir, rank)
	Deadline int64  // Unix nanoseconds
	Stop     bool   // exit (status 0, as after MPI_Finalize) once written
}

func (m *CRRank) fields(c *wire.Codec) {
	c.Int32(&m.Seq, "checkpoint number", 1, 1<<31-1)
	c.String(&m.Dir, "directory", maxString)
	i64(c, &m.Deadline)
	c.Bool(&m.Stop)
	if c.Checking() && m.Dir == "" {
		c.Fail("empty checkpoint directory")
	}
}

// Encode returns the message's bytes.
func (m *CRRank) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeCRRank reads a CRRank.
func DecodeCRRank(b []byte) (*CRRank, error) { return decode[CRRank](b) }

// CRDone is a rank's answer to a CRRank.
type CRDone struct {
	Rank  int32
	Seq   int32
	Bytes int64       // size of the rank's file
	Err   string      // empty when the rank's state is written and synced
	Drain DrainCounts // the rank's drain's waits
}

func (m *CRDone) fields(c *wire.Codec) {
	rank(c, &m.Rank)
	c.Int32(&m.Seq, "checkpoint number", 1, 1<<31-1)
	i64(c, &m.Bytes)
	c.String(&m.Err, "error", maxString)
	m.Drain.fields(c)
	if c.Checking() && m.Bytes < 0 {
		c.Fail("negative checkpoint size")
	}
}

// Encode returns the message's bytes.
func (m *CRDone) Encode() []byte { return wire.Marshal(nil, m.fields) }

// DecodeCRDone reads a CRDone.
func DecodeCRDone(b []byte) (*CRDone, error) { return decode[CRDone](b) }
