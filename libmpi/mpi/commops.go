package mpi

import (
	"slices"
	"sort"

	"github.com/lamgo/lam/libmpi/internal/comm"
)

// view is the communicator as the communicator layer sees it.
func (c *Comm) view() comm.Comm { return comm.Comm{Context: c.context, Group: c.group, Rank: c.rank} }

// agreeContext picks a context id free for every member of c; extra
// values ride along (Split's color and key) and come back gathered.
func (c *Comm) agreeContext(extra ...int32) (uint32, []int32, error) {
	ctx, all, err := st.comms.Agree(c.view(), extra...)
	if err != nil {
		return 0, nil, fromCore(err)
	}
	return ctx, all, nil
}

// derive makes an intracommunicator of c's making, with its coll module
// set up (every process of group calls it).
func (c *Comm) derive(name string, ctx uint32, group []int) *Comm {
	n := &Comm{name: name, errh: c.Errhandler()}
	rank := Undefined
	for i, w := range group {
		if w == st.rank {
			rank = i
		}
	}
	n.init(ctx, group, rank)
	n.setupColl()
	return n
}

// Dup duplicates the communicator: same group, new context
// (MPI_Comm_dup). Collective over c.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.inter != nil {
		return c.dupAttrs(c.interDup())
	}
	ctx, _, err := c.agreeContext()
	if err != nil {
		return nil, c.fail(err)
	}
	d := c.derive(c.name+" (dup)", ctx, append([]int(nil), c.group...))
	d.topo = c.topo // immutable: shared
	return c.dupAttrs(d, nil)
}

// Split partitions the communicator by color, ordering each part by key
// then by rank in c (MPI_Comm_split). A process with color Undefined gets
// nil. Collective over c.
func (c *Comm) Split(color, key int) (*Comm, error) {
	return c.split(color, key, c.name+" (split)")
}

// split is Split, naming the new communicator name.
func (c *Comm) split(color, key int, name string) (*Comm, error) {
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
	return c.derive(name, ctx, group), nil
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
	if err := c.holds(g); err != nil {
		return nil, c.fail(err)
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
	if err := c.deleteAttrs(); err != nil {
		return c.fail(err)
	}
	c.release() // the coll module, an intercommunicator's local group
	c.ready = false
	st.comms.Drop(c.context)
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

// holds checks that every process of g is in c's group (Create,
// CreateGroup).
func (c *Comm) holds(g *Group) error {
	for _, w := range g.ranks {
		if !slices.Contains(c.group, w) {
			return errorf(ErrGroup, "the group holds a process that is not in %s", c.name)
		}
	}
	return nil
}
