package mpi

import (
	"context"
	"encoding/binary"
	"sort"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// Context ids: a communicator with id c uses c for point-to-point traffic
// and c+1 for the library's own collective traffic, so the two never
// match each other. World is 0, Self 2; new communicators take ids agreed
// by all their members: the largest next free id among them.
var contexts struct {
	mu   sync.Mutex
	next uint32
}

func init() { contexts.next = 4 }

// sysExchange is the library's own all-gather over the communicator: each
// process contributes the same number of int32s and gets everyone's, in
// rank order. It runs on the communicator's hidden context.
func (c *Comm) sysExchange(mine []int32) ([]int32, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	n := len(c.group)
	per := len(mine) * 4
	all := make([]byte, n*per)
	enc := all[c.rank*per : (c.rank+1)*per]
	for i, v := range mine {
		binary.LittleEndian.PutUint32(enc[i*4:], uint32(v))
	}
	ctx := context.Background()
	hidden := c.context + 1
	wait := func(r *core.Request) error {
		if err := e.Wait(ctx, r); err != nil {
			return err
		}
		return r.Status().Err
	}
	if c.rank == 0 {
		for src := 1; src < n; src++ {
			r := e.NewRecv(all[src*per:(src+1)*per], src, 0, hidden)
			e.Start(r)
			if err := wait(r); err != nil {
				return nil, errorf(ErrOther, "communicator setup: %v", err)
			}
		}
		for dst := 1; dst < n; dst++ {
			r := e.NewSend(all, c.group[dst], dst, 0, 1, hidden, core.Standard)
			e.Start(r)
			if err := wait(r); err != nil {
				return nil, errorf(ErrOther, "communicator setup: %v", err)
			}
		}
	} else {
		r := e.NewSend(enc, c.group[0], 0, c.rank, 0, hidden, core.Standard)
		e.Start(r)
		if err := wait(r); err != nil {
			return nil, errorf(ErrOther, "communicator setup: %v", err)
		}
		r = e.NewRecv(all, 0, 1, hidden)
		e.Start(r)
		if err := wait(r); err != nil {
			return nil, errorf(ErrOther, "communicator setup: %v", err)
		}
	}
	out := make([]int32, n*len(mine))
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(all[i*4:]))
	}
	return out, nil
}

// agreeContext picks a context id free for every member of c: each
// proposes its next free id and the largest wins. extra values ride along
// (Split's color and key) and come back gathered.
func (c *Comm) agreeContext(extra ...int32) (uint32, []int32, error) {
	contexts.mu.Lock()
	defer contexts.mu.Unlock()
	mine := append([]int32{int32(contexts.next)}, extra...)
	all, err := c.sysExchange(mine)
	if err != nil {
		return 0, nil, err
	}
	best := uint32(0)
	for i := 0; i < len(all); i += len(mine) {
		best = max(best, uint32(all[i]))
	}
	contexts.next = best + 2
	return best, all, nil
}

func (c *Comm) derive(name string, ctx uint32, group []int) *Comm {
	n := &Comm{name: name, errh: c.Errhandler()}
	rank := Undefined
	for i, w := range group {
		if w == st.rank {
			rank = i
		}
	}
	n.init(ctx, group, rank)
	return n
}

// Dup duplicates the communicator: same group, new context
// (MPI_Comm_dup). Collective over c.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.inter != nil {
		return c.interDup()
	}
	ctx, _, err := c.agreeContext()
	if err != nil {
		return nil, c.fail(err)
	}
	return c.derive(c.name+" (dup)", ctx, append([]int(nil), c.group...)), nil
}

// Split partitions the communicator by color, ordering each part by key
// then by rank in c (MPI_Comm_split). A process with color Undefined gets
// nil. Collective over c.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.inter != nil {
		return nil, c.fail(errorf(ErrComm, "Split of an intercommunicator is not supported"))
	}
	if color < 0 && color != Undefined {
		return nil, c.fail(errorf(ErrArg, "color %d must be non-negative or Undefined", color))
	}
	ctx, all, err := c.agreeContext(int32(color), int32(key))
	if err != nil {
		return nil, c.fail(err)
	}
	if color == Undefined {
		return nil, nil
	}
	type member struct{ key, rank int }
	var ms []member
	for r := 0; r < len(c.group); r++ {
		if int(all[r*3+1]) == color {
			ms = append(ms, member{int(all[r*3+2]), r})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].key != ms[j].key {
			return ms[i].key < ms[j].key
		}
		return ms[i].rank < ms[j].rank
	})
	group := make([]int, len(ms))
	for i, m := range ms {
		group[i] = c.group[m.rank]
	}
	return c.derive(c.name+" (split)", ctx, group), nil
}

// Create makes a communicator of the processes of g, a subgroup of c's
// group (MPI_Comm_create). Processes outside g get nil. Collective over c.
func (c *Comm) Create(g *Group) (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, c.fail(errorf(ErrGroup, "nil group"))
	}
	if c.inter != nil {
		return nil, c.fail(errorf(ErrComm, "Create on an intercommunicator is not supported"))
	}
	for _, w := range g.ranks {
		found := false
		for _, m := range c.group {
			found = found || m == w
		}
		if !found {
			return nil, c.fail(errorf(ErrGroup, "the group holds a process that is not in %s", c.name))
		}
	}
	ctx, _, err := c.agreeContext()
	if err != nil {
		return nil, c.fail(err)
	}
	if g.index(st.rank) == Undefined {
		return nil, nil
	}
	return c.derive(c.name+" (create)", ctx, append([]int(nil), g.ranks...)), nil
}

// Free releases the communicator (MPI_Comm_free): messages still queued on
// it are dropped. World and Self cannot be freed.
func (c *Comm) Free() error {
	if err := c.check(); err != nil {
		return err
	}
	if c == World || c == Self {
		return c.fail(errorf(ErrComm, "%s cannot be freed", c.name))
	}
	c.release() // the coll module, an intercommunicator's local group
	c.ready = false
	st.engine.DropContext(c.context)
	st.engine.DropContext(c.context + 1)
	return nil
}

// CommCompare compares two communicators: Ident (the same one), Congruent
// (same group, same order), Similar (same processes) or Unequal.
func CommCompare(a, b *Comm) (int, error) {
	if err := a.check(); err != nil {
		return 0, err
	}
	if err := b.check(); err != nil {
		return 0, err
	}
	if a == b {
		return Ident, nil
	}
	switch GroupCompare(&Group{ranks: a.group}, &Group{ranks: b.group}) {
	case Ident:
		return Congruent, nil
	case Similar:
		return Similar, nil
	}
	return Unequal, nil
}
