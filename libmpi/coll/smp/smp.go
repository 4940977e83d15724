// Package smp is the smp coll module: MagPIe-style hierarchical
// collectives for communicators that span several nodes with several
// processes on some (LAM's smp, Squyres 2004 §6.2.2).
//
// Its Init splits the communicator into one hidden local communicator per
// node and a hidden bridge communicator of the nodes' leaders (the lowest
// rank of each node); each gets its own coll module (neither spans several
// nodes with several processes: a local communicator of two or more gets
// shmem, which moves the node's part through shared memory, where shmem is
// built in; the bridge lam_basic). Then:
//
//   - Bcast: the root's node broadcasts locally (from the root) or over the
//     bridge first (when the root leads its node), the leaders over the
//     bridge, then every other node locally. Data crosses between nodes
//     once per node.
//   - Barrier: a fan-in on each node, a barrier of the leaders, a fan-out.
//   - Reduce and Allreduce: each node reduces on its leader, the leaders
//     reduce (Allreduce: allreduce) over the bridge, then (Allreduce) each
//     leader broadcasts on its node. This regroups the reduction by node,
//     so it is used only when the grouping cannot change the result: for
//     exact ops (integer arithmetic, logic, max, min), or for any op when
//     coll_base_associative is 1. A non-commutative op also needs every
//     node's ranks to be consecutive. Otherwise lam_basic's algorithms run,
//     whose result depends only on the number of processes.
//   - Allgather: each node gathers on its leader, the leaders exchange
//     their nodes' blocks, each leader broadcasts the whole on its node.
//   - Alltoall (up to coll_base_smp_alltoall_size bytes of a node's send
//     buffers): each node gathers its send buffers on its leader, each
//     leader sends every other leader the blocks for its node in one
//     message, each leader scatters its processes' blocks (alltoall.go).
//
// The other collectives are lam_basic's. The argument check goes through
// the hierarchy too, carried with the data of the small Allreduce,
// Allgather and Alltoall (carried.go). At coll_base_check=1 the small
// Bcast, Reduce, Gather and Scatter send the call with their data
// (sendsCall): the Bcast and Reduce through the hierarchy, the Gather and
// Scatter too when their root leads its node (rooted.go: one message
// between the root and each other node's leader), as lam_basic's (on the
// whole communicator) otherwise.
package smp

import (
	"context"
	"fmt"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// Priority is smp's default priority, LAM's.
const Priority = 50

// Module is the smp module.
type Module struct{}

func init() {
	coll.Register(Module{})
	ssi.RegisterParams(ssi.Coll, "base",
		ssi.Param{Name: "smp_alltoall_size", Default: "2097152", Type: ssi.Size,
			Help: "Bytes of a node's send buffers (its processes' Alltoall blocks for every process) up to which smp's Alltoall gathers them on the node's leader, sends each other node's leader one message with the blocks its processes get, and scatters what came on the node, instead of lam_basic's messages between every pair of processes; 0: never"},
	)
}

// ParamAlltoallSize is coll_base_smp_alltoall_size's full name.
var ParamAlltoallSize = ssi.FullName(ssi.Coll, "base", "smp_alltoall_size")

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.Coll, Name: "smp", API: ssi.APIVersion[ssi.Coll], Version: buildinfo.ModuleVersion, Priority: Priority}
}

// Query: smp can run in any job; whether it serves a communicator depends
// on its layout (QueryComm).
func (Module) Query(context.Context, *ssi.Settings) (int, error) { return Priority, nil }

// layout is where a communicator's processes run.
type layout struct {
	node       []int // rank → node index (nodes numbered by their lowest rank)
	lrank      []int // rank → rank in its node's local communicator
	leader     []int // node index → its lowest rank
	size       []int // node index → number of processes
	members    [][]int
	contiguous bool // every node's ranks are consecutive
}

func layoutOf(c *coll.Comm) layout {
	n := c.Size()
	var l layout
	l.node, l.lrank = make([]int, n), make([]int, n)
	index := map[int32]int{}
	for r := 0; r < n; r++ {
		id := c.T.Node(r)
		k, ok := index[id]
		if !ok {
			k = len(l.leader)
			index[id] = k
			l.leader = append(l.leader, r)
			l.size = append(l.size, 0)
			l.members = append(l.members, nil)
		}
		l.node[r], l.lrank[r] = k, l.size[k]
		l.size[k]++
		l.members[k] = append(l.members[k], r)
	}
	l.contiguous = true
	for r := 1; r < n; r++ {
		if l.node[r] != l.node[r-1] && l.node[r] != l.node[r-1]+1 {
			l.contiguous = false
		}
	}
	return l
}

// QueryComm: smp serves an intracommunicator that spans two or more nodes
// with two or more processes on at least one.
func (Module) QueryComm(c *coll.Comm) (int, error) {
	if c.Inter() {
		return -1, fmt.Errorf("smp serves intracommunicators only")
	}
	l := layoutOf(c)
	if len(l.leader) < 2 {
		return -1, fmt.Errorf("%s runs on one node", c.T.Name())
	}
	for _, s := range l.size {
		if s > 1 {
			return Priority, nil
		}
	}
	return -1, fmt.Errorf("%s has one process per node", c.T.Name())
}

// data is smp's state on a communicator.
type data struct {
	layout
	me     int          // this process's node index
	local  *coll.Comm   // this node's processes
	bridge *coll.Comm   // the leaders; nil on other processes
	basic  coll.Actions // lam_basic's functions on the communicator
	// alltoallSize is coll_base_smp_alltoall_size: the most bytes of
	// its node's send buffers a leader takes for the hierarchical
	// Alltoall (0: never).
	alltoallSize int
	offset       []int // node index → its section in the hierarchical Alltoall's messages
}

// Init makes the local and bridge communicators.
func (Module) Init(c *coll.Comm) (*coll.Actions, error) {
	size, err := c.Settings().Size(ParamAlltoallSize)
	if err == nil && (size < 0 || size > 1<<40) {
		err = fmt.Errorf("%s=%d: must be 0 to 1 TiB", ParamAlltoallSize, size)
	}
	if err != nil {
		return nil, fmt.Errorf("smp: %w", err)
	}
	d := &data{layout: layoutOf(c), basic: *basic.Functions(c), alltoallSize: int(size)}
	d.offset = make([]int, len(d.size))
	r := c.Rank()
	d.me = d.node[r]
	if d.local, err = c.T.Split(d.me, r); err != nil {
		return nil, fmt.Errorf("smp: local communicator: %w", err)
	}
	color := -1
	if d.leader[d.me] == r {
		color = 0
	}
	if d.bridge, err = c.T.Split(color, r); err != nil {
		d.local.T.Free()
		return nil, fmt.Errorf("smp: bridge communicator: %w", err)
	}
	c.Data = d
	a := &coll.Actions{
		Barrier:   barrier,
		Bcast:     bcast,
		Reduce:    reduce,
		Allreduce: allreduce,
		Allgather: allgather,
		Gather:    gather,
		Scatter:   scatter,
		Carries:   sendsCall,
		SendsCall: sendsCall,
	}
	a.Alltoall = alltoall
	if d.carrying(c.Size()) {
		a.Agree, a.Carries = agree, carries
	}
	return a, nil
}

// sendsCall is smp's coll.Actions.Carries and SendsCall: at
// coll_base_check=1, the small Bcast, Gather, Scatter and Reduce (those
// lam_basic carries: up to coll_base_small bytes per process, Scatter's
// n blocks) send the call with their data. The Gather and Scatter carry
// it through the hierarchy when their root leads its node (rooted.go),
// as under lam_basic on the whole communicator otherwise; the Bcast and
// Reduce through the hierarchy (bcastSent, reduceSent). Their processes that only send return at
// once. Every other collective, and every one at coll_base_check=2,
// carries the check or checks first through the hierarchy (carried.go;
// through smp's Allreduce on communicators too large to carry it).
func sendsCall(c *coll.Comm, sig coll.Sig) bool {
	d := c.Data.(*data)
	switch sig.Kind {
	case coll.Gather, coll.Scatter:
		return !c.Params.CheckAll && d.basic.Carries(c, sig) && d.basic.SendsCall(c, sig)
	case coll.Bcast, coll.Reduce:
		return !c.Params.CheckAll && d.basic.Carries(c, sig)
	}
	return false
}

// Finalize frees the sub-communicators.
func (Module) Finalize(c *coll.Comm) error {
	d, ok := c.Data.(*data)
	if !ok {
		return nil
	}
	c.Data = nil
	var first error
	for _, s := range []*coll.Comm{d.local, d.bridge} {
		if s == nil {
			continue
		}
		if err := s.T.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (d *data) leads(r int) bool { return d.leader[d.node[r]] == r }

func barrier(c *coll.Comm) error {
	d := c.Data.(*data)
	l, b := d.local, d.bridge
	if err := c.Sub(l, coll.Barrier, 0, func(a *coll.Actions) error { return a.Gather(l, nil, nil, 0) }); err != nil {
		return err
	}
	if err := c.Sub(b, coll.Barrier, 0, func(a *coll.Actions) error { return a.Barrier(b) }); err != nil {
		return err
	}
	return c.Sub(l, coll.Barrier, 0, func(a *coll.Actions) error { return a.Bcast(l, nil, 0) })
}

func bcast(c *coll.Comm, buf []byte, root int) error {
	if c.SendsCall() {
		return bcastSent(c, buf, root)
	}
	return bcastTree(c, buf, root)
}

// bcastSent is the small Bcast at coll_base_check=1: the root's call
// goes in front of the data down the same hierarchy, each process
// passes the message on as it came, then compares the call with its own
// (coll.Comm.JudgeCall) and takes the data only when they agree.
func bcastSent(c *coll.Comm, buf []byte, root int) error {
	m := c.Scratch(coll.ScratchCall, coll.CallSize+len(buf))
	if c.Rank() == root {
		c.PutCall(m)
		copy(m[coll.CallSize:], buf)
		return bcastTree(c, m, root)
	}
	clear(m[:coll.CallSize])
	if err := bcastTree(c, m, root); err != nil {
		return err
	}
	if err := c.JudgeCall(m, true); err != nil {
		return err
	}
	copy(buf, m[coll.CallSize:])
	return nil
}

// bcastTree: on the root's node first when the root does not lead it,
// over the bridge, then on the other nodes.
func bcastTree(c *coll.Comm, buf []byte, root int) error {
	d := c.Data.(*data)
	l, b := d.local, d.bridge
	rn := d.node[root]
	overBridge := func() error {
		return c.Sub(b, coll.Bcast, rn, func(a *coll.Actions) error { return a.Bcast(b, buf, rn) })
	}
	onNode := func(from int) error {
		return c.Sub(l, coll.Bcast, from, func(a *coll.Actions) error { return a.Bcast(l, buf, from) })
	}
	switch {
	case d.me == rn && d.leads(root):
		// The root sends off-node first, then on its node.
		if err := overBridge(); err != nil {
			return err
		}
		return onNode(0)
	case d.me == rn:
		if err := onNode(d.lrank[root]); err != nil {
			return err
		}
		return overBridge()
	}
	if err := overBridge(); err != nil {
		return err
	}
	return onNode(0)
}

// regroup reports whether a reduction with op may be done node by node.
func (d *data) regroup(c *coll.Comm, op *coll.Op) bool {
	if !op.Exact && !c.Params.Associative {
		return false
	}
	return op.Commutative || d.contiguous
}

// reduceOnNode reduces the node's contributions on its leader, whose out
// gets the result.
func reduceOnNode(c *coll.Comm, d *data, mine, out []byte, op *coll.Op) error {
	l := d.local
	return c.Sub(l, coll.Reduce, 0, func(a *coll.Actions) error { return a.Reduce(l, mine, out, op, 0) })
}

func reduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	if c.SendsCall() {
		return reduceSent(c, send, recv, op, root)
	}
	return reduceData(c, send, recv, op, root)
}

// reduceSent is the small Reduce at coll_base_check=1: the calls go to
// the root the way the data do, node by node (coll.CallOp merges them,
// so that the root's JudgeCall says what differs among all of them),
// then the data; a process other than the root only sends. The root
// compares once both are in (its recv then holds what was reduced).
func reduceSent(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	d := c.Data.(*data)
	call := c.Scratch(coll.ScratchCall, coll.CallSize)
	c.PutCall(call)
	var all []byte
	if c.Rank() == root {
		all = c.Scratch(coll.ScratchCall2, coll.CallSize)
	}
	if err := reduceTree(c, d, call, all, coll.CallOp(), root); err != nil {
		return err
	}
	if err := reduceData(c, send, recv, op, root); err != nil || c.Rank() != root {
		return err
	}
	return c.JudgeCall(all, true)
}

// reduceData reduces the data: node by node when op may be regrouped,
// lam_basic's algorithm otherwise.
func reduceData(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	d := c.Data.(*data)
	if !d.regroup(c, op) {
		return d.basic.Reduce(c, send, recv, op, root)
	}
	return reduceTree(c, d, send, recv, op, root)
}

// reduceTree reduces on each node's leader, then over the bridge to the
// root's leader, which sends the result to the root when it is not the
// root itself. op may be regrouped (regroup).
func reduceTree(c *coll.Comm, d *data, send, recv []byte, op *coll.Op, root int) error {
	r := c.Rank()
	mine := send
	if mine == nil {
		mine = recv // in place at the root
	}
	rn := d.node[root]
	var part []byte
	if d.leads(r) {
		part = c.Scratch(coll.ScratchModule, len(mine))
	}
	if err := reduceOnNode(c, d, mine, part, op); err != nil {
		return err
	}
	if d.leads(r) {
		out := part // the root's leader reduces into a buffer of its own
		if r == root {
			out = recv
		} else if d.me == rn {
			out = c.Scratch(coll.ScratchModule2, len(mine))
		}
		b := d.bridge
		if err := c.Sub(b, coll.Reduce, rn, func(a *coll.Actions) error { return a.Reduce(b, part, out, op, rn) }); err != nil {
			return err
		}
		if d.me == rn && r != root {
			l := d.local
			return c.Sub(l, coll.Reduce, 0, func(*coll.Actions) error { return l.Send(out, d.lrank[root]) })
		}
		return nil
	}
	if r == root {
		l := d.local
		return c.Sub(l, coll.Reduce, 0, func(*coll.Actions) error { return l.Recv(recv[:len(mine)], 0) })
	}
	return nil
}

func allreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	d := c.Data.(*data)
	if digest, ok := c.Carry(); ok {
		return allreduceCarried(c, d, send, recv, op, digest)
	}
	if !d.regroup(c, op) {
		return d.basic.Allreduce(c, send, recv, op)
	}
	mine := send
	if mine == nil {
		mine = c.Scratch(coll.ScratchModule2, len(recv))
		copy(mine, recv)
	}
	var part []byte
	if d.leads(c.Rank()) {
		part = c.Scratch(coll.ScratchModule, len(mine))
	}
	if err := reduceOnNode(c, d, mine, part, op); err != nil {
		return err
	}
	if b := d.bridge; b != nil {
		if err := c.Sub(b, coll.Allreduce, 0, func(a *coll.Actions) error { return a.Allreduce(b, part, recv, op) }); err != nil {
			return err
		}
	}
	l := d.local
	return c.Sub(l, coll.Bcast, 0, func(a *coll.Actions) error { return a.Bcast(l, recv, 0) })
}

// allgather: gather on each leader, exchange the nodes' blocks between
// leaders, broadcast on each node; blocks travel in node order and are
// put in rank order at the end when the nodes' ranks interleave.
func allgather(c *coll.Comm, send, recv []byte) error {
	d := c.Data.(*data)
	if digest, ok := c.Carry(); ok {
		return allgatherCarried(c, d, send, recv, digest)
	}
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	if send == nil {
		send = recv[r*bs : (r+1)*bs]
	}
	whole := recv // blocks in node order
	if !d.contiguous {
		whole = c.Scratch(coll.ScratchModule, len(recv))
	}
	// Node k's blocks start at the sum of the sizes of nodes before it.
	start := make([]int, len(d.size)+1)
	for k, s := range d.size {
		start[k+1] = start[k] + s*bs
	}
	mine := whole[start[d.me]:start[d.me+1]]
	l := d.local
	if err := c.Sub(l, coll.Allgather, 0, func(a *coll.Actions) error {
		var out []byte
		if d.leads(r) {
			out = mine
		}
		return a.Gather(l, send, out, 0)
	}); err != nil {
		return err
	}
	if b := d.bridge; b != nil {
		blocks := make([][]byte, len(d.size))
		for k := range blocks {
			blocks[k] = whole[start[k]:start[k+1]]
		}
		if err := c.Sub(b, coll.Allgather, 0, func(a *coll.Actions) error { return a.Allgatherv(b, nil, blocks) }); err != nil {
			return err
		}
	}
	if err := c.Sub(l, coll.Bcast, 0, func(a *coll.Actions) error { return a.Bcast(l, whole, 0) }); err != nil {
		return err
	}
	if !d.contiguous {
		for k, ms := range d.members {
			for i, m := range ms {
				copy(recv[m*bs:(m+1)*bs], whole[start[k]+i*bs:start[k]+(i+1)*bs])
			}
		}
	}
	return nil
}
