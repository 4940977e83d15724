package smp

import (
	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/basic"
)

// smp's nonblocking collectives: Ibarrier, Ibcast, Ireduce and Iallreduce
// are the hierarchical algorithms of smp.go as schedules (coll.Schedule),
// on views of the node's local communicator and of the leaders' bridge
// that share the collective's schedule and tag; the phases follow each
// other as the blocking ones do (on the node, over the bridge, on the
// node). Reductions are regrouped by node under the same rule (regroup);
// otherwise, and for the other collectives, lam_basic's schedules run.

// NonblockingActions returns smp's schedules (coll.Nonblocking).
func (Module) NonblockingActions(*coll.Comm) *coll.Actions {
	return &coll.Actions{
		Barrier:   nbBarrier,
		Bcast:     nbBcast,
		Reduce:    nbReduce,
		Allreduce: nbAllreduce,
	}
}

// views returns the views of the local and bridge communicators (nil on
// a process that is not a leader) on c's schedule.
func views(c *coll.Comm) (d *data, l, b *coll.Comm, err error) {
	d = c.Data.(*data)
	if l, err = c.View(d.local); err != nil {
		return nil, nil, nil, err
	}
	if b, err = c.View(d.bridge); err != nil {
		return nil, nil, nil, err
	}
	return d, l, b, nil
}

func nbBarrier(c *coll.Comm) error {
	_, l, b, err := views(c)
	if err != nil {
		return err
	}
	if err := l.Actions().Gather(l, nil, nil, 0); err != nil {
		return err
	}
	if b != nil {
		if err := b.Actions().Barrier(b); err != nil {
			return err
		}
	}
	return l.Actions().Bcast(l, nil, 0)
}

func nbBcast(c *coll.Comm, buf []byte, root int) error {
	if c.SendsCall() { // coll_base_check=1, small: lam_basic's, the call in front
		return basic.NonblockingFunctions(c).Bcast(c, buf, root)
	}
	d, l, b, err := views(c)
	if err != nil {
		return err
	}
	rn := d.node[root]
	overBridge := func() error {
		if b == nil {
			return nil
		}
		return b.Actions().Bcast(b, buf, rn)
	}
	onNode := func(from int) error { return l.Actions().Bcast(l, buf, from) }
	first, then := overBridge, func() error { return onNode(0) }
	if d.me == rn && !d.leads(root) {
		first, then = func() error { return onNode(d.lrank[root]) }, overBridge
	}
	if err := first(); err != nil {
		return err
	}
	return then()
}

func nbReduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	d, l, b, err := views(c)
	if err != nil {
		return err
	}
	if !d.regroup(c, op) {
		return basic.NonblockingFunctions(c).Reduce(c, send, recv, op, root)
	}
	if c.SendsCall() {
		return nbReduceSent(c, d, l, b, send, recv, op, root)
	}
	return nbReduceTree(c, d, l, b, send, recv, op, root)
}

// nbReduceSent is the small Ireduce at coll_base_check=1 when op may be
// regrouped: every process's call goes in front of its contribution,
// and the messages are reduced whole through the hierarchy
// (coll.WithCall merges the calls on their way); the root compares the
// merged call with its own and takes the data when they agree. As
// lam_basic's (which runs when op may not be regrouped), the others
// only send.
func nbReduceSent(c *coll.Comm, d *data, l, b *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	return c.ReduceSent(send, recv, op, root, func(m, out []byte, op *coll.Op) error {
		return nbReduceTree(c, d, l, b, m, out, op, root)
	})
}

// nbReduceTree reduces on each node, then over the bridge to the root's
// node (op may be regrouped).
func nbReduceTree(c *coll.Comm, d *data, l, b *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	r := c.Rank()
	mine := send
	if mine == nil {
		mine = recv // in place at the root
	}
	rn := d.node[root]
	var part []byte
	if d.leads(r) {
		part = coll.Buffer(len(mine))
	}
	if err := l.Actions().Reduce(l, mine, part, op, 0); err != nil {
		return err
	}
	s := c.Schedule()
	if d.leads(r) {
		out := part // the root's leader reduces into a buffer of its own
		if r == root {
			out = recv
		} else if d.me == rn {
			out = coll.Buffer(len(mine))
		}
		if err := b.Actions().Reduce(b, part, out, op, rn); err != nil {
			return err
		}
		if d.me == rn && r != root {
			s.Next()
			s.Send(l, out, d.lrank[root])
		}
		return nil
	}
	if r == root {
		s.Next()
		s.Recv(l, recv[:len(mine)], 0)
	}
	return nil
}

func nbAllreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	d, l, b, err := views(c)
	if err != nil {
		return err
	}
	if !d.regroup(c, op) {
		return basic.NonblockingFunctions(c).Allreduce(c, send, recv, op)
	}
	if c.SendsCall() {
		// The small Iallreduce at coll_base_check=1: the messages of
		// call and data are reduced whole (coll.WithCall), and every
		// process compares the merged call it gets with its own.
		mine := send
		if mine == nil {
			mine = recv
		}
		m := c.SentMessage(mine[:len(recv)])
		out := c.Scratch(coll.ScratchCall2, len(m))
		if err := nbAllreduceTree(c, d, l, b, m, out, coll.WithCall(op, len(recv))); err != nil {
			return err
		}
		c.Schedule().Next()
		c.JudgeStep(out, recv)
		return nil
	}
	return nbAllreduceTree(c, d, l, b, send, recv, op)
}

// nbAllreduceTree reduces on each node, allreduces over the bridge and
// broadcasts on each node (op may be regrouped).
func nbAllreduceTree(c *coll.Comm, d *data, l, b *coll.Comm, send, recv []byte, op *coll.Op) error {
	s := c.Schedule()
	mine := send
	if mine == nil {
		mine = coll.Buffer(len(recv))
		s.Next()
		s.Copy(mine, recv)
	}
	var part []byte
	if d.leads(c.Rank()) {
		part = coll.Buffer(len(mine))
	}
	if err := l.Actions().Reduce(l, mine, part, op, 0); err != nil {
		return err
	}
	if b != nil {
		if err := b.Actions().Allreduce(b, part, recv, op); err != nil {
			return err
		}
	}
	return l.Actions().Bcast(l, recv, 0)
}
