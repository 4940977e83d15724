package mpi

import "github.com/lamgo/lam/libmpi/internal/core"

// Point-to-point over derived datatypes. The data travels packed: a send
// packs count elements of d from buf before the message leaves, a
// receive takes the packed bytes and unpacks them into buf when the
// request is reported complete (by Wait, Test, the Wait/Test any, some
// and all functions, or RequestGetStatus), so buf holds the data from
// then on, as MPI says. Status.Bytes counts the data bytes (GetCountType
// turns it into elements, GetElements into basic elements); a message
// that ends inside an element fills that element's data as far as it
// goes.

// typedIO is a request's data over a derived datatype.
type typedIO struct {
	buf    []byte
	count  int
	d      *Datatype
	packed []byte // what the transfer moves
	recv   bool
}

// newTyped checks count elements of d in buf and, for a send, packs
// them.
func newTyped(buf []byte, count int, d *Datatype, recv bool) (*typedIO, error) {
	if err := checkOld(d, count); err != nil {
		return nil, err
	}
	t := &typedIO{buf: buf, count: count, d: d, packed: make([]byte, PackSize(count, d)), recv: recv}
	if recv {
		return t, walk(buf, count, d, func([]byte) {})
	}
	return t, t.start()
}

// start prepares a (re)start: a send packs buf again.
func (t *typedIO) start() error {
	if t.recv {
		return nil
	}
	return Pack(t.buf, t.count, t.d, t.packed, new(int))
}

// land unpacks a completed receive's n bytes into buf; a partial last
// element is filled as far as the bytes go.
func (t *typedIO) land(n int) {
	if !t.recv {
		return
	}
	in := t.packed[:min(max(n, 0), len(t.packed))]
	walk(t.buf, t.count, t.d, func(b []byte) { in = in[copy(b, in):] })
}

// typedRequest makes the request of a send (recv false) or receive of
// count elements of d in buf; persistent requests are not started.
func typedRequest(c *Comm, buf []byte, count int, d *Datatype, recv, persist bool, make func(packed []byte) (*Request, error)) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	t, err := newTyped(buf, count, d, recv)
	if err != nil {
		return nil, c.fail(err)
	}
	r, err := make(t.packed)
	if err != nil {
		return nil, err
	}
	r.typed = t
	if persist {
		return persistent(r, nil)
	}
	return start(r, nil)
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
// (MPI_Isend with a datatype). The data is packed before it returns, so
// buf may be reused at once.
func IsendType(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, false, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Standard)
	})
}

// SendTypeInit makes a persistent standard-mode send of count elements
// of d from buf (MPI_Send_init with a datatype); each Start packs buf as
// it is then.
func SendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Standard)
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
	return typedRequest(c, buf, count, d, true, false, func(p []byte) (*Request, error) {
		return newRecv(c, p, source, tag)
	})
}

// RecvTypeInit makes a persistent receive of up to count elements of d
// into buf (MPI_Recv_init with a datatype).
func RecvTypeInit(c *Comm, buf []byte, count int, d *Datatype, source, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, true, true, func(p []byte) (*Request, error) {
		return newRecv(c, p, source, tag)
	})
}
