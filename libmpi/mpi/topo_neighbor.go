package mpi

import (
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

// neighbours returns the edges of this process in c's topology.
func (c *Comm) neighbours(what string) (in, out []topo.Edge, err error) {
	if _, err := engine(); err != nil {
		return nil, nil, err
	}
	if err := c.check(); err != nil {
		return nil, nil, World.fail(err)
	}
	if c.topo == nil {
		return nil, nil, c.fail(errorf(ErrTopology, "%s: %s has no topology", what, c.name))
	}
	in, out = c.topo.Edges(c.rank)
	return in, out, nil
}

// exchange runs a neighbour collective's messages.
func (c *Comm) exchange(in []topo.Edge, recv [][]byte, out []topo.Edge, send [][]byte) error {
	if err := topo.Exchange(c.collComm().T, in, recv, out, send); err != nil {
		return c.fail(topoError(err))
	}
	return nil
}

// argFail reports a neighbour collective's argument error after taking
// part with empty blocks, so that the neighbours see a block of the wrong
// size (ErrCount) instead of waiting for one that never comes.
func (c *Comm) argFail(in, out []topo.Edge, err error) error {
	topo.Exchange(c.collComm().T, in, make([][]byte, len(in)), out, make([][]byte, len(out)))
	return c.fail(err)
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

// NeighborAllgather sends send to every neighbour and receives one block
// from each into recv, which holds one block (as long as send) per
// incoming neighbour (MPI_Neighbor_allgather).
func NeighborAllgather[T CollElem](c *Comm, send, recv []T) error {
	in, out, err := c.neighbours("NeighborAllgather")
	if err != nil {
		return err
	}
	rb, ok := cut(raw(recv), len(in))
	if !ok || len(recv) != len(in)*len(send) {
		return c.argFail(in, out, errorf(ErrCount, "NeighborAllgather: a receive buffer of %d elements for %d blocks of %d", len(recv), len(in), len(send)))
	}
	sb := make([][]byte, len(out))
	for i := range sb {
		sb[i] = raw(send)
	}
	return c.exchange(in, rb, out, sb)
}

// NeighborAllgatherv sends send to every neighbour and receives the block
// of incoming neighbour j into recv[displs[j]:][:counts[j]]
// (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) error {
	in, out, err := c.neighbours("NeighborAllgatherv")
	if err != nil {
		return err
	}
	rb, err := cutv("NeighborAllgatherv: receive", raw(recv), counts, displs, sizeOf[T](), len(in))
	if err != nil {
		return c.argFail(in, out, err)
	}
	sb := make([][]byte, len(out))
	for i := range sb {
		sb[i] = raw(send)
	}
	return c.exchange(in, rb, out, sb)
}

// NeighborAlltoall sends block i of send to outgoing neighbour i and
// receives block j of recv from incoming neighbour j
// (MPI_Neighbor_alltoall): send holds one block per outgoing neighbour,
// recv one per incoming neighbour, all of one length.
func NeighborAlltoall[T CollElem](c *Comm, send, recv []T) error {
	in, out, err := c.neighbours("NeighborAlltoall")
	if err != nil {
		return err
	}
	sb, ok1 := cut(raw(send), len(out))
	rb, ok2 := cut(raw(recv), len(in))
	if !ok1 || !ok2 || len(sb) > 0 && len(rb) > 0 && len(sb[0]) != len(rb[0]) {
		return c.argFail(in, out, errorf(ErrCount, "NeighborAlltoall: send (%d elements) and receive (%d) buffers are not %d and %d equal blocks",
			len(send), len(recv), len(out), len(in)))
	}
	return c.exchange(in, rb, out, sb)
}

// NeighborAlltoallv sends send[sdispls[i]:][:scounts[i]] to outgoing
// neighbour i and receives recv[rdispls[j]:][:rcounts[j]] from incoming
// neighbour j (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	in, out, err := c.neighbours("NeighborAlltoallv")
	if err != nil {
		return err
	}
	es := sizeOf[T]()
	sb, err := cutv("NeighborAlltoallv: send", raw(send), scounts, sdispls, es, len(out))
	if err != nil {
		return c.argFail(in, out, err)
	}
	rb, err := cutv("NeighborAlltoallv: receive", raw(recv), rcounts, rdispls, es, len(in))
	if err != nil {
		return c.argFail(in, out, err)
	}
	return c.exchange(in, rb, out, sb)
}

// NeighborAlltoallw is NeighborAlltoallv with a datatype per block and
// displacements in bytes (MPI_Neighbor_alltoallw): scounts[i] elements of
// stypes[i] at send[sdispls[i]:] go to outgoing neighbour i, rcounts[j]
// elements of rtypes[j] at recv[rdispls[j]:] come from incoming neighbour
// j. The blocks are packed before they leave and unpacked once arrived.
func NeighborAlltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) error {
	in, out, err := c.neighbours("NeighborAlltoallw")
	if err != nil {
		return err
	}
	blocks := func(what string, buf []byte, counts, displs []int, types []*Datatype, n int, fill bool) ([][]byte, error) {
		if len(counts) != n || len(displs) != n || len(types) != n {
			return nil, errorf(ErrArg, "NeighborAlltoallw: %s: %d counts, %d displacements and %d types for %d neighbours", what, len(counts), len(displs), len(types), n)
		}
		bs := make([][]byte, n)
		for i := range n {
			if types[i] == nil || counts[i] < 0 || displs[i] < 0 || displs[i] > len(buf) {
				return nil, errorf(ErrArg, "NeighborAlltoallw: %s: block %d: bad type, count or displacement", what, i)
			}
			bs[i] = make([]byte, PackSize(counts[i], types[i]))
			if fill {
				pos := 0
				if err := Pack(buf[displs[i]:], counts[i], types[i], bs[i], &pos); err != nil {
					return nil, errorf(ErrBuffer, "NeighborAlltoallw: %s: block %d: %w", what, i, err)
				}
			}
		}
		return bs, nil
	}
	sb, err := blocks("send", send, scounts, sdispls, stypes, len(out), true)
	if err != nil {
		return c.argFail(in, out, err)
	}
	rb, err := blocks("receive", recv, rcounts, rdispls, rtypes, len(in), false)
	if err != nil {
		return c.argFail(in, out, err)
	}
	if err := c.exchange(in, rb, out, sb); err != nil {
		return err
	}
	for j, e := range in {
		if e.Peer == ProcNull {
			continue
		}
		pos := 0
		if err := Unpack(rb[j], &pos, recv[rdispls[j]:], rcounts[j], rtypes[j]); err != nil {
			return c.fail(err)
		}
	}
	return nil
}
