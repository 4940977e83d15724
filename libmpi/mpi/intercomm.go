package mpi

import (
	"errors"
	"fmt"
	"slices"

	"github.com/lamgo/lam/libmpi/internal/comm"
)

// Intercommunicators join two disjoint groups: a process's rank is in its
// own (local) group, and the ranks it sends to and receives from are in
// the other (remote) group. The communicator layer (internal/comm) says
// which context ids one takes and how they are agreed.

// interInfo is what an intercommunicator adds to a communicator.
type interInfo struct {
	remote []int // the remote group, in world ranks
	local  *Comm // the local group's hidden intracommunicator
}

// newInter makes an intercommunicator with context id ctx.
func newInter(name string, ctx uint32, local *Comm, remote []int) *Comm {
	ic := &Comm{name: name, errh: local.Errhandler()}
	ic.init(ctx, slices.Clone(local.group), local.rank)
	lc := &Comm{name: name + " (local group)", errh: ErrorsReturn}
	lc.init(comm.LocalGroup(ctx), slices.Clone(local.group), local.rank)
	ic.inter = &interInfo{remote: remote, local: lc}
	lc.setupColl()
	ic.setupColl()
	return ic
}

// IntercommCreate makes an intercommunicator between the group of local
// and another, disjoint group (MPI_Intercomm_create). Collective over
// local and the other group's communicator: localLeader is the rank in
// local of this group's leader, and the two leaders talk through peer
// (which both belong to; it matters at the leaders only), where the other
// leader is remoteLeader, with messages tagged tag.
func IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	if err := local.check(); err != nil {
		return nil, World.fail(err)
	}
	if local.inter != nil {
		return nil, local.fail(errorf(ErrComm, "IntercommCreate: the local communicator is an intercommunicator"))
	}
	if localLeader < 0 || localLeader >= len(local.group) {
		return nil, local.fail(errorf(ErrRank, "IntercommCreate: local leader %d is not in %s (size %d)", localLeader, local.name, len(local.group)))
	}
	leader := local.rank == localLeader
	var bad *Error
	if leader {
		switch {
		case peer.check() != nil:
			bad = errorf(ErrComm, "IntercommCreate: invalid peer communicator")
		case peer.inter != nil:
			bad = errorf(ErrComm, "IntercommCreate: the peer communicator is an intercommunicator")
		case remoteLeader < 0 || remoteLeader >= len(peer.group):
			bad = errorf(ErrRank, "IntercommCreate: remote leader %d is not in %s (size %d)", remoteLeader, peer.name, len(peer.group))
		case peer.group[remoteLeader] == st.rank:
			bad = errorf(ErrRank, "IntercommCreate: the remote leader is this process")
		case checkTag(tag, false) != nil:
			bad = errorf(ErrTag, "IntercommCreate: invalid tag %d", tag)
		}
	}
	var leaders comm.Leaders
	if leader && bad == nil {
		leaders = comm.Leaders{Peer: peer.view(), RemoteLeader: remoteLeader, Tag: tag}
	}
	best, rg, err := st.comms.InterCreate(local.view(), localLeader, leaders, bad != nil, len(st.nodes))
	switch {
	case bad != nil:
		return nil, local.fail(bad)
	case errors.Is(err, comm.ErrLeaderArgs):
		return nil, local.fail(errorf(ErrArg, "IntercommCreate: %w", err))
	case errors.Is(err, comm.ErrNotDisjoint):
		return nil, local.fail(errorf(ErrComm, "IntercommCreate: %w", err))
	case err != nil:
		return nil, local.fail(fromCore(err))
	}
	return newInter("intercomm", best, local, rg), nil
}

// interAgree agrees on context ids free in both groups of the
// intercommunicator c and swaps extra with the other group; it reserves
// n ids.
func (c *Comm) interAgree(extra int32, n uint32) (best uint32, localExtras []int32, remoteExtra int32, err error) {
	best, localExtras, remoteExtra, err = st.comms.InterAgree(c.view(), c.inter.local.view(), c.inter.remote, extra, n)
	if err != nil {
		return 0, nil, 0, fromCore(err)
	}
	return best, localExtras, remoteExtra, nil
}

func (c *Comm) interDup() (*Comm, error) {
	best, _, _, err := c.interAgree(0, comm.InterIDs)
	if err != nil {
		return nil, c.fail(err)
	}
	return newInter(c.name+" (dup)", best, c.inter.local, slices.Clone(c.inter.remote)), nil
}

// Merge makes an intracommunicator of both groups of an
// intercommunicator (MPI_Intercomm_merge): the group whose processes pass
// high=false comes first; when both pass the same, the group of the
// process with the lower world rank among the two leaders does. Every
// process of a group must pass the same high.
func (c *Comm) Merge(high bool) (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	if c.inter == nil {
		return nil, c.fail(errorf(ErrComm, "Merge of an intracommunicator"))
	}
	h := int32(0)
	if high {
		h = 1
	}
	best, mine, theirs, err := c.interAgree(h, comm.IntraIDs)
	if err != nil {
		return nil, c.fail(err)
	}
	for _, x := range mine {
		if x != h {
			return nil, c.fail(errorf(ErrArg, "Merge: the processes of a group passed different high values"))
		}
	}
	localFirst := h < theirs || h == theirs && c.group[0] < c.inter.remote[0]
	group := append(slices.Clone(c.group), c.inter.remote...)
	if !localFirst {
		group = append(slices.Clone(c.inter.remote), c.group...)
	}
	return c.derive(c.name+" (merged)", best, group), nil
}

// TestInter reports whether c is an intercommunicator
// (MPI_Comm_test_inter).
func (c *Comm) TestInter() bool { return c != nil && c.inter != nil }

// RemoteSize is the size of an intercommunicator's remote group
// (MPI_Comm_remote_size); an intracommunicator has none (ErrComm).
func (c *Comm) RemoteSize() (int, error) {
	if err := c.check(); err != nil {
		return 0, World.fail(err)
	}
	if c.inter == nil {
		return 0, c.fail(errorf(ErrComm, "%s is not an intercommunicator", c.name))
	}
	return len(c.inter.remote), nil
}

// RemoteGroup is an intercommunicator's remote group
// (MPI_Comm_remote_group); an intracommunicator has none (ErrComm).
func (c *Comm) RemoteGroup() (*Group, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	if c.inter == nil {
		return nil, c.fail(errorf(ErrComm, "%s is not an intercommunicator", c.name))
	}
	return &Group{ranks: slices.Clone(c.inter.remote)}, nil
}

func (i *interInfo) String() string { return fmt.Sprintf("remote group %v", i.remote) }
