package smp

import "github.com/lamgo/lam/libmpi/coll"

// The small Gather and Scatter at coll_base_check=1 (coll.Comm.SendsCall)
// and 0 (up to coll_base_small bytes) whose root leads its node go
// through the hierarchy: every message is
// a process's call and block (a unit), and each node's units travel
// between the nodes together, in one message between the root and the
// node's leader, so that a message crosses the network once per node
// instead of once per process (2×2 hosts: one message over tcp per call
// instead of two). Inside the nodes they go point to point. A leader on
// the way passes on what it received, each unit with its sender's call
// in front, and the process that takes the block (a Gather's root, a
// Scatter's process) compares that call with its own and returns the
// error, as under lam_basic. One difference: a Scatter's leader whose own
// call differs cannot tell where its processes' units lie, so they get
// the error too (the root's call merged with the leader's), as smp's
// Bcast's processes behind such a leader do. At level 0 the units are
// the blocks alone. Other roots, larger blocks and level 2 are
// lam_basic's.

// calls says whether the units carry calls: cs is coll.CallSize at
// coll_base_check=1, 0 at 0 (the units are the blocks).
type calls struct {
	c  *coll.Comm
	cs int
}

func (k calls) put(m []byte) {
	if k.cs > 0 {
		k.c.PutCall(m)
	}
}

// judge compares the call in front of m with this process's (ok: the
// message had the size and tag expected); at level 0 there is none.
func (k calls) judge(m []byte, ok bool) error {
	if k.cs == 0 {
		return nil
	}
	return k.c.JudgeCall(m, ok)
}

// hierarchical reports whether a small rooted call of bytes bytes per
// process (a Scatter: its n blocks) goes through the
// hierarchy, and with calls or not: at coll_base_check=1 when it sends
// its call (coll.Comm.SendsCall), at 0 up to coll_base_small bytes, as
// lam_basic's senders that return at once (and the flow control that
// bounds them) are; its root must lead its node.
func hierarchical(c *coll.Comm, d *data, root, bytes int) (calls, bool) {
	if root < 0 || root >= c.Size() || !d.leads(root) {
		return calls{}, false
	}
	if c.SendsCall() {
		return calls{c, coll.CallSize}, true
	}
	_, carried := c.Carry()
	return calls{c, 0}, !c.Params.Check && !carried && bytes >= 0 && bytes <= c.Params.Small
}

func gather(c *coll.Comm, send, recv []byte, root int) error {
	d := c.Data.(*data)
	bs := len(send)
	if c.Rank() == root {
		bs = len(recv) / c.Size()
	}
	k, ok := hierarchical(c, d, root, bs)
	if !ok {
		return d.basic.Gather(c, send, recv, root)
	}
	r := c.Rank()
	l, b := d.local, d.bridge
	rn := d.node[root]
	if r == root {
		return gatherRoot(c, d, k, send, recv)
	}
	u := k.cs + bs
	if !d.leads(r) {
		m := c.Scratch(coll.ScratchCall, u)
		k.put(m)
		copy(m[k.cs:], send)
		return c.Sub(l, coll.Gather, 0, func(*coll.Actions) error { return l.Send(m, 0) })
	}
	// A leader of another node: its own unit first, then its members'.
	all := c.Scratch(coll.ScratchWindow, d.size[d.me]*u)
	k.put(all)
	copy(all[k.cs:u], send)
	if err := c.Sub(l, coll.Gather, 0, func(*coll.Actions) error { return recvUnits(l, all, u, k.cs) }); err != nil {
		return err
	}
	return c.Sub(b, coll.Gather, rn, func(*coll.Actions) error { return b.Send(all, rn) })
}

// recvUnits receives units 1.. of all from the local communicator's
// processes 1.. as they come: a unit of another size keeps its call in
// front, which the root compares.
func recvUnits(l *coll.Comm, all []byte, u, cs int) error {
	for j := 1; j*u < len(all); j++ {
		m := all[j*u : (j+1)*u]
		clear(m[:cs]) // a message shorter than a call leaves none
		if _, err := l.RecvAny(m, j); err != nil {
			return err
		}
	}
	return nil
}

// gatherRoot: the root receives each other node's units from its leader
// and its own node's from their processes, compares every call with its
// own and takes the blocks of those that agree.
func gatherRoot(c *coll.Comm, d *data, k calls, send, recv []byte) error {
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	u := k.cs + bs
	if send != nil {
		copy(recv[r*bs:(r+1)*bs], send[:bs])
	}
	l, b := d.local, d.bridge
	var first error
	take := func(m []byte, ok bool, rank int) {
		if err := k.judge(m, ok); err != nil {
			if first == nil {
				first = err
			}
			return
		}
		copy(recv[rank*bs:(rank+1)*bs], m[k.cs:])
	}
	for node, members := range d.members {
		if node == d.me {
			continue
		}
		all := c.Scratch(coll.ScratchWindow, len(members)*u)
		var ok bool
		if err := c.Sub(b, coll.Gather, d.me, func(*coll.Actions) error {
			var err error
			ok, err = b.RecvAny(all, node)
			return err
		}); err != nil {
			return err
		}
		for i, m := range members {
			take(all[i*u:(i+1)*u], ok, m)
		}
	}
	m := c.Scratch(coll.ScratchCall2, u)
	for j, rank := range d.members[d.me] {
		if j == 0 {
			continue
		}
		clear(m[:k.cs])
		var ok bool
		if err := c.Sub(l, coll.Gather, 0, func(*coll.Actions) error {
			var err error
			ok, err = l.RecvAny(m, j)
			return err
		}); err != nil {
			return err
		}
		take(m, ok, rank)
	}
	return first
}

func scatter(c *coll.Comm, send, recv []byte, root int) error {
	d := c.Data.(*data)
	bytes := c.Size() * len(recv)
	if c.Rank() == root {
		bytes = len(send)
	}
	k, ok := hierarchical(c, d, root, bytes)
	if !ok {
		return d.basic.Scatter(c, send, recv, root)
	}
	r := c.Rank()
	l, b := d.local, d.bridge
	rn := d.node[root]
	if r == root {
		return scatterRoot(c, d, k, send, recv)
	}
	u := k.cs + len(recv)
	if !d.leads(r) {
		m := c.Scratch(coll.ScratchCall, u)
		clear(m[:k.cs])
		var ok bool
		if err := c.Sub(l, coll.Scatter, 0, func(*coll.Actions) error {
			var err error
			ok, err = l.RecvAny(m, 0)
			return err
		}); err != nil {
			return err
		}
		if err := k.judge(m, ok); err != nil {
			return err
		}
		copy(recv, m[k.cs:])
		return nil
	}
	// A leader of another node: its node's units from the root, its own
	// first; it passes on the others as they came, then compares.
	all := c.Scratch(coll.ScratchWindow, d.size[d.me]*u)
	clear(all[:k.cs])
	if err := c.Sub(b, coll.Scatter, rn, func(*coll.Actions) error {
		var err error
		ok, err = b.RecvAny(all, rn)
		return err
	}); err != nil {
		return err
	}
	var merged []byte
	if !ok && k.cs > 0 {
		// The units are not where this leader's call puts them: its
		// processes get, with whatever lies there, the root's call merged
		// with the leader's, which differs from theirs whatever they
		// called, and so return the error that says how.
		merged = c.Scratch(coll.ScratchCall2, coll.CallSize)
		c.PutCall(merged)
		coll.CallOp().Apply(all[:coll.CallSize], merged)
	}
	if err := c.Sub(l, coll.Scatter, 0, func(*coll.Actions) error {
		for j := 1; j*u < len(all); j++ {
			if merged != nil {
				copy(all[j*u:], merged)
			}
			if err := l.Send(all[j*u:(j+1)*u], j); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := k.judge(all[:u], ok); err != nil {
		return err
	}
	copy(recv, all[k.cs:u])
	return nil
}

// scatterRoot: the root sends each other node's units to its leader,
// then each of its own node's processes its unit.
func scatterRoot(c *coll.Comm, d *data, k calls, send, recv []byte) error {
	n, r := c.Size(), c.Rank()
	bs := len(send) / n
	u := k.cs + bs
	l, b := d.local, d.bridge
	all := c.Scratch(coll.ScratchWindow, n*u)
	k.put(all)
	call := all[:k.cs]
	// Units in node order: node k's from start[k] on.
	at := 0
	unit := func(rank int) []byte {
		m := all[at : at+u]
		at += u
		if at > u { // the first unit holds the call already
			copy(m, call)
		}
		copy(m[k.cs:], send[rank*bs:(rank+1)*bs])
		return m
	}
	own := unit(r)
	for node, members := range d.members {
		if node == d.me {
			continue
		}
		from := at
		for _, m := range members {
			unit(m)
		}
		if err := c.Sub(b, coll.Scatter, d.me, func(*coll.Actions) error { return b.Send(all[from:at], node) }); err != nil {
			return err
		}
	}
	for j, rank := range d.members[d.me] {
		if j == 0 {
			continue
		}
		m := unit(rank)
		if err := c.Sub(l, coll.Scatter, 0, func(*coll.Actions) error { return l.Send(m, j) }); err != nil {
			return err
		}
	}
	if recv != nil {
		copy(recv, own[k.cs:])
	}
	return nil
}
