package mpi

import (
	"context"

	"github.com/lamgo/lam/libmpi/internal/codec"
	"github.com/lamgo/lam/libmpi/internal/core"
)

// Go values as messages, as mpi4py's lowercase methods are for Python:
// SendValue and RecvValue (and the Value collectives) carry any Go value
// the receiver names the type of, beside the typed-slice functions.
//
// How a value travels depends on its type alone. A type of fixed size
// holding no pointers (booleans, numbers, arrays and structs of them)
// travels as its own memory, a slice of such a type as its elements'
// memory and a string as its bytes, with no encoding step and no copy on
// the way out (nor, for point-to-point, on the way in, but for a string).
// Any other type (maps, slices of slices or of strings, pointers,
// interfaces) travels as encoding/gob: interface
// values need their concrete types given to gob.Register, as gob says.
// Sender and receiver must name the same type (MPI's type-matching rule);
// a message that cannot be a value of the receiver's type is an ErrType
// error, as is a value gob cannot encode (a channel, a function, a struct
// with no exported fields), with gob's error wrapped. A nil and an empty
// slice both arrive as nil.
//
// The receiver does not know a value's size in advance: RecvValue and
// IrecvValue post a receive whose buffer is made, at the size of the
// message, when a message matches it, so they match in the order
// receives were posted, as Recv does, and concurrent receivers under
// ThreadMultiple never take one another's messages.

// valueError is the error of a value that cannot be encoded or decoded.
func valueError(what string, err error) *Error {
	return errorf(ErrType, "%s: %w", what, err)
}

// SendValue sends the value v to rank dest of c with tag (standard mode;
// it returns when v may be changed).
func SendValue[T any](c *Comm, v T, dest, tag int) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	b, err := codec.Encode(&v)
	if err != nil {
		return c.fail(valueError("SendValue", err))
	}
	return Send(c, b, dest, tag)
}

// SendValueContext is SendValue, giving up when ctx ends as SendContext
// does.
func SendValueContext[T any](ctx context.Context, c *Comm, v T, dest, tag int) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	b, err := codec.Encode(&v)
	if err != nil {
		return c.fail(valueError("SendValue", err))
	}
	return SendContext(ctx, c, b, dest, tag)
}

// IsendValue starts sending the value v. A slice of a fixed-size type is
// sent from its own elements, which must not change until the request
// completes (as with Isend); any other value is encoded (or copied) before
// IsendValue returns.
func IsendValue[T any](c *Comm, v T, dest, tag int) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	b, err := codec.Encode(&v)
	if err != nil {
		return nil, c.fail(valueError("IsendValue", err))
	}
	return Isend(c, b, dest, tag)
}

// RecvValue receives a value of type T from rank source of c (or
// AnySource) with tag (or AnyTag). The status's Bytes is the size of the
// message (the value's memory, or its encoding). From ProcNull it returns
// T's zero value at once.
func RecvValue[T any](c *Comm, source, tag int) (T, Status, error) {
	return RecvValueContext[T](context.Background(), c, source, tag)
}

// RecvValueContext is RecvValue, giving up when ctx ends before a message
// came (an error of class ErrOther that wraps ctx.Err(), with a status
// that says Cancelled); once one has come, it is received whatever ctx
// says.
func RecvValueContext[T any](ctx context.Context, c *Comm, source, tag int) (T, Status, error) {
	var v T
	r, err := IrecvValue(c, &v, source, tag)
	if err != nil {
		return v, Status{}, err
	}
	if werr := st.engine.Wait(ctx, r.r); werr != nil {
		st.engine.Cancel(r.r)
		if err := st.engine.Wait(context.Background(), r.r); err != nil {
			return v, Status{}, c.fail(fromCore(err))
		}
		if s := r.r.Status(); s.Cancelled {
			return v, statusOf(s), gaveUp(ErrOther, "receive", werr)
		}
	}
	s, err := r.done()
	return v, s, err
}

// IrecvValue starts receiving a value of type T into *v from rank source
// of c (or AnySource) with tag (or AnyTag); *v belongs to the receive
// until its request completes. It is a receive like Irecv, matched in
// the order receives were posted, whose buffer is made when a message
// matches it, at the message's size: into *v's own memory for a
// fixed-size type, or a buffer that Wait (Test, …) decodes. A message
// that cannot be a T is an ErrType error of the request. Cancel works as
// for Irecv.
func IrecvValue[T any](c *Comm, v *T, source, tag int) (*Request, error) {
	e, err := recvArgs(c, source, tag)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, c.fail(errorf(ErrArg, "IrecvValue into a nil pointer"))
	}
	r := &Request{r: e.NewRecv(nil, source, tag, c.context), comm: c}
	var direct bool
	var terr error
	r.r.Size = func(n int) []byte {
		var buf []byte
		buf, direct, terr = codec.Target(v, n)
		if terr != nil {
			buf = make([]byte, n) // take the message all the same
		}
		return buf
	}
	r.more().decode = func(s core.Status) error {
		switch {
		case s.Err != nil || s.Cancelled:
			return nil
		case s.Source == ProcNull:
			*v = *new(T)
			return nil
		case terr != nil:
			return valueError("IrecvValue", terr)
		case !direct:
			if err := codec.Decode(r.r.Buffer()[:s.Count], v); err != nil {
				return valueError("IrecvValue", err)
			}
		}
		return nil
	}
	return start(r, nil)
}

// SendrecvValue sends v to dest and receives a value of type U from
// source at once.
func SendrecvValue[T, U any](c *Comm, v T, dest, sendtag, source, recvtag int) (U, Status, error) {
	r, err := IsendValue(c, v, dest, sendtag)
	if err != nil {
		var zero U
		return zero, Status{}, err
	}
	u, st, rerr := RecvValue[U](c, source, recvtag)
	if _, err := r.Wait(); err != nil && rerr == nil {
		return u, st, err
	}
	return u, st, rerr
}
