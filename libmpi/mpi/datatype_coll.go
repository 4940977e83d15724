package mpi

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/coll"
)

// The collectives over derived datatypes: each process packs what it
// sends, the collective moves the packed bytes, and each process unpacks
// what it receives, so a process's datatype may differ from the others'
// as long as the data sizes (type signatures) match. An argument error
// on one process (a nil type, a buffer too short for its type) is
// reported on every process, as for the typed collectives.

// pack packs count elements of d from buf for a collective, recording a
// bad argument on k.
func (k *call) pack(what string, buf []byte, count int, d *Datatype) []byte {
	if err := checkOld(d, count); err != nil {
		k.badErr(within(Class(err), what, err))
		return []byte{}
	}
	out := make([]byte, PackSize(count, d))
	if err := Pack(buf, count, d, out, new(int)); err != nil {
		k.badErr(within(ErrBuffer, what, err))
	}
	return out
}

// room checks that buf holds count elements of d and returns a buffer
// for their packed bytes.
func (k *call) room(what string, buf []byte, count int, d *Datatype) []byte {
	if err := checkOld(d, count); err != nil {
		k.badErr(within(Class(err), what, err))
		return []byte{}
	}
	if err := walk(buf, count, d, func([]byte) {}); err != nil {
		k.badErr(within(ErrBuffer, what, err))
	}
	return make([]byte, PackSize(count, d))
}

// inPlace packs this process's own block of recv into its place in the
// packed blocks r (a gather "in place").
func (k *call) inPlace(recv, r []byte, rcount int, rtype *Datatype) {
	if k.sig.Err != nil {
		return // room found recv or rtype bad
	}
	off := k.c.rank * rcount * rtype.Extent()
	pos := k.c.rank * rcount * rtype.size
	if off < 0 || off > len(recv) {
		k.bad(ErrBuffer, "in place: block %d is outside the receive buffer", k.c.rank)
		return
	}
	if err := Pack(recv[off:], rcount, rtype, r, &pos); err != nil {
		k.bad(ErrBuffer, "in place: %w", err)
	}
}

// BcastType sends count elements of d from the root's buf to every
// process's buf (MPI_Bcast with a datatype).
func BcastType(c *Comm, buf []byte, count int, d *Datatype, root int) error {
	return iBcastType(nil, c, buf, count, d, root)
}

func iBcastType(nb *nbRun, c *Comm, buf []byte, count int, d *Datatype, root int) error {
	var k call
	if err := k.begin(nil, c, coll.Bcast); err != nil {
		return err
	}
	k.nb = nb
	isRoot := k.root(root)
	receives := !isRoot && (!k.inter() || root != ProcNull)
	b := []byte{}
	switch {
	case isRoot:
		b = k.pack("buffer", buf, count, d)
	case receives:
		b = k.room("buffer", buf, count, d)
	}
	switch {
	case !k.inter(), isRoot:
		k.sig.Send = int64(len(b))
	case root != ProcNull:
		k.sig.Recv = int64(len(b))
	}
	return k.run(func(a *coll.Actions) error {
		if err := a.Bcast(k.cc, b, root); err != nil || !receives {
			return err
		}
		return k.then(func() error { return Unpack(b, new(int), buf, count, d) })
	})
}

// GatherType collects scount elements of stype from every process's send
// at the root (MPI_Gather with datatypes): process i's arrive as rcount
// elements of rtype at recv[i*rcount*rtype.Extent():]. At the root, send
// may be nil: its block is already in place in recv.
func GatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	return iGatherType(nil, c, send, scount, stype, recv, rcount, rtype, root)
}

func iGatherType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	var k call
	if err := k.begin(nil, c, coll.Gather); err != nil {
		return err
	}
	k.nb = nb
	isRoot := k.root(root)
	n := k.n()
	var s, r []byte
	if isRoot {
		r = k.room("receive", recv, n*rcount, rtype)
	}
	if !k.rootSide(root) {
		if send == nil && isRoot && !k.inter() {
			k.inPlace(recv, r, rcount, rtype)
		} else {
			s = k.pack("send", send, scount, stype)
		}
	}
	s = k.gatherSig(s, r, root, isRoot, 1, "bytes")
	return k.run(func(a *coll.Actions) error {
		if err := a.Gather(k.cc, s, r, root); err != nil || !isRoot {
			return err
		}
		return k.then(func() error { return Unpack(r, new(int), recv, n*rcount, rtype) })
	})
}

// ScatterType sends block i of the root's send, scount elements of stype
// at send[i*scount*stype.Extent():], to process i's recv as rcount
// elements of rtype (MPI_Scatter with datatypes). At the root, recv may
// be nil: its block stays in place in send.
func ScatterType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	return iScatterType(nil, c, send, scount, stype, recv, rcount, rtype, root)
}

func iScatterType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	var k call
	if err := k.begin(nil, c, coll.Scatter); err != nil {
		return err
	}
	k.nb = nb
	isRoot := k.root(root)
	n := k.n()
	var s, r []byte
	if isRoot {
		s = k.pack("send", send, n*scount, stype)
	}
	receives := !k.rootSide(root) && !(recv == nil && isRoot && !k.inter())
	if receives {
		r = k.room("receive", recv, rcount, rtype)
	}
	k.scatterSig(s, r, root, isRoot, 1, "bytes")
	return k.run(func(a *coll.Actions) error {
		if err := a.Scatter(k.cc, s, r, root); err != nil || !receives {
			return err
		}
		return k.then(func() error { return Unpack(r, new(int), recv, rcount, rtype) })
	})
}

// AllgatherType gathers scount elements of stype from every process into
// every process's recv, process i's as rcount elements of rtype at
// recv[i*rcount*rtype.Extent():] (MPI_Allgather with datatypes). send may
// be nil (not on an intercommunicator): each process's block is already
// in place in recv.
func AllgatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	return iAllgatherType(nil, c, send, scount, stype, recv, rcount, rtype)
}

func iAllgatherType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	var k call
	if err := k.begin(nil, c, coll.Allgather); err != nil {
		return err
	}
	k.nb = nb
	n := k.n()
	r := k.room("receive", recv, n*rcount, rtype)
	var s []byte
	if send == nil && !k.inter() {
		k.inPlace(recv, r, rcount, rtype)
	} else {
		s = k.pack("send", send, scount, stype)
	}
	s = k.allgatherSig(s, r, 1, "bytes")
	return k.run(func(a *coll.Actions) error {
		if err := a.Allgather(k.cc, s, r); err != nil {
			return err
		}
		return k.then(func() error { return Unpack(r, new(int), recv, n*rcount, rtype) })
	})
}

// AlltoallType sends block j of send, scount elements of stype at
// send[j*scount*stype.Extent():], to process j, and receives block i of
// recv, rcount elements of rtype at recv[i*rcount*rtype.Extent():], from
// process i (MPI_Alltoall with datatypes).
func AlltoallType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	return iAlltoallType(nil, c, send, scount, stype, recv, rcount, rtype)
}

func iAlltoallType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	var k call
	if err := k.begin(nil, c, coll.Alltoall); err != nil {
		return err
	}
	k.nb = nb
	n := k.n()
	s := k.pack("send", send, n*scount, stype)
	r := k.room("receive", recv, n*rcount, rtype)
	if !k.inter() && len(s) != len(r) {
		k.bad(ErrCount, "send (%d bytes) and receive (%d) blocks differ", len(s), len(r))
	}
	s = k.alltoallSig(s, r)
	return k.run(func(a *coll.Actions) error {
		if err := a.Alltoall(k.cc, s, r); err != nil {
			return err
		}
		return k.then(func() error { return Unpack(r, new(int), recv, n*rcount, rtype) })
	})
}

// typedBlocks is the packed blocks of a v or w collective over
// datatypes (see packBlocks), one per process of k.n(); nil after an
// argument error, recorded on k.
func (k *call) typedBlocks(what string, buf []byte, counts, displs []int, types []*Datatype, fill bool) [][]byte {
	out, err := packBlocks(what, buf, counts, displs, types, k.n(), "processes", fill)
	if err != nil {
		k.badErr(err)
	}
	return out
}

// packBlocks cuts buf into the n packed blocks of a collective over
// datatypes (n of whom: "processes", "neighbours"): block i is counts[i]
// elements of types[i] at buf[displs[i]:] (displs in bytes). With fill
// they are packed now (blocks to send); without, buf is checked to hold
// them (blocks to receive).
func packBlocks(what string, buf []byte, counts, displs []int, types []*Datatype, n int, whom string, fill bool) ([][]byte, error) {
	if len(counts) != n || len(displs) != n || len(types) != n {
		return nil, errorf(ErrArg, "%s: %d counts, %d displacements and %d types for %d %s", what, len(counts), len(displs), len(types), n, whom)
	}
	out := make([][]byte, n)
	for i := range n {
		if err := checkOld(types[i], counts[i]); err != nil {
			return nil, within(Class(err), fmt.Sprintf("%s: block %d", what, i), err)
		}
		if displs[i] < 0 || displs[i] > len(buf) {
			return nil, errorf(ErrBuffer, "%s: block %d: displacement %d is outside the buffer of %d bytes", what, i, displs[i], len(buf))
		}
		out[i] = coll.Buffer(PackSize(counts[i], types[i]))
		if out[i] == nil {
			out[i] = []byte{}
		}
		var err error
		if fill {
			err = Pack(buf[displs[i]:], counts[i], types[i], out[i], new(int))
		} else {
			err = walk(buf[displs[i]:], counts[i], types[i], func([]byte) {})
		}
		if err != nil {
			return nil, within(ErrBuffer, fmt.Sprintf("%s: block %d", what, i), err)
		}
	}
	return out, nil
}

// unpackBlocks unpacks the blocks a collective received into buf, as
// packBlocks cut it; a nil block moved nothing and is skipped.
func unpackBlocks(blocks [][]byte, buf []byte, counts, displs []int, types []*Datatype) error {
	for i, b := range blocks {
		if b == nil {
			continue
		}
		if err := Unpack(b, new(int), buf[displs[i]:], counts[i], types[i]); err != nil {
			return err
		}
	}
	return nil
}

// vLayout turns a v collective's displacements, in extents of d, into
// bytes, with d for every block (nil, recorded on k, if they are not one
// per process).
func (k *call) vLayout(what string, counts, displs []int, d *Datatype) ([]int, []*Datatype) {
	n := k.n()
	if len(counts) != n || len(displs) != n {
		k.bad(ErrArg, "%s: %d counts and %d displacements for %d processes", what, len(counts), len(displs), n)
		return nil, nil
	}
	ext := 0
	if d != nil {
		ext = d.Extent()
	}
	bytes, types := make([]int, n), make([]*Datatype, n)
	for i := range n {
		bytes[i], types[i] = displs[i]*ext, d
	}
	return bytes, types
}

// GathervType collects scount elements of stype from every process's
// send at the root (MPI_Gatherv with datatypes): process i's arrive as
// counts[i] elements of rtype at recv[displs[i]*rtype.Extent():]; counts,
// displs and rtype matter at the root only. At the root, send may be
// nil: its block is already in place in recv.
func GathervType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype, root int) error {
	return iGathervType(nil, c, send, scount, stype, recv, counts, displs, rtype, root)
}

func iGathervType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype, root int) error {
	var k call
	if err := k.begin(nil, c, coll.Gatherv); err != nil {
		return err
	}
	k.nb = nb
	isRoot := k.root(root)
	var blocks [][]byte
	var bd []int
	var types []*Datatype
	if isRoot {
		bd, types = k.vLayout("receive", counts, displs, rtype)
		if bd != nil {
			blocks = k.typedBlocks("receive", recv, counts, bd, types, false)
		}
	}
	var s []byte
	if !k.rootSide(root) {
		if send == nil && isRoot && !k.inter() {
			if blocks != nil { // in place: the root's own block, packed
				me := k.c.rank
				if err := Pack(recv[bd[me]:], counts[me], rtype, blocks[me], new(int)); err != nil {
					k.bad(ErrBuffer, "in place: %w", err)
				}
			}
		} else {
			s = k.pack("send", send, scount, stype)
			if isRoot && blocks != nil && len(s) != len(blocks[k.c.rank]) {
				k.bad(ErrCount, "the root sends %d bytes into a block of %d", len(s), len(blocks[k.c.rank]))
			}
		}
	}
	return k.run(func(a *coll.Actions) error {
		if err := a.Gatherv(k.cc, s, blocks, root); err != nil || !isRoot {
			return err
		}
		return k.then(func() error { return unpackBlocks(blocks, recv, counts, bd, types) })
	})
}

// ScattervType sends counts[i] elements of stype at
// send[displs[i]*stype.Extent():] of the root to process i, which
// receives them as rcount elements of rtype in recv (MPI_Scatterv with
// datatypes); send, counts, displs and stype matter at the root only. At
// the root, recv may be nil: its block stays in place in send.
func ScattervType(c *Comm, send []byte, counts, displs []int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	return iScattervType(nil, c, send, counts, displs, stype, recv, rcount, rtype, root)
}

func iScattervType(nb *nbRun, c *Comm, send []byte, counts, displs []int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	var k call
	if err := k.begin(nil, c, coll.Scatterv); err != nil {
		return err
	}
	k.nb = nb
	isRoot := k.root(root)
	var blocks [][]byte
	if isRoot {
		if bd, types := k.vLayout("send", counts, displs, stype); bd != nil {
			blocks = k.typedBlocks("send", send, counts, bd, types, true)
		}
	}
	receives := !k.rootSide(root) && !(recv == nil && isRoot && !k.inter())
	var r []byte
	if receives {
		r = k.room("receive", recv, rcount, rtype)
		if isRoot && blocks != nil && len(r) != len(blocks[k.c.rank]) {
			k.bad(ErrCount, "the root receives a block of %d bytes into %d", len(blocks[k.c.rank]), len(r))
		}
	}
	return k.run(func(a *coll.Actions) error {
		if err := a.Scatterv(k.cc, blocks, r, root); err != nil || !receives {
			return err
		}
		return k.then(func() error { return Unpack(r, new(int), recv, rcount, rtype) })
	})
}

// AllgathervType gathers scount elements of stype from every process
// into every process's recv, process i's as counts[i] elements of rtype
// at recv[displs[i]*rtype.Extent():] (MPI_Allgatherv with datatypes);
// every process passes the same counts and displs. send may be nil (not
// on an intercommunicator): each block is already in place in recv.
func AllgathervType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype) error {
	return iAllgathervType(nil, c, send, scount, stype, recv, counts, displs, rtype)
}

func iAllgathervType(nb *nbRun, c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype) error {
	var k call
	if err := k.begin(nil, c, coll.Allgatherv); err != nil {
		return err
	}
	k.nb = nb
	bd, types := k.vLayout("receive", counts, displs, rtype)
	var blocks [][]byte
	if bd != nil {
		blocks = k.typedBlocks("receive", recv, counts, bd, types, false)
	}
	var s []byte
	switch {
	case send != nil || k.inter():
		s = k.noInPlace(send)
		if s != nil {
			s = k.pack("send", send, scount, stype)
		}
	case blocks != nil: // in place: this process's block, packed
		me := k.c.rank
		if err := Pack(recv[bd[me]:], counts[me], rtype, blocks[me], new(int)); err != nil {
			k.bad(ErrBuffer, "in place: %w", err)
		}
	}
	if !k.inter() {
		k.sig.Counts = digest(counts, displs)
		if blocks != nil && s != nil && len(s) != len(blocks[k.c.rank]) {
			k.bad(ErrCount, "sending %d bytes into a block of %d", len(s), len(blocks[k.c.rank]))
		}
	}
	return k.run(func(a *coll.Actions) error {
		if err := a.Allgatherv(k.cc, s, blocks); err != nil {
			return err
		}
		return k.then(func() error { return unpackBlocks(blocks, recv, counts, bd, types) })
	})
}

// AlltoallvType sends scounts[j] elements of stype at
// send[sdispls[j]*stype.Extent():] to process j and receives rcounts[i]
// elements of rtype at recv[rdispls[i]*rtype.Extent():] from process i
// (MPI_Alltoallv with datatypes). send may be nil (with nil scounts,
// sdispls and stype; not on an intercommunicator): recv holds the blocks
// to send, and gets those received.
func AlltoallvType(c *Comm, send []byte, scounts, sdispls []int, stype *Datatype, recv []byte, rcounts, rdispls []int, rtype *Datatype) error {
	return alltoallTyped(nil, coll.Alltoallv, c, send, scounts, sdispls, nil, stype, recv, rcounts, rdispls, nil, rtype)
}
