package mpi

import "github.com/lamgo/lam/libmpi/internal/core"

// The persistent sends over derived datatypes in the other modes: like
// SendTypeInit, each Start sends buf as it is then.

// SsendTypeInit makes a persistent synchronous-mode send of count
// elements of d from buf (MPI_Ssend_init with a datatype).
func SsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func() (*Request, error) {
		return newSend(c, []byte(nil), dest, tag, core.Sync)
	})
}

// RsendTypeInit makes a persistent ready-mode send of count elements of
// d from buf (MPI_Rsend_init with a datatype).
func RsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func() (*Request, error) {
		return newSend(c, []byte(nil), dest, tag, core.Ready)
	})
}

// BsendTypeInit makes a persistent buffered-mode send of count elements
// of d from buf (MPI_Bsend_init with a datatype): each Start packs buf
// into the attached buffer and completes at once.
func BsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	r, err := typedNew(c, buf, count, d, false, true, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Standard)
	})
	if err != nil {
		return nil, err
	}
	r.buffered = true
	return persistent(r, nil)
}

// ImrecvType starts receiving a message a matched probe took into count
// elements of d in buf (MPI_Imrecv with a datatype); buf holds the data
// once the request is reported complete.
func ImrecvType(buf []byte, count int, d *Datatype, m *Message) (*Request, error) {
	c := World
	if m != nil && m.comm != nil {
		c = m.comm
	}
	t, err := newTyped(buf, count, d, true, true)
	if err != nil {
		return nil, c.fail(err)
	}
	r, err := Imrecv(t.packed, m)
	if err != nil {
		return nil, err
	}
	r.more().typed = t
	return r, nil
}

// MrecvType receives a message a matched probe took into count elements
// of d in buf (MPI_Mrecv with a datatype).
func MrecvType(buf []byte, count int, d *Datatype, m *Message) (Status, error) {
	r, err := ImrecvType(buf, count, d, m)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}
