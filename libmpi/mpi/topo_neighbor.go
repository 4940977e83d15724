package mpi

import (
	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/topo"
)

// Neighbour collectives (MPI-3 §7.6): every process exchanges blocks with
// its neighbours in c's topology only. The blocks follow the order of the
// neighbours: on a grid, per dimension, the neighbour back then the
// neighbour forward (CartShift(d, 1)), ProcNull beyond an edge (that block
// is left alone); on a graph, GraphNeighbors; on a distributed graph, the
// sources (received) and the destinations (sent to) of
// DistGraphNeighbors. They run on the communicator's hidden context, so
// they never match the program's messages. Every process of c must call
// them in the same order as its other collectives.
//
// Each is a schedule of the coll framework (coll.Schedule: one round of
// receives and sends, then the unpacking of a w collective's blocks),
// tagged with the communicator's next nonblocking sequence number (as the
// nonblocking collectives), so several may be under way beside the
// communicator's other collectives. The nonblocking forms (Ineighbor…)
// check their arguments and cut the blocks when they start; the process's
// coll progress and whoever waits advance the schedule, as for the other
// nonblocking collectives; the blocking forms run the same schedule to
// its end. An argument error is returned at once, with no request; the
// process still sends its neighbours empty blocks, so that they see
// ErrCount instead of waiting.

// nbrCall is a neighbour collective's blocks, cut from its arguments.
type nbrCall struct {
	c       *Comm
	in, out []topo.Edge
	rb, sb  [][]byte
	err     error // an argument error: the exchange moves empty blocks
	// A w collective's receive side, unpacked once the blocks came.
	recv             []byte
	rcounts, rdispls []int
	rtypes           []*Datatype
}

// neighbours starts a neighbour collective on c: this process's edges in
// c's topology.
func (c *Comm) neighbours(what string) (nbrCall, error) {
	if _, err := engine(); err != nil {
		return nbrCall{}, err
	}
	if err := c.check(); err != nil {
		return nbrCall{}, World.fail(err)
	}
	if c.topo == nil {
		return nbrCall{}, c.fail(errorf(ErrTopology, "%s: %s has no topology", what, c.name))
	}
	in, out := c.topo.Edges(c.rank)
	return nbrCall{c: c, in: in, out: out}, nil
}

// bad records an argument error (the first counts).
func (x *nbrCall) bad(err error) {
	if x.err == nil {
		x.err = err
	}
}

// build adds the collective's messages to the schedule of v, c's view
// that Reserve made for it, and the unpacking of a w collective's blocks
// after them. With an argument error the process still exchanges empty
// blocks, so that its neighbours see ErrCount instead of waiting.
func (x *nbrCall) build(v *coll.Comm) error {
	rb, sb := x.rb, x.sb
	if x.err != nil {
		rb, sb = make([][]byte, len(x.in)), make([][]byte, len(x.out))
	}
	if err := topo.Exchange(v, x.in, rb, x.out, sb); err != nil {
		return topoError(err)
	}
	if x.err == nil && x.rtypes != nil {
		s := v.Schedule()
		s.Next()
		s.Do(func() error { return unpackBlocks(x.rb, x.recv, x.rcounts, x.rdispls, x.rtypes) })
	}
	return nil
}

// begin takes the collective's place among c's collectives and builds
// its schedule; an argument error is returned (through c's error
// handler) once the empty blocks are under way.
func (x *nbrCall) begin(kind coll.Kind) (*coll.Comm, error) {
	c := x.c
	v, err := c.collComm().Reserve(kind)
	if err != nil {
		return nil, c.collFail(err)
	}
	if err := x.build(v); err != nil {
		return nil, c.fail(err)
	}
	if x.err != nil {
		v.Launch(kind, nil)
		return nil, c.fail(x.err)
	}
	return v, nil
}

// run runs a blocking neighbour collective: its schedule, to the end, on
// the caller's goroutine.
func (x *nbrCall) run(kind coll.Kind) error {
	v, err := x.begin(kind)
	if err != nil {
		return err
	}
	if err := v.RunBuilt(kind); err != nil {
		return x.c.collFail(err)
	}
	return nil
}

// start starts a nonblocking neighbour collective and returns its
// request, which its schedule's end completes.
func (x *nbrCall) start(kind coll.Kind) (*Request, error) {
	v, err := x.begin(kind)
	if err != nil {
		return nil, err
	}
	r := &Request{r: st.engine.NewGeneric(), comm: x.c, sched: v.Schedule()}
	v.Launch(kind, coll.NotifyFunc(r.collDone))
	return r, nil
}

// cut cuts buf into n blocks of equal length.
func cut(buf []byte, n int) ([][]byte, bool) {
	if n == 0 {
		return nil, len(buf) == 0
	}
	if len(buf)%n != 0 {
		return nil, false
	}
	k := len(buf) / n
	out := make([][]byte, n)
	for i := range out {
		out[i] = buf[i*k : (i+1)*k : (i+1)*k]
	}
	return out, true
}

// cutv cuts buf into blocks at displs of counts elements of es bytes.
func cutv(what string, buf []byte, counts, displs []int, es, n int) ([][]byte, error) {
	if len(counts) != n || len(displs) != n {
		return nil, errorf(ErrArg, "%s: %d counts and %d displacements for %d neighbours", what, len(counts), len(displs), n)
	}
	out := make([][]byte, n)
	for i := range n {
		lo, hi := displs[i]*es, (displs[i]+counts[i])*es
		switch {
		case counts[i] < 0:
			return nil, errorf(ErrCount, "%s: negative count %d", what, counts[i])
		case displs[i] < 0 || hi > len(buf):
			return nil, errorf(ErrBuffer, "%s: block %d (%d elements at %d) is outside the buffer of %d elements", what, i, counts[i], displs[i], len(buf)/max(es, 1))
		}
		out[i] = buf[lo:hi:hi]
	}
	return out, nil
}

// same is n blocks that are all b.
func same(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func neighborAllgather[T CollElem](c *Comm, what string, send, recv []T) (nbrCall, error) {
	x, err := c.neighbours(what)
	if err != nil {
		return x, err
	}
	rb, ok := cut(raw(recv), len(x.in))
	if !ok || len(recv) != len(x.in)*len(send) {
		x.bad(errorf(ErrCount, "%s: a receive buffer of %d elements for %d blocks of %d", what, len(recv), len(x.in), len(send)))
	}
	x.rb, x.sb = rb, same(raw(send), len(x.out))
	return x, nil
}

// NeighborAllgather sends send to every neighbour and receives one block
// from each into recv, which holds one block (as long as send) per
// incoming neighbour (MPI_Neighbor_allgather).
func NeighborAllgather[T CollElem](c *Comm, send, recv []T) error {
	x, err := neighborAllgather(c, "NeighborAllgather", send, recv)
	if err != nil {
		return err
	}
	return x.run(coll.Allgather)
}

// IneighborAllgather starts NeighborAllgather (MPI_Ineighbor_allgather).
func IneighborAllgather[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	x, err := neighborAllgather(c, "IneighborAllgather", send, recv)
	if err != nil {
		return nil, err
	}
	return x.start(coll.Allgather)
}

func neighborAllgatherv[T CollElem](c *Comm, what string, send, recv []T, counts, displs []int) (nbrCall, error) {
	x, err := c.neighbours(what)
	if err != nil {
		return x, err
	}
	rb, err := cutv(what+": receive", raw(recv), counts, displs, sizeOf[T](), len(x.in))
	x.bad(err)
	x.rb, x.sb = rb, same(raw(send), len(x.out))
	return x, nil
}

// NeighborAllgatherv sends send to every neighbour and receives the block
// of incoming neighbour j into recv[displs[j]:][:counts[j]]
// (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) error {
	x, err := neighborAllgatherv(c, "NeighborAllgatherv", send, recv, counts, displs)
	if err != nil {
		return err
	}
	return x.run(coll.Allgatherv)
}

// IneighborAllgatherv starts NeighborAllgatherv
// (MPI_Ineighbor_allgatherv).
func IneighborAllgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	x, err := neighborAllgatherv(c, "IneighborAllgatherv", send, recv, counts, displs)
	if err != nil {
		return nil, err
	}
	return x.start(coll.Allgatherv)
}

func neighborAlltoall[T CollElem](c *Comm, what string, send, recv []T) (nbrCall, error) {
	x, err := c.neighbours(what)
	if err != nil {
		return x, err
	}
	sb, ok1 := cut(raw(send), len(x.out))
	rb, ok2 := cut(raw(recv), len(x.in))
	if !ok1 || !ok2 || len(sb) > 0 && len(rb) > 0 && len(sb[0]) != len(rb[0]) {
		x.bad(errorf(ErrCount, "%s: send (%d elements) and receive (%d) buffers are not %d and %d equal blocks",
			what, len(send), len(recv), len(x.out), len(x.in)))
	}
	x.rb, x.sb = rb, sb
	return x, nil
}

// NeighborAlltoall sends block i of send to outgoing neighbour i and
// receives block j of recv from incoming neighbour j
// (MPI_Neighbor_alltoall): send holds one block per outgoing neighbour,
// recv one per incoming neighbour, all of one length.
func NeighborAlltoall[T CollElem](c *Comm, send, recv []T) error {
	x, err := neighborAlltoall(c, "NeighborAlltoall", send, recv)
	if err != nil {
		return err
	}
	return x.run(coll.Alltoall)
}

// IneighborAlltoall starts NeighborAlltoall (MPI_Ineighbor_alltoall).
func IneighborAlltoall[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	x, err := neighborAlltoall(c, "IneighborAlltoall", send, recv)
	if err != nil {
		return nil, err
	}
	return x.start(coll.Alltoall)
}

func neighborAlltoallv[T CollElem](c *Comm, what string, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (nbrCall, error) {
	x, err := c.neighbours(what)
	if err != nil {
		return x, err
	}
	es := sizeOf[T]()
	sb, err := cutv(what+": send", raw(send), scounts, sdispls, es, len(x.out))
	x.bad(err)
	rb, err := cutv(what+": receive", raw(recv), rcounts, rdispls, es, len(x.in))
	x.bad(err)
	x.rb, x.sb = rb, sb
	return x, nil
}

// NeighborAlltoallv sends send[sdispls[i]:][:scounts[i]] to outgoing
// neighbour i and receives recv[rdispls[j]:][:rcounts[j]] from incoming
// neighbour j (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	x, err := neighborAlltoallv(c, "NeighborAlltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	if err != nil {
		return err
	}
	return x.run(coll.Alltoallv)
}

// IneighborAlltoallv starts NeighborAlltoallv (MPI_Ineighbor_alltoallv).
func IneighborAlltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	x, err := neighborAlltoallv(c, "IneighborAlltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	if err != nil {
		return nil, err
	}
	return x.start(coll.Alltoallv)
}

func neighborAlltoallw(c *Comm, what string, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) (nbrCall, error) {
	x, err := c.neighbours(what)
	if err != nil {
		return x, err
	}
	sb, err := packBlocks(what+": send", send, scounts, sdispls, stypes, len(x.out), "neighbours", true)
	x.bad(err)
	rb, err := packBlocks(what+": receive", recv, rcounts, rdispls, rtypes, len(x.in), "neighbours", false)
	x.bad(err)
	if x.err != nil {
		return x, nil
	}
	for j, e := range x.in {
		if e.Peer == ProcNull {
			rb[j] = nil // left alone
		}
	}
	x.rb, x.sb = rb, sb
	x.recv, x.rcounts, x.rdispls, x.rtypes = recv, rcounts, rdispls, rtypes
	return x, nil
}

// NeighborAlltoallw is NeighborAlltoallv with a datatype per block and
// displacements in bytes (MPI_Neighbor_alltoallw): scounts[i] elements of
// stypes[i] at send[sdispls[i]:] go to outgoing neighbour i, rcounts[j]
// elements of rtypes[j] at recv[rdispls[j]:] come from incoming neighbour
// j. The blocks are packed before they leave and unpacked once arrived.
func NeighborAlltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) error {
	x, err := neighborAlltoallw(c, "NeighborAlltoallw", send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	if err != nil {
		return err
	}
	return x.run(coll.Alltoallw)
}

// IneighborAlltoallw starts NeighborAlltoallw (MPI_Ineighbor_alltoallw);
// the received blocks are unpacked into recv before the request
// completes.
func IneighborAlltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	x, err := neighborAlltoallw(c, "IneighborAlltoallw", send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	if err != nil {
		return nil, err
	}
	return x.start(coll.Alltoallw)
}
