// Package comm is the communicator layer under the mpi API: context ids
// and how the processes of a communicator agree on them, the hidden
// context each communicator has for the library's own messages, and the
// construction of intercommunicators.
//
// Context ids: a communicator with id c uses c for point-to-point traffic
// and Hidden(c) for the library's own (collectives, construction
// messages), so the two never match each other; an intracommunicator
// takes IntraIDs ids. An intercommunicator takes InterIDs: its own two,
// and LocalGroup(c) and Hidden(LocalGroup(c)) for the hidden
// intracommunicator of its local group, which its collectives use. World
// is WorldContext, Self SelfContext; new communicators take ids agreed by
// all their members: the largest next free id among them.
package comm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// The context-id convention (see the package comment).
const (
	WorldContext uint32 = 0
	SelfContext  uint32 = 2
	firstFree    uint32 = 4
	IntraIDs     uint32 = 2
	InterIDs     uint32 = 4
)

// Hidden is the context of the library's own messages on the
// communicator with context c.
func Hidden(c uint32) uint32 { return c + 1 }

// LocalGroup is the context of the hidden intracommunicator of the local
// group of the intercommunicator with context c.
func LocalGroup(c uint32) uint32 { return c + 2 }

// Tags of construction messages on a hidden context.
const (
	tagGather = 0 // Exchange: to rank 0
	tagTable  = 1 // Exchange: rank 0's answer
	tagHeader = 2 // a list's header (its length and fixed values)
	tagBody   = 3 // a list
)

// TagNeighbor is the first tag of the neighbour collectives' messages on
// a hidden context (internal/topo adds the collective's sequence number
// and the edge's offset): above the construction tags, below the coll
// framework's marks (bit 29 for its nonblocking collectives, 30 for its
// blocking ones).
const TagNeighbor = 1<<28 | 1<<27

// Errors of communicator construction, beside the core's.
var (
	// ErrLeaderArgs: the leader of the local group was given bad
	// arguments (an intercommunicator's construction).
	ErrLeaderArgs = errors.New("the leader's arguments are wrong")
	// ErrNotDisjoint: the two groups of an intercommunicator share a
	// process.
	ErrNotDisjoint = errors.New("the two groups are not disjoint")
	// ErrBadMessage: a construction message of another process is not
	// what the protocol says.
	ErrBadMessage = errors.New("bad construction message")
)

// Comm is a communicator as this layer sees it.
type Comm struct {
	Context uint32
	Group   []int // communicator rank → world rank
	Rank    int   // this process's rank in it
}

// Layer allocates the context ids of one process.
type Layer struct {
	e    *core.Engine
	mu   sync.Mutex // held across an agreement: one at a time
	next uint32     // the lowest id this process has not used
}

// New starts the layer over the process's engine.
func New(e *core.Engine) *Layer { return &Layer{e: e, next: firstFree} }

// Drop forgets what is still queued on a freed communicator's contexts.
func (l *Layer) Drop(c uint32) {
	l.e.DropContext(c)
	l.e.DropContext(Hidden(c))
}

// wait waits for a request of the layer's and returns its error.
func (l *Layer) wait(r *core.Request) error {
	if err := l.e.Wait(context.Background(), r); err != nil {
		return err
	}
	return r.Status().Err
}

// Exchange is the library's own all-gather over c: each process
// contributes the same number of int32s and gets everyone's, in rank
// order. It runs on c's hidden context.
func (l *Layer) Exchange(c Comm, mine []int32) ([]int32, error) {
	return l.exchange(c, Hidden(c.Context), tagGather, tagTable, mine)
}

// exchange is Exchange on the context hidden with tags tg (to rank 0)
// and tt (its answer).
func (l *Layer) exchange(c Comm, hidden uint32, tg, tt int, mine []int32) ([]int32, error) {
	e := l.e
	n := len(c.Group)
	per := len(mine) * 4
	all := make([]byte, n*per)
	enc := all[c.Rank*per : (c.Rank+1)*per]
	for i, v := range mine {
		binary.LittleEndian.PutUint32(enc[i*4:], uint32(v))
	}
	var err error
	if c.Rank == 0 {
		for src := 1; src < n && err == nil; src++ {
			r := e.NewRecv(all[src*per:(src+1)*per], src, tg, hidden)
			e.Start(r)
			err = l.wait(r)
		}
		for dst := 1; dst < n && err == nil; dst++ {
			r := e.NewSend(all, c.Group[dst], dst, 0, tt, hidden, core.Standard)
			e.Start(r)
			err = l.wait(r)
		}
	} else {
		r := e.NewSend(enc, c.Group[0], 0, c.Rank, tg, hidden, core.Standard)
		e.Start(r)
		if err = l.wait(r); err == nil {
			r = e.NewRecv(all, 0, tt, hidden)
			e.Start(r)
			err = l.wait(r)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("communicator setup: %w", err)
	}
	return decode32(all), nil
}

// Agree picks a context id free for every member of c (for a new
// intracommunicator): each proposes its next free id and the largest
// wins. extra values ride along (Split's color and key) and come back
// gathered, with each process's proposal first: the result holds
// 1+len(extra) values per process.
func (l *Layer) Agree(c Comm, extra ...int32) (uint32, []int32, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	mine := append([]int32{int32(l.next)}, extra...)
	all, err := l.Exchange(c, mine)
	if err != nil {
		return 0, nil, err
	}
	best := uint32(0)
	for i := 0; i < len(all); i += len(mine) {
		best = max(best, uint32(all[i]))
	}
	l.next = best + IntraIDs
	return best, all, nil
}

func encode32(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func decode32(b []byte) []int32 {
	v := make([]int32, len(b)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
