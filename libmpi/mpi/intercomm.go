package mpi

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// Intercommunicators join two disjoint groups: a process's rank is in its
// own (local) group, and the ranks it sends to and receives from are in
// the other (remote) group.
//
// An intercommunicator with context id c uses c for point-to-point
// traffic, c+1 for its collectives and construction messages, and c+2 and
// c+3 for a hidden intracommunicator of its local group (which the
// collectives use); so it takes four ids, agreed by both groups.

// interInfo is what an intercommunicator adds to a communicator.
type interInfo struct {
	remote []int // the remote group, in world ranks
	local  *Comm // the local group's hidden intracommunicator
}

// Construction messages on hidden contexts use tags above sysExchange's.
const (
	tagInterHeader = 2
	tagInterBody   = 3
)

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

// rawSend sends int32s on context ctx to world rank w (rank dest there),
// as rank me.
func rawSend(ctx uint32, w, dest, me, tag int, v []int32) error {
	e, err := engine()
	if err != nil {
		return err
	}
	r := e.NewSend(encode32(v), w, dest, me, tag, ctx, core.Standard)
	e.Start(r)
	if err := e.Wait(context.Background(), r); err != nil {
		return errorf(ErrOther, "%v", err)
	}
	return fromCore(r.Status().Err)
}

// rawRecv receives exactly n int32s on context ctx from rank src.
func rawRecv(ctx uint32, src, tag, n int) ([]int32, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4*n)
	r := e.NewRecv(b, src, tag, ctx)
	e.Start(r)
	if err := e.Wait(context.Background(), r); err != nil {
		return nil, errorf(ErrOther, "%v", err)
	}
	if s := r.Status(); s.Err != nil || s.Count != len(b) {
		return nil, errorf(ErrOther, "bad construction message from rank %d (%d bytes, want %d): %v", src, s.Count, len(b), s.Err)
	}
	return decode32(b), nil
}

// sendList sends a header and a list, so the receiver can size it (with
// tags th and tb).
func sendList(ctx uint32, w, dest, me, th, tb int, head, list []int32) error {
	if err := rawSend(ctx, w, dest, me, th, append([]int32{int32(len(list))}, head...)); err != nil {
		return err
	}
	return rawSend(ctx, w, dest, me, tb, list)
}

func recvList(ctx uint32, src, th, tb, nhead int) (head, list []int32, err error) {
	h, err := rawRecv(ctx, src, th, 1+nhead)
	if err != nil {
		return nil, nil, err
	}
	if h[0] < 0 || h[0] > 1<<24 {
		return nil, nil, errorf(ErrOther, "bad construction message from rank %d: a list of %d", src, h[0])
	}
	list, err = rawRecv(ctx, src, tb, int(h[0]))
	return h[1:], list, err
}

// sysBcast sends the leader's head (of nhead values) and list to every
// process of the intracommunicator c, on its hidden context.
func (c *Comm) sysBcast(leader, nhead int, head, list []int32) ([]int32, []int32, error) {
	if c.rank != leader {
		return recvList(c.context+1, leader, tagInterHeader, tagInterBody, nhead)
	}
	for r, w := range c.group {
		if r != leader {
			if err := sendList(c.context+1, w, r, c.rank, tagInterHeader, tagInterBody, head, list); err != nil {
				return nil, nil, err
			}
		}
	}
	return head, list, nil
}

func worlds(g []int) []int32 {
	out := make([]int32, len(g))
	for i, w := range g {
		out[i] = int32(w)
	}
	return out
}

// newInter makes an intercommunicator with context ids ctx..ctx+3.
func newInter(name string, ctx uint32, local *Comm, remote []int) *Comm {
	ic := &Comm{name: name, errh: local.Errhandler()}
	ic.init(ctx, slices.Clone(local.group), local.rank)
	lc := &Comm{name: name + " (local group)", errh: ErrorsReturn}
	lc.init(ctx+2, slices.Clone(local.group), local.rank)
	ic.inter = &interInfo{remote: remote, local: lc}
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
	contexts.mu.Lock()
	defer contexts.mu.Unlock()
	flag := int32(0)
	if bad != nil {
		flag = 1
	}
	// Every process of this group learns the group's largest next free
	// id, and whether the leader's arguments are wrong.
	all, err := local.sysExchange([]int32{int32(contexts.next), flag})
	if err != nil {
		return nil, local.fail(err)
	}
	mine := int32(0)
	for i := 0; i < len(all); i += 2 {
		mine = max(mine, all[i])
		if all[i+1] != 0 && bad == nil {
			bad = errorf(ErrArg, "IntercommCreate: the leader's arguments are wrong")
		}
	}
	if bad != nil {
		return nil, local.fail(bad)
	}
	// The leaders swap their groups and ids through peer, then tell their
	// groups.
	var head, remote []int32
	if leader {
		// Both leaders send first: the sends must not wait for the
		// receives (a long list goes by rendezvous).
		e := st.engine
		w := peer.group[remoteLeader]
		hs := e.NewSend(encode32([]int32{int32(len(local.group)), mine}), w, remoteLeader, peer.rank, tag, peer.context, core.Standard)
		ls := e.NewSend(encode32(worlds(local.group)), w, remoteLeader, peer.rank, tag, peer.context, core.Standard)
		e.Start(hs)
		e.Start(ls)
		rh, rl, err := recvList(peer.context, remoteLeader, tag, tag, 1)
		for _, r := range []*core.Request{hs, ls} {
			if werr := e.Wait(context.Background(), r); werr != nil && err == nil {
				err = errorf(ErrOther, "%v", werr)
			} else if r.Status().Err != nil && err == nil {
				err = fromCore(r.Status().Err)
			}
		}
		if err != nil {
			return nil, local.fail(err)
		}
		overlap := int32(0)
		for _, x := range rl {
			if x < 0 || int(x) >= len(st.nodes) || slices.Contains(local.group, int(x)) {
				overlap = 1
			}
		}
		head, remote = []int32{max(mine, rh[0]), overlap}, rl
	}
	head, remote, err = local.sysBcast(localLeader, 2, head, remote)
	if err != nil {
		return nil, local.fail(err)
	}
	if head[1] != 0 {
		return nil, local.fail(errorf(ErrComm, "IntercommCreate: the two groups are not disjoint"))
	}
	best := uint32(head[0])
	contexts.next = max(contexts.next, best+4)
	rg := make([]int, len(remote))
	for i, x := range remote {
		rg[i] = int(x)
	}
	return newInter("intercomm", best, local, rg), nil
}

// interAgree agrees on context ids free in both groups of the
// intercommunicator c and swaps extra with the other group; it reserves
// ids for n ids.
func (c *Comm) interAgree(extra int32, n uint32) (best uint32, localExtras []int32, remoteExtra int32, err error) {
	contexts.mu.Lock()
	defer contexts.mu.Unlock()
	l := c.inter.local
	all, err := l.sysExchange([]int32{int32(contexts.next), extra})
	if err != nil {
		return 0, nil, 0, err
	}
	mine := int32(0)
	for i := 0; i < len(all); i += 2 {
		mine = max(mine, all[i])
		localExtras = append(localExtras, all[i+1])
	}
	var head []int32
	if l.rank == 0 {
		if err := rawSend(c.context+1, c.inter.remote[0], 0, 0, tagInterHeader, []int32{mine, extra}); err != nil {
			return 0, nil, 0, err
		}
		r, err := rawRecv(c.context+1, 0, tagInterHeader, 2)
		if err != nil {
			return 0, nil, 0, err
		}
		head = []int32{max(mine, r[0]), r[1]}
	}
	head, _, err = l.sysBcast(0, 2, head, nil)
	if err != nil {
		return 0, nil, 0, err
	}
	best = uint32(head[0])
	contexts.next = max(contexts.next, best+n)
	return best, localExtras, head[1], nil
}

func (c *Comm) interDup() (*Comm, error) {
	best, _, _, err := c.interAgree(0, 4)
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
	best, mine, theirs, err := c.interAgree(h, 2)
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
