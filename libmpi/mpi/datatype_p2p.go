package mpi

import (
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// Point-to-point over derived datatypes. The data moves straight between
// buf and the transport, without a packed copy: a send hands the
// transport the type's blocks in buf (a layout, core.Request.SetLayout),
// which gathers them as they leave (writev over tcp, a copy into the
// shared-memory ring, or one process_vm_writev into a contiguous
// receiver's buffer); a receive's blocks take the message's bytes where
// they arrive. So, as MPI says, buf must not change (a send) or be read
// (a receive) until the request is complete. Status.Bytes counts the data
// bytes (GetCountType turns it into elements, GetElements into basic
// elements); a message that ends inside an element fills that element's
// data as far as it goes.
//
// Buffered sends (BsendTypeInit) and matched-probe receives (ImrecvType)
// still go through a packed copy: the first must copy the data into the
// attached buffer anyway, the second gets a message whose receive is
// already under way.

// typedIO is a request's data over a derived datatype.
type typedIO struct {
	buf    []byte
	count  int
	d      *Datatype
	lay    rpi.Layout // the data in buf, as the transport moves it
	packed []byte     // or a packed copy of it (nil unless packing)
	recv   bool
}

// newTyped checks count elements of d in buf; with pack it moves them
// through a packed copy (packed now, for a send), else in place.
func newTyped(buf []byte, count int, d *Datatype, recv, pack bool) (*typedIO, error) {
	if err := checkSpan(buf, count, d); err != nil {
		return nil, err
	}
	t := &typedIO{buf: buf, count: count, d: d, recv: recv}
	if !pack {
		t.lay = rpi.Layout{Base: buf, Blocks: d.blocks, Count: count, Extent: d.Extent(), Size: d.size}
		return t, nil
	}
	t.packed = make([]byte, PackSize(count, d))
	return t, t.start()
}

// checkSpan checks that count elements of d lie inside buf (what walk
// checks block by block, from the type's true bounds at once).
func checkSpan(buf []byte, count int, d *Datatype) error {
	if err := checkOld(d, count); err != nil {
		return err
	}
	if count == 0 || d.size == 0 {
		return nil
	}
	last := (count - 1) * d.Extent()
	if min(d.tlb, last+d.tlb) < 0 || max(d.tub, last+d.tub) > len(buf) {
		return errorf(ErrBuffer, "%d elements of %s do not fit in a buffer of %d bytes", count, d.name, len(buf))
	}
	return nil
}

// start prepares a (re)start: a packed send packs buf again.
func (t *typedIO) start() error {
	if t.recv || t.packed == nil {
		return nil
	}
	return Pack(t.buf, t.count, t.d, t.packed, new(int))
}

// land unpacks a completed packed receive's n bytes into buf; a partial
// last element is filled as far as the bytes go. (A receive in place has
// its data already.)
func (t *typedIO) land(n int) {
	if !t.recv || t.packed == nil {
		return
	}
	in := t.packed[:min(max(n, 0), len(t.packed))]
	walk(t.buf, t.count, t.d, func(b []byte) { in = in[copy(b, in):] })
}

// typedRequest makes the request of a send (recv false) or receive of
// count elements of d in buf, its data moved in place; persistent
// requests are not started. make makes the request over no buffer.
func typedRequest(c *Comm, buf []byte, count int, d *Datatype, recv, persist bool, make func() (*Request, error)) (*Request, error) {
	r, err := typedNew(c, buf, count, d, recv, false, func([]byte) (*Request, error) { return make() })
	if err != nil {
		return nil, err
	}
	if persist {
		return persistent(r, nil)
	}
	return start(r, nil)
}

// typedNew makes the request, not started, of a send or receive of count
// elements of d in buf: with pack over a packed copy (make gets it),
// else in place (make gets nil and the request the layout).
func typedNew(c *Comm, buf []byte, count int, d *Datatype, recv, pack bool, make func(packed []byte) (*Request, error)) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	t, err := newTyped(buf, count, d, recv, pack)
	if err != nil {
		return nil, c.fail(err)
	}
	r, err := make(t.packed)
	if err != nil {
		return nil, err
	}
	if !pack {
		r.r.SetLayout(&t.lay)
	}
	r.more().typed = t
	return r, nil
}

// SendType sends count elements of d from buf (MPI_Send with a
// datatype).
func SendType(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) error {
	r, err := IsendType(c, buf, count, d, dest, tag)
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// IsendType starts a standard-mode send of count elements of d from buf
// (MPI_Isend with a datatype). The data leaves from buf itself, so buf
// must not change until the request is complete.
func IsendType(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, false, func() (*Request, error) {
		return newSend(c, []byte(nil), dest, tag, core.Standard)
	})
}

// SendTypeInit makes a persistent standard-mode send of count elements
// of d from buf (MPI_Send_init with a datatype); each Start sends buf as
// it is then.
func SendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func() (*Request, error) {
		return newSend(c, []byte(nil), dest, tag, core.Standard)
	})
}

// RecvType receives up to count elements of d into buf (MPI_Recv with a
// datatype).
func RecvType(c *Comm, buf []byte, count int, d *Datatype, source, tag int) (Status, error) {
	r, err := IrecvType(c, buf, count, d, source, tag)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}

// IrecvType starts a receive of up to count elements of d into buf
// (MPI_Irecv with a datatype); buf holds the data once the request is
// reported complete.
func IrecvType(c *Comm, buf []byte, count int, d *Datatype, source, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, true, false, func() (*Request, error) {
		return newRecv(c, []byte(nil), source, tag)
	})
}

// RecvTypeInit makes a persistent receive of up to count elements of d
// into buf (MPI_Recv_init with a datatype).
func RecvTypeInit(c *Comm, buf []byte, count int, d *Datatype, source, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, true, true, func() (*Request, error) {
		return newRecv(c, []byte(nil), source, tag)
	})
}
