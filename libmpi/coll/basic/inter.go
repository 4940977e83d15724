package basic

import "github.com/lamgo/lam/libmpi/coll"

// The intercommunicator collectives. Ranks given to Send and Recv on c are
// ranks of the remote group; each group's own phases run on its local
// intracommunicator (c.T.Local()), with whatever module it has.
var inter = coll.Actions{
	Barrier:            interBarrier,
	Bcast:              interBcast,
	Gather:             interGather,
	Gatherv:            interGatherv,
	Scatter:            interScatter,
	Scatterv:           interScatterv,
	Allgather:          interAllgather,
	Allgatherv:         interAllgatherv,
	Alltoall:           interAlltoall,
	Alltoallv:          interAlltoallv,
	Alltoallw:          interAlltoallv,
	Reduce:             interReduce,
	Allreduce:          interAllreduce,
	ReduceScatter:      interReduceScatter,
	ReduceScatterBlock: interReduceScatterBlock,
	Scan:               interUndefined,
	Exscan:             interUndefined,
}

func interUndefined(c *coll.Comm, _, _ []byte, _ *coll.Op) error {
	return coll.Errorf(coll.ErrComm, "%s: scans are defined on intracommunicators only", c.T.Name())
}

// interBarrier: each group meets on its leader, the leaders swap a
// message, and each leader releases its group.
func interBarrier(c *coll.Comm) error {
	l := c.T.Local()
	if err := c.Sub(l, coll.Barrier, 0, func(a *coll.Actions) error { return a.Gather(l, nil, nil, 0) }); err != nil {
		return err
	}
	if l.Rank() == 0 {
		if err := c.Sendrecv(nil, 0, nil, 0); err != nil {
			return err
		}
	}
	return c.Sub(l, coll.Barrier, 0, func(a *coll.Actions) error { return a.Bcast(l, nil, 0) })
}

// interBcast: the root sends to the remote leader, which broadcasts in its
// group.
func interBcast(c *coll.Comm, buf []byte, root int) error {
	l := c.T.Local()
	return toRemoteLeader(c, buf, root, buf, func() error {
		return c.Sub(l, coll.Bcast, 0, func(a *coll.Actions) error { return a.Bcast(l, buf, 0) })
	})
}

// interGather: the senders gather on their leader, which sends everything
// to the root.
func interGather(c *coll.Comm, send, recv []byte, root int) error {
	return fromRemoteLeader(c, recv, root, func() ([]byte, error) { return gatherOnLeader(c, coll.Gather, send) })
}

func interGatherv(c *coll.Comm, send []byte, recv [][]byte, root int) error {
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		b := newBatch(c, len(recv))
		for i, blk := range recv {
			b.recv(blk, i)
		}
		return b.wait()
	}
	return c.Send(send, root)
}

// interScatter: the root sends everything to the remote leader, which
// scatters it in its group.
func interScatter(c *coll.Comm, send, recv []byte, root int) error {
	l := c.T.Local()
	var all []byte
	if !inRootGroup(root) {
		all = leaderBuffer(l, l.Size()*len(recv))
	}
	return toRemoteLeader(c, send, root, all, func() error {
		return c.Sub(l, coll.Scatter, 0, func(a *coll.Actions) error { return a.Scatter(l, all, recv, 0) })
	})
}

func interScatterv(c *coll.Comm, send [][]byte, recv []byte, root int) error {
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		b := newBatch(c, len(send))
		for i, blk := range send {
			b.send(blk, i)
		}
		return b.wait()
	}
	return c.Recv(recv, root)
}

// interAllgather: each group gathers on its leader, the leaders swap, and
// each broadcasts the other group's blocks in its own group.
func interAllgather(c *coll.Comm, send, recv []byte) error {
	mine, err := gatherOnLeader(c, coll.Allgather, send)
	if err != nil {
		return err
	}
	if isLeader(c) {
		if err := c.Sendrecv(mine, 0, recv, 0); err != nil {
			return err
		}
	}
	l := c.T.Local()
	return c.Sub(l, coll.Allgather, 0, func(a *coll.Actions) error { return a.Bcast(l, recv, 0) })
}

// interAllgatherv: every process sends its block to every remote process.
func interAllgatherv(c *coll.Comm, send []byte, recv [][]byte) error {
	b := newBatch(c, 2*len(recv))
	for j, blk := range recv {
		b.recv(blk, j)
	}
	for j := range recv {
		b.send(send, j)
	}
	return b.wait()
}

// remoteBlocks splits an intercommunicator Alltoall's buffers into the
// blocks of the remote group's processes.
func remoteBlocks(c *coll.Comm, send, recv []byte) (sb, rb [][]byte) {
	n := c.T.RemoteSize()
	sb, rb = make([][]byte, n), make([][]byte, n)
	ss, rs := len(send)/n, len(recv)/n
	for i := 0; i < n; i++ {
		sb[i], rb[i] = send[i*ss:(i+1)*ss], recv[i*rs:(i+1)*rs]
	}
	return sb, rb
}

func interAlltoall(c *coll.Comm, send, recv []byte) error {
	sb, rb := remoteBlocks(c, send, recv)
	return interAlltoallv(c, sb, rb)
}

// interAlltoallv: block j goes to, and comes from, remote process j.
func interAlltoallv(c *coll.Comm, send, recv [][]byte) error {
	n, r := c.T.RemoteSize(), c.Rank()
	b := newBatch(c, 2*n)
	for i := 0; i < n; i++ {
		j := (r + i) % n
		b.recv(recv[j], j)
	}
	for i := 0; i < n; i++ {
		j := (r + i) % n
		b.send(send[j], j)
	}
	return b.wait()
}

// interReduce: the other group reduces on its leader, which sends the
// result to the root.
func interReduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	return fromRemoteLeader(c, recv, root, func() ([]byte, error) { return reduceOnLeader(c, send, op) })
}

// localReduceSwap reduces the group's send on its leader and swaps the
// result with the other leader's; the leader's out gets the other
// group's reduction.
func localReduceSwap(c *coll.Comm, send, out []byte, op *coll.Op) error {
	res, err := reduceOnLeader(c, send, op)
	if err != nil || !isLeader(c) {
		return err
	}
	return c.Sendrecv(res, 0, out, 0)
}

// toRemoteLeader is a rooted operation that starts from the root: the
// root sends out to the other group's leader, which receives it in in;
// then spread runs on every process of that group.
func toRemoteLeader(c *coll.Comm, out []byte, root int, in []byte, spread func() error) error {
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		return c.Send(out, 0)
	}
	if isLeader(c) {
		if err := c.Recv(in, root); err != nil {
			return err
		}
	}
	return spread()
}

// fromRemoteLeader is a rooted operation that ends at the root: the other
// group runs onLeader, whose result (on its leader) the leader sends to the
// root, which receives it in recv.
func fromRemoteLeader(c *coll.Comm, recv []byte, root int, onLeader func() ([]byte, error)) error {
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		return c.Recv(recv, 0)
	}
	res, err := onLeader()
	if err != nil || !isLeader(c) {
		return err
	}
	return c.Send(res, root)
}

// inRootGroup reports whether a process passing root to a rooted
// operation is in the root's group (it passes MPI_ROOT or MPI_PROC_NULL).
func inRootGroup(root int) bool { return root == coll.Root || root == coll.ProcNull }

// isLeader reports whether this process leads its group: local rank 0,
// which talks to the other group.
func isLeader(c *coll.Comm) bool { return c.T.Local().Rank() == 0 }

// leaderBuffer returns n bytes on l's leader, nil on its other processes.
func leaderBuffer(l *coll.Comm, n int) []byte {
	if l.Rank() == 0 {
		return coll.Buffer(n)
	}
	return nil
}

// gatherOnLeader gathers the group's blocks on its leader (local rank 0)
// as part of the collective kind: the leader gets them all, the other
// processes nil.
func gatherOnLeader(c *coll.Comm, kind coll.Kind, send []byte) ([]byte, error) {
	l := c.T.Local()
	all := leaderBuffer(l, l.Size()*len(send))
	err := c.Sub(l, kind, 0, func(a *coll.Actions) error { return a.Gather(l, send, all, 0) })
	return all, err
}

// reduceOnLeader reduces the group's contributions on its leader: the
// leader gets the result, the other processes nil.
func reduceOnLeader(c *coll.Comm, send []byte, op *coll.Op) ([]byte, error) {
	l := c.T.Local()
	res := leaderBuffer(l, len(send))
	err := c.Sub(l, coll.Reduce, 0, func(a *coll.Actions) error { return a.Reduce(l, send, res, op, 0) })
	return res, err
}

// interAllreduce: each group's reduction goes to every process of the
// other.
func interAllreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	if err := localReduceSwap(c, send, recv, op); err != nil {
		return err
	}
	l := c.T.Local()
	return c.Sub(l, coll.Bcast, 0, func(a *coll.Actions) error { return a.Bcast(l, recv, 0) })
}

// interReduceScatter: the other group's reduction, scattered in this
// group by counts.
func interReduceScatter(c *coll.Comm, send, recv []byte, counts []int, op *coll.Op) error {
	l := c.T.Local()
	all := leaderBuffer(l, len(send))
	if err := localReduceSwap(c, send, all, op); err != nil {
		return err
	}
	var pieces [][]byte
	if l.Rank() == 0 {
		pos := 0
		for _, k := range counts {
			pieces = append(pieces, all[pos:pos+k])
			pos += k
		}
	}
	return c.Sub(l, coll.Scatterv, 0, func(a *coll.Actions) error { return a.Scatterv(l, pieces, recv[:counts[l.Rank()]], 0) })
}

func interReduceScatterBlock(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = len(recv)
	}
	return interReduceScatter(c, send, recv, counts, op)
}
