package mpi

import "github.com/lamgo/lam/libmpi/coll"

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
		k.bad(Class(err), "%s: %w", what, err)
		return []byte{}
	}
	out := make([]byte, PackSize(count, d))
	if err := Pack(buf, count, d, out, new(int)); err != nil {
		k.bad(ErrBuffer, "%s: %w", what, err)
	}
	return out
}

// room checks that buf holds count elements of d and returns a buffer
// for their packed bytes.
func (k *call) room(what string, buf []byte, count int, d *Datatype) []byte {
	if err := checkOld(d, count); err != nil {
		k.bad(Class(err), "%s: %w", what, err)
		return []byte{}
	}
	if err := walk(buf, count, d, func([]byte) {}); err != nil {
		k.bad(ErrBuffer, "%s: %w", what, err)
	}
	return make([]byte, PackSize(count, d))
}

// unpack fills buf from the packed bytes a collective received.
func (k *call) unpack(packed, buf []byte, count int, d *Datatype) error {
	return k.c.fail(Unpack(packed, new(int), buf, count, d))
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
	k, err := begin(c, coll.Bcast)
	if err != nil {
		return err
	}
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
	if err := k.run(func(a *coll.Actions) error { return a.Bcast(k.cc, b, root) }); err != nil || !receives {
		return err
	}
	return k.unpack(b, buf, count, d)
}

// GatherType collects scount elements of stype from every process's send
// at the root (MPI_Gather with datatypes): process i's arrive as rcount
// elements of rtype at recv[i*rcount*rtype.Extent():]. At the root, send
// may be nil: its block is already in place in recv.
func GatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	k, err := begin(c, coll.Gather)
	if err != nil {
		return err
	}
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
	if err := k.run(func(a *coll.Actions) error { return a.Gather(k.cc, s, r, root) }); err != nil || !isRoot {
		return err
	}
	return k.unpack(r, recv, n*rcount, rtype)
}

// ScatterType sends block i of the root's send, scount elements of stype
// at send[i*scount*stype.Extent():], to process i's recv as rcount
// elements of rtype (MPI_Scatter with datatypes). At the root, recv may
// be nil: its block stays in place in send.
func ScatterType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) error {
	k, err := begin(c, coll.Scatter)
	if err != nil {
		return err
	}
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
	if err := k.run(func(a *coll.Actions) error { return a.Scatter(k.cc, s, r, root) }); err != nil || !receives {
		return err
	}
	return k.unpack(r, recv, rcount, rtype)
}

// AllgatherType gathers scount elements of stype from every process into
// every process's recv, process i's as rcount elements of rtype at
// recv[i*rcount*rtype.Extent():] (MPI_Allgather with datatypes). send may
// be nil (not on an intercommunicator): each process's block is already
// in place in recv.
func AllgatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	k, err := begin(c, coll.Allgather)
	if err != nil {
		return err
	}
	n := k.n()
	r := k.room("receive", recv, n*rcount, rtype)
	var s []byte
	if send == nil && !k.inter() {
		k.inPlace(recv, r, rcount, rtype)
	} else {
		s = k.pack("send", send, scount, stype)
	}
	s = k.allgatherSig(s, r, 1, "bytes")
	if err := k.run(func(a *coll.Actions) error { return a.Allgather(k.cc, s, r) }); err != nil {
		return err
	}
	return k.unpack(r, recv, n*rcount, rtype)
}

// AlltoallType sends block j of send, scount elements of stype at
// send[j*scount*stype.Extent():], to process j, and receives block i of
// recv, rcount elements of rtype at recv[i*rcount*rtype.Extent():], from
// process i (MPI_Alltoall with datatypes).
func AlltoallType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) error {
	k, err := begin(c, coll.Alltoall)
	if err != nil {
		return err
	}
	n := k.n()
	s := k.pack("send", send, n*scount, stype)
	r := k.room("receive", recv, n*rcount, rtype)
	if !k.inter() && len(s) != len(r) {
		k.bad(ErrCount, "send (%d bytes) and receive (%d) blocks differ", len(s), len(r))
	}
	s = k.alltoallSig(s, r)
	if err := k.run(func(a *coll.Actions) error { return a.Alltoall(k.cc, s, r) }); err != nil {
		return err
	}
	return k.unpack(r, recv, n*rcount, rtype)
}
