package comm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// send sends int32s on context ctx to world rank w (rank dest there), as
// rank me.
func (l *Layer) send(ctx uint32, w, dest, me, tag int, v []int32) error {
	r := l.e.NewSend(encode32(v), w, dest, me, tag, ctx, core.Standard)
	l.e.Start(r)
	return l.wait(r)
}

// recv receives exactly n int32s on context ctx from rank src.
func (l *Layer) recv(ctx uint32, src, tag, n int) ([]int32, error) {
	b := make([]byte, 4*n)
	r := l.e.NewRecv(b, src, tag, ctx)
	l.e.Start(r)
	if err := l.e.Wait(context.Background(), r); err != nil {
		return nil, err
	}
	if s := r.Status(); s.Err != nil || s.Count != len(b) {
		if s.Err == nil {
			s.Err = ErrBadMessage
		}
		return nil, fmt.Errorf("construction message from rank %d (%d bytes, want %d): %w", src, s.Count, len(b), s.Err)
	}
	return decode32(b), nil
}

// sendList sends a header (the list's length, then head) and a list, so
// the receiver can size it.
func (l *Layer) sendList(ctx uint32, w, dest, me, th, tb int, head, list []int32) error {
	if err := l.send(ctx, w, dest, me, th, append([]int32{int32(len(list))}, head...)); err != nil {
		return err
	}
	return l.send(ctx, w, dest, me, tb, list)
}

func (l *Layer) recvList(ctx uint32, src, th, tb, nhead int) (head, list []int32, err error) {
	h, err := l.recv(ctx, src, th, 1+nhead)
	if err != nil {
		return nil, nil, err
	}
	if h[0] < 0 || h[0] > 1<<24 {
		return nil, nil, fmt.Errorf("%w from rank %d: a list of %d", ErrBadMessage, src, h[0])
	}
	list, err = l.recv(ctx, src, tb, int(h[0]))
	return h[1:], list, err
}

// Bcast sends the leader's head (of nhead values) and list to every
// process of the intracommunicator c, on its hidden context.
func (l *Layer) Bcast(c Comm, leader, nhead int, head, list []int32) ([]int32, []int32, error) {
	if c.Rank != leader {
		return l.recvList(Hidden(c.Context), leader, tagHeader, tagBody, nhead)
	}
	for r, w := range c.Group {
		if r != leader {
			if err := l.sendList(Hidden(c.Context), w, r, c.Rank, tagHeader, tagBody, head, list); err != nil {
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

// Leaders is how the leaders of the two groups of a new intercommunicator
// reach each other: through Peer, a communicator both belong to, where
// the other leader is RemoteLeader, with messages tagged Tag.
type Leaders struct {
	Peer         Comm
	RemoteLeader int
	Tag          int
}

// InterCreate agrees on the context ids of a new intercommunicator between
// the group of local and another, disjoint group, and returns them (the
// first of InterIDs) with the remote group in world ranks. localLeader is
// the rank of this group's leader in local; at the leader, peer says how
// to reach the other leader, and bad whether the leader's own arguments
// are wrong (every process then fails, the others with ErrLeaderArgs).
// worldSize bounds the world ranks the other group may send.
func (l *Layer) InterCreate(local Comm, localLeader int, peer Leaders, bad bool, worldSize int) (uint32, []int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	flag := int32(0)
	if bad {
		flag = 1
	}
	// Every process of this group learns the group's largest next free
	// id, and whether the leader's arguments are wrong.
	all, err := l.Exchange(local, []int32{int32(l.next), flag})
	if err != nil {
		return 0, nil, err
	}
	mine := int32(0)
	for i := 0; i < len(all); i += 2 {
		mine = max(mine, all[i])
		if all[i+1] != 0 {
			bad = true
		}
	}
	if bad {
		return 0, nil, ErrLeaderArgs
	}
	// The leaders swap their groups and ids through peer, then tell their
	// groups.
	var head, remote []int32
	if local.Rank == localLeader {
		// Both leaders send first: the sends must not wait for the
		// receives (a long list goes by rendezvous).
		e := l.e
		p := peer.Peer
		w := p.Group[peer.RemoteLeader]
		hs := e.NewSend(encode32([]int32{int32(len(local.Group)), mine}), w, peer.RemoteLeader, p.Rank, peer.Tag, p.Context, core.Standard)
		ls := e.NewSend(encode32(worlds(local.Group)), w, peer.RemoteLeader, p.Rank, peer.Tag, p.Context, core.Standard)
		e.Start(hs)
		e.Start(ls)
		rh, rl, err := l.recvList(p.Context, peer.RemoteLeader, peer.Tag, peer.Tag, 1)
		for _, r := range []*core.Request{hs, ls} {
			err = errors.Join(err, l.wait(r))
		}
		if err != nil {
			return 0, nil, err
		}
		overlap := int32(0)
		for _, x := range rl {
			if x < 0 || int(x) >= worldSize || slices.Contains(local.Group, int(x)) {
				overlap = 1
			}
		}
		head, remote = []int32{max(mine, rh[0]), overlap}, rl
	}
	head, remote, err = l.Bcast(local, localLeader, 2, head, remote)
	if err != nil {
		return 0, nil, err
	}
	if head[1] != 0 {
		return 0, nil, ErrNotDisjoint
	}
	best := uint32(head[0])
	l.next = max(l.next, best+InterIDs)
	rg := make([]int, len(remote))
	for i, x := range remote {
		rg[i] = int(x)
	}
	return best, rg, nil
}

// InterAgree agrees on context ids free in both groups of the
// intercommunicator c (whose local group's hidden intracommunicator is
// local, and whose remote group is remote, in world ranks) and swaps extra
// with the other group; it reserves n ids. It returns the first id, the
// extras of this group's processes in rank order, and the other group's
// (its leader's).
func (l *Layer) InterAgree(c, local Comm, remote []int, extra int32, n uint32) (best uint32, localExtras []int32, remoteExtra int32, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	all, err := l.Exchange(local, []int32{int32(l.next), extra})
	if err != nil {
		return 0, nil, 0, err
	}
	mine := int32(0)
	for i := 0; i < len(all); i += 2 {
		mine = max(mine, all[i])
		localExtras = append(localExtras, all[i+1])
	}
	var head []int32
	if local.Rank == 0 {
		if err := l.send(Hidden(c.Context), remote[0], 0, 0, tagHeader, []int32{mine, extra}); err != nil {
			return 0, nil, 0, err
		}
		r, err := l.recv(Hidden(c.Context), 0, tagHeader, 2)
		if err != nil {
			return 0, nil, 0, err
		}
		head = []int32{max(mine, r[0]), r[1]}
	}
	head, _, err = l.Bcast(local, 0, 2, head, nil)
	if err != nil {
		return 0, nil, 0, err
	}
	best = uint32(head[0])
	l.next = max(l.next, best+n)
	return best, localExtras, head[1], nil
}
