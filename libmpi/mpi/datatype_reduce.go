package mpi

import "github.com/lamgo/lam/libmpi/coll"

// basicOf is the one basic type all of d's data is made of, or nil if it
// mixes several (or has none).
func basicOf(d *Datatype) *Datatype {
	var t *Datatype
	for _, r := range d.runs {
		if t == nil {
			t = r.t
		} else if r.t != t {
			return nil
		}
	}
	return t
}

// ReduceType combines count elements of d from every process's send with
// op into the root's recv (MPI_Reduce with a datatype): d's data is
// reduced basic element by basic element, so d must be made of one basic
// type (a column of Float64s, a subarray of Int32s, …), and a user's op
// is one NewOp made for that Go type. At the root, send may be nil: its
// contribution is in recv, which gets the result.
func ReduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op, root int) error {
	return reduceType(c, coll.Reduce, send, recv, count, d, op, root)
}

// AllreduceType is ReduceType with the result in every process's recv
// (MPI_Allreduce with a datatype); send may be nil: each contribution is
// in recv.
func AllreduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) error {
	return reduceType(c, coll.Allreduce, send, recv, count, d, op, 0)
}

func reduceType(c *Comm, kind coll.Kind, send, recv []byte, count int, d *Datatype, op *Op, root int) error {
	var pre error = checkOld(d, count)
	var t *Datatype
	if pre == nil {
		if t = basicOf(d); t == nil && d.size > 0 {
			pre = errorf(ErrType, "%s mixes basic types: a reduction needs one", d.name)
		}
	}
	if pre != nil {
		return reduceAs[uint8](c, kind, send, recv, 0, nil, op, root, pre)
	}
	f := reducers[t]
	if f == nil { // bytes, chars, bools, uint8s, or no data at all
		f = reduceAs[uint8]
	}
	return f(c, kind, send, recv, count, d, op, root, nil)
}

// reducers runs a reduction over each basic type as its Go type.
var reducers = map[*Datatype]func(c *Comm, kind coll.Kind, send, recv []byte, count int, d *Datatype, op *Op, root int, pre error) error{
	Int8: reduceAs[int8], Int16: reduceAs[int16], Uint16: reduceAs[uint16],
	Int32: reduceAs[int32], Uint32: reduceAs[uint32], Int64: reduceAs[int64], Uint64: reduceAs[uint64],
	Float32: reduceAs[float32], Float64: reduceAs[float64],
	Complex64: reduceAs[complex64], Complex128: reduceAs[complex128],
}

// reduceAs runs the reduction of count elements of d, packed as elements
// of T; pre is an argument error found before, reported on every process.
func reduceAs[T CollElem](c *Comm, kind coll.Kind, send, recv []byte, count int, d *Datatype, op *Op, root int, pre error) error {
	k, err := begin(c, kind)
	if err != nil {
		return err
	}
	o := reduction[T](&k, op)
	if pre != nil {
		k.bad(Class(pre), "%w", pre)
	}
	isRoot := kind == coll.Allreduce || k.root(root)
	n := 0
	if d != nil {
		n = count * d.size / sizeOf[T]()
	}
	sv, rv := make([]T, n), make([]T, n)
	s, r := raw(sv), raw(rv)
	contributes := !k.inter() || kind == coll.Allreduce || !isRoot && root != ProcNull
	if d != nil && contributes {
		from := send
		if send == nil && !k.inter() {
			from = recv // in place
		}
		if err := Pack(from, count, d, s, new(int)); err != nil {
			k.bad(ErrBuffer, "send: %w", err)
		}
	}
	if d != nil && isRoot {
		if err := walk(recv, count, d, func([]byte) {}); err != nil {
			k.bad(ErrBuffer, "receive: %w", err)
		}
	}
	switch {
	case kind == coll.Allreduce:
		k.sig.Send = int64(n)
		if k.inter() {
			k.sig.Recv = int64(n)
		}
	case !k.inter():
		k.sig.Send = int64(n)
	case isRoot:
		k.sig.Recv = int64(n)
		s = nil
	case root != ProcNull:
		k.sig.Send = int64(n)
	default:
		s = nil
	}
	err = k.run(func(a *coll.Actions) error {
		if kind == coll.Allreduce {
			return a.Allreduce(k.cc, s, r, o)
		}
		return a.Reduce(k.cc, s, r, o, root)
	})
	if err != nil || !isRoot {
		return err
	}
	return k.c.fail(Unpack(r, new(int), recv, count, d))
}
