package basic

import "github.com/lamgo/lam/libmpi/coll"

// The intercommunicator collectives as schedules: inter.go's algorithms,
// whose phases on the local group run on the local group's view
// (c.T.Local(), on the same schedule) with its nonblocking functions.
var nbInter = coll.Actions{
	Barrier:            nbInterBarrier,
	Bcast:              nbInterBcast,
	Gather:             nbInterGather,
	Gatherv:            nbInterGatherv,
	Scatter:            nbInterScatter,
	Scatterv:           nbInterScatterv,
	Allgather:          nbInterAllgather,
	Allgatherv:         nbInterAllgatherv,
	Alltoall:           nbInterAlltoall,
	Alltoallv:          nbInterAlltoallv,
	Alltoallw:          nbInterAlltoallv,
	Reduce:             nbInterReduce,
	Allreduce:          nbInterAllreduce,
	ReduceScatter:      nbInterReduceScatter,
	ReduceScatterBlock: nbInterReduceScatterBlock,
	Scan:               interUndefined,
	Exscan:             interUndefined,
}

func nbInterBarrier(c *coll.Comm) error {
	l := c.T.Local()
	if err := l.Actions().Gather(l, nil, nil, 0); err != nil {
		return err
	}
	if l.Rank() == 0 {
		s := sched(c)
		s.Send(c, nil, 0)
		s.Recv(c, nil, 0)
	}
	return l.Actions().Bcast(l, nil, 0)
}

func nbInterBcast(c *coll.Comm, buf []byte, root int) error {
	l := c.T.Local()
	return nbToRemoteLeader(c, buf, root, buf, func() error { return l.Actions().Bcast(l, buf, 0) })
}

func nbInterGather(c *coll.Comm, send, recv []byte, root int) error {
	l := c.T.Local()
	return nbFromRemoteLeader(c, recv, root, func() ([]byte, error) {
		all := leaderBuffer(l, l.Size()*len(send))
		return all, l.Actions().Gather(l, send, all, 0)
	})
}

func nbInterGatherv(c *coll.Comm, send []byte, recv [][]byte, root int) error {
	s := sched(c)
	switch root {
	case coll.ProcNull:
	case coll.Root:
		for i, blk := range recv {
			s.Recv(c, blk, i)
		}
	default:
		s.Send(c, send, root)
	}
	return nil
}

func nbInterScatter(c *coll.Comm, send, recv []byte, root int) error {
	l := c.T.Local()
	var all []byte
	if !inRootGroup(root) {
		all = leaderBuffer(l, l.Size()*len(recv))
	}
	return nbToRemoteLeader(c, send, root, all, func() error { return l.Actions().Scatter(l, all, recv, 0) })
}

func nbInterScatterv(c *coll.Comm, send [][]byte, recv []byte, root int) error {
	s := sched(c)
	switch root {
	case coll.ProcNull:
	case coll.Root:
		for i, blk := range send {
			s.Send(c, blk, i)
		}
	default:
		s.Recv(c, recv, root)
	}
	return nil
}

func nbInterAllgather(c *coll.Comm, send, recv []byte) error {
	l := c.T.Local()
	mine := leaderBuffer(l, l.Size()*len(send))
	if err := l.Actions().Gather(l, send, mine, 0); err != nil {
		return err
	}
	if l.Rank() == 0 {
		s := sched(c)
		s.Send(c, mine, 0)
		s.Recv(c, recv, 0)
	}
	return l.Actions().Bcast(l, recv, 0)
}

// nbInterAllgatherv: every process sends its block to every remote
// process.
func nbInterAllgatherv(c *coll.Comm, send []byte, recv [][]byte) error {
	s := sched(c)
	for j, blk := range recv {
		s.Recv(c, blk, j)
	}
	for j := range recv {
		s.Send(c, send, j)
	}
	return nil
}

func nbInterAlltoall(c *coll.Comm, send, recv []byte) error {
	sb, rb := remoteBlocks(c, send, recv)
	return nbInterAlltoallv(c, sb, rb)
}

func nbInterAlltoallv(c *coll.Comm, send, recv [][]byte) error {
	n, r := c.T.RemoteSize(), c.Rank()
	s := sched(c)
	for i := 0; i < n; i++ {
		j := (r + i) % n
		s.Recv(c, recv[j], j)
	}
	for i := 0; i < n; i++ {
		j := (r + i) % n
		s.Send(c, send[j], j)
	}
	return nil
}

func nbInterReduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	return nbFromRemoteLeader(c, recv, root, func() ([]byte, error) { return nbReduceOnLeader(c, send, op) })
}

// nbReduceOnLeader reduces the group's contributions on its leader,
// whose returned buffer gets the result (nil on the other processes).
func nbReduceOnLeader(c *coll.Comm, send []byte, op *coll.Op) ([]byte, error) {
	l := c.T.Local()
	res := leaderBuffer(l, len(send))
	return res, l.Actions().Reduce(l, send, res, op, 0)
}

// nbLocalReduceSwap reduces the group's send on its leader and swaps the
// result with the other leader's, which lands in the leader's out.
func nbLocalReduceSwap(c *coll.Comm, send, out []byte, op *coll.Op) error {
	res, err := nbReduceOnLeader(c, send, op)
	if err != nil || !isLeader(c) {
		return err
	}
	s := sched(c)
	s.Send(c, res, 0)
	s.Recv(c, out, 0)
	return nil
}

func nbInterAllreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	if err := nbLocalReduceSwap(c, send, recv, op); err != nil {
		return err
	}
	l := c.T.Local()
	return l.Actions().Bcast(l, recv, 0)
}

func nbInterReduceScatter(c *coll.Comm, send, recv []byte, counts []int, op *coll.Op) error {
	l := c.T.Local()
	all := leaderBuffer(l, len(send))
	if err := nbLocalReduceSwap(c, send, all, op); err != nil {
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
	return l.Actions().Scatterv(l, pieces, recv[:counts[l.Rank()]], 0)
}

func nbInterReduceScatterBlock(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = len(recv)
	}
	return nbInterReduceScatter(c, send, recv, counts, op)
}

// nbToRemoteLeader: the root sends out to the other group's leader,
// which receives it in in; then spread adds its steps on every process
// of that group.
func nbToRemoteLeader(c *coll.Comm, out []byte, root int, in []byte, spread func() error) error {
	s := sched(c)
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		s.Send(c, out, 0)
		return nil
	}
	if isLeader(c) {
		s.Recv(c, in, root)
	}
	return spread()
}

// nbFromRemoteLeader: the other group adds onLeader's steps, whose result
// (on its leader) the leader sends to the root, which receives it in
// recv.
func nbFromRemoteLeader(c *coll.Comm, recv []byte, root int, onLeader func() ([]byte, error)) error {
	switch root {
	case coll.ProcNull:
		return nil
	case coll.Root:
		sched(c).Recv(c, recv, 0)
		return nil
	}
	res, err := onLeader()
	if err != nil || !isLeader(c) {
		return err
	}
	sched(c).Send(c, res, root)
	return nil
}
