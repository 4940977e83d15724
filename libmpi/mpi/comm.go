package mpi

import "github.com/lamgo/lam/libmpi/internal/topo"

// Comm is a communicator.
type Comm struct {
	name    string
	context uint32 // point-to-point context id
	group   []int  // communicator rank → world rank
	rank    int    // this process's rank in it
	errh    *Errhandler
	ready   bool
	cs      collState  // collectives (coll.go)
	inter   *interInfo // nil for an intracommunicator (intercomm.go)
	topo    *topo.Topo // nil without a virtual topology (topo.go)

	attrs attrSet // cached attributes (attr.go)
}

func (c *Comm) init(context uint32, group []int, rank int) {
	c.context, c.group, c.rank, c.ready = context, group, rank, true
	if c.errh == nil {
		c.errh = ErrorsAreFatal
	}
}

// Rank is this process's rank in the communicator.
func (c *Comm) Rank() int {
	if c == nil {
		return -1
	}
	return c.rank
}

// Size is the number of processes in the communicator.
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return len(c.group)
}

// Name is the communicator's name.
func (c *Comm) Name() string { return c.name }

// check validates the communicator itself. Errors about an invalid
// communicator go to World's error handler, as MPI says.
func (c *Comm) check() error {
	if c == nil || !c.ready {
		return errorf(ErrComm, "invalid communicator (nil, or MPI not initialised)")
	}
	return nil
}

// peer validates a destination or source rank (of the remote group, on an
// intercommunicator) and returns its world rank (or the wildcard or
// ProcNull unchanged).
func (c *Comm) peer(rank int, wildcard bool) (int, error) {
	switch {
	case rank == ProcNull:
		return ProcNull, nil
	case wildcard && rank == AnySource:
		return AnySource, nil
	case c.inter != nil && (rank < 0 || rank >= len(c.inter.remote)):
		return 0, errorf(ErrRank, "rank %d is not in the remote group of %s (size %d)", rank, c.name, len(c.inter.remote))
	case c.inter != nil:
		return c.inter.remote[rank], nil
	case rank < 0 || rank >= len(c.group):
		return 0, errorf(ErrRank, "rank %d is not in %s (size %d)", rank, c.name, len(c.group))
	}
	return c.group[rank], nil
}

func checkTag(tag int, wildcard bool) error {
	if (wildcard && tag == AnyTag) || (tag >= 0 && tag <= TagUB) {
		return nil
	}
	return errorf(ErrTag, "invalid tag %d", tag)
}
