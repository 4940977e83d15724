package mpi

import (
	"hash/fnv"
	"reflect"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/codec"
	"github.com/lamgo/lam/libmpi/internal/reduce"
)

// The reductions over derived datatypes. A datatype made of one basic
// type (a column of Float64s, a subarray of Int32s, …) is reduced basic
// element by basic element, with a predefined op or a NewOp made for
// that Go type: each process packs its data, the reduction runs over the
// packed elements, and the result is unpacked. A datatype that mixes
// basic types (the elements of a Go struct) is reduced with an op made
// by NewTypeOp[T], T the Go type whose memory the datatype's elements
// are laid out as (TypeOf[T]() or a type built to match it): the
// reduction runs over whole T values, each process's data copied
// through the datatype into zeroed T values, so the bytes the datatype
// leaves out (padding, skipped fields) are zero in the op's in and
// inout, and the result goes back through the datatype, so they are
// left alone in the receive buffer.

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

// typeOp is the op of NewTypeOp, over whole values of a Go type.
type typeOp struct {
	size  int
	id    int                    // the element type, for the argument check
	apply func(in, inout []byte) // over whole values
}

// NewTypeOp makes a reduction over values of T (MPI_Op_create for a
// derived datatype), for ReduceType, AllreduceType, ScanType,
// ExscanType, ReduceScatterType and ReduceScatterBlockType with a
// datatype whose elements are laid out as T's memory (extent
// unsafe.Sizeof(T), lower bound 0): fn must set inout[i] = in[i] ∘
// inout[i] for every i, where in holds the contribution of lower ranks.
// T must be of fixed size and hold no pointers (numbers, arrays and
// structs of them), as TypeOf requires.
func NewTypeOp[T any](fn func(in, inout []T), commutative bool) (*Op, error) {
	if fn == nil {
		return nil, errorf(ErrOp, "NewTypeOp with a nil function")
	}
	t := reflect.TypeFor[T]()
	if codec.KindOf[T]() != codec.Plain || sizeOf[T]() == 0 {
		return nil, errorf(ErrType, "NewTypeOp: %v is not a type of fixed size without pointers", t)
	}
	h := fnv.New32a()
	h.Write([]byte(t.String()))
	return &Op{name: "user op", commute: commutative, typ: t, mem: &typeOp{
		size:  sizeOf[T](),
		id:    1<<32 | int(h.Sum32()),
		apply: func(in, inout []byte) { fn(reduce.View[T](in), reduce.View[T](inout)) },
	}}, nil
}

// ReduceType combines count elements of d from every process's send with
// op into the root's recv (MPI_Reduce with a datatype; see above for the
// ops a datatype takes). At the root, send may be nil: its contribution
// is in recv, which gets the result.
func ReduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op, root int) error {
	return reduceType(nil, coll.Reduce, c, send, recv, count, nil, d, op, root)
}

// AllreduceType is ReduceType with the result in every process's recv
// (MPI_Allreduce with a datatype); send may be nil: each contribution is
// in recv.
func AllreduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) error {
	return reduceType(nil, coll.Allreduce, c, send, recv, count, nil, d, op, 0)
}

// ScanType gives process i the combination with op of count elements of
// d from the send buffers of processes 0 to i (MPI_Scan with a
// datatype); send may be nil: the contribution is in recv.
func ScanType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) error {
	return reduceType(nil, coll.Scan, c, send, recv, count, nil, d, op, 0)
}

// ExscanType is ScanType over processes 0 to i-1; process 0's recv is
// left alone (MPI_Exscan with a datatype).
func ExscanType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) error {
	return reduceType(nil, coll.Exscan, c, send, recv, count, nil, d, op, 0)
}

// ReduceScatterType combines every process's send (sum(counts) elements
// of d) with op; process i gets counts[i] elements in recv
// (MPI_Reduce_scatter with a datatype). send may be nil: the input is in
// recv, which gets the result at its start.
func ReduceScatterType(c *Comm, send, recv []byte, counts []int, d *Datatype, op *Op) error {
	return reduceType(nil, coll.ReduceScatter, c, send, recv, 0, counts, d, op, 0)
}

// ReduceScatterBlockType combines every process's send (count elements
// of d per process) with op; process i gets block i, count elements, in
// recv (MPI_Reduce_scatter_block with a datatype). send may be nil: the
// input is in recv, which gets the result at its start.
func ReduceScatterBlockType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) error {
	return reduceType(nil, coll.ReduceScatterBlock, c, send, recv, count, nil, d, op, 0)
}

// redPlan is how a reduction over a datatype runs.
type redPlan struct {
	o     *coll.Op
	per   int  // the op's elements per element of the datatype
	whole bool // a NewTypeOp: copied through the datatype, not packed
	typ   int  // the element type, for the argument check
}

// noOp is the op of a reduction that will not run (an argument error).
var noOp = &coll.Op{Size: 1, Commutative: true, Apply: func(in, inout []byte) {}}

// alloc is room for n of the op's elements, zeroed and aligned for any
// Go type (coll.Buffer's are 8-byte aligned).
func (p redPlan) alloc(n int) []byte {
	if b := coll.Buffer(n * p.o.Size); b != nil {
		return b
	}
	return []byte{}
}

// planOf prepares the reduction of elements of d with op; after an
// error, the plan moves no data.
func planOf(d *Datatype, op *Op, counts ...int) (redPlan, *Error) {
	if err := checkOld(d, counts...); err != nil {
		return redPlan{o: noOp}, err.(*Error)
	}
	if op != nil && op.mem != nil {
		m := op.mem
		if d.Extent() != m.size || d.lb != 0 {
			return redPlan{o: noOp}, errorf(ErrType, "%s (extent %d, lower bound %d) is not laid out as %v (size %d)", d.name, d.Extent(), d.lb, op.typ, m.size)
		}
		return redPlan{o: &coll.Op{Size: m.size, Commutative: op.commute, Apply: m.apply}, per: 1, whole: true, typ: m.id}, nil
	}
	t := basicOf(d)
	if t == nil && d.size > 0 {
		return redPlan{o: noOp}, errorf(ErrType, "%s mixes basic types: its reduction needs an op of NewTypeOp", d.name)
	}
	f := planners[t]
	if f == nil { // bytes, chars, bools, uint8s, or no data at all
		f = planAs[uint8]
	}
	return f(op, d)
}

// plan is planOf for a collective: an error is recorded on k, and the op
// and element type go into its signature.
func (k *call) plan(d *Datatype, op *Op, counts ...int) redPlan {
	p, err := planOf(d, op, counts...)
	k.sig.Type = p.typ
	switch {
	case op == nil:
	case op.id != 0:
		k.sig.Op = op.id
	default:
		k.sig.Op = coll.UserOp
	}
	if err != nil {
		k.badErr(err)
	}
	return p
}

// planners plan a reduction over each basic type as its Go type.
var planners = map[*Datatype]func(op *Op, d *Datatype) (redPlan, *Error){
	Int8: planAs[int8], Int16: planAs[int16], Uint16: planAs[uint16],
	Int32: planAs[int32], Uint32: planAs[uint32], Int64: planAs[int64], Uint64: planAs[uint64],
	Float32: planAs[float32], Float64: planAs[float64],
	Complex64: planAs[complex64], Complex128: planAs[complex128],
}

func planAs[T CollElem](op *Op, d *Datatype) (redPlan, *Error) {
	o, typ, err := collOp[T](op)
	if err != nil {
		return redPlan{o: noOp, typ: typ}, err
	}
	return redPlan{o: o, per: d.size / sizeOf[T](), typ: typ}, nil
}

// ReduceLocalType applies op to count elements of d in in and inout,
// leaving inout = in ∘ inout (MPI_Reduce_local with a datatype; the ops
// a datatype takes are those of ReduceType).
func ReduceLocalType(in, inout []byte, count int, d *Datatype, op *Op) error {
	p, err := planOf(d, op, count)
	if err != nil {
		return within(err.Class, "ReduceLocalType", err)
	}
	n := count * p.per
	a, b := p.alloc(n), p.alloc(n)
	if err := p.in(in, count, d, a); err != nil {
		return within(ErrBuffer, "ReduceLocalType: in", err)
	}
	if err := p.in(inout, count, d, b); err != nil {
		return within(ErrBuffer, "ReduceLocalType: inout", err)
	}
	if n > 0 {
		p.o.Apply(a, b)
	}
	return p.out(b, inout, count, d)
}

// in fills b, the op's elements, from count elements of d in buf.
func (p redPlan) in(buf []byte, count int, d *Datatype, b []byte) error {
	if !p.whole {
		return Pack(buf, count, d, b, new(int))
	}
	return through(buf, b, count, d)
}

// out writes the op's elements b into count elements of d in buf.
func (p redPlan) out(b, buf []byte, count int, d *Datatype) error {
	if !p.whole {
		return Unpack(b, new(int), buf, count, d)
	}
	return through(b, buf, count, d)
}

// through copies the data of count elements of d from one buffer to
// another laid out alike.
func through(from, to []byte, count int, d *Datatype) error {
	tmp := make([]byte, PackSize(count, d))
	if err := Pack(from, count, d, tmp, new(int)); err != nil {
		return err
	}
	return Unpack(tmp, new(int), to, count, d)
}

// reduceType runs a reduction over elements of d: count of them per
// process (per block for ReduceScatterBlock), or counts for
// ReduceScatter.
func reduceType(nb *nbRun, kind coll.Kind, c *Comm, send, recv []byte, count int, counts []int, d *Datatype, op *Op, root int) error {
	var k call
	if err := k.begin(nil, c, kind); err != nil {
		return err
	}
	k.nb = nb
	nl := len(k.c.group)
	// in and out: elements of d this process contributes and gets.
	in, out := count, count
	switch kind {
	case coll.ReduceScatter:
		in = 0
		for _, x := range counts {
			in += max(x, 0)
		}
		if len(counts) != nl {
			k.bad(ErrArg, "%d counts for %d processes", len(counts), nl)
			out = 0
		} else {
			out = counts[k.c.rank]
		}
	case coll.ReduceScatterBlock:
		in = count * nl
	}
	p := k.plan(d, op, append([]int{count}, counts...)...)
	if k.sig.Err != nil {
		in, out = 0, 0
	}
	isRoot := kind != coll.Reduce || k.root(root)
	if kind == coll.Scan || kind == coll.Exscan {
		if k.inter() {
			k.bad(ErrComm, "scans are defined on intracommunicators only")
		}
	}
	contributes := !k.inter() || kind != coll.Reduce || !isRoot && root != ProcNull
	if send == nil && contributes && k.inter() {
		k.bad(ErrBuffer, "in place (a nil send buffer) is not allowed on an intercommunicator")
	}
	es := p.per * p.o.Size // bytes of the op's elements per element of d
	s, r := p.alloc(in*p.per), p.alloc(out*p.per)
	if k.sig.Err == nil && contributes {
		from := send
		if send == nil {
			from = recv // in place
		}
		if err := p.in(from, in, d, s); err != nil {
			k.bad(ErrBuffer, "send: %w", err)
		}
	}
	gets := isRoot && !(kind == coll.Exscan && k.c.rank == 0)
	if k.sig.Err == nil && gets {
		if err := walk(recv, out, d, func([]byte) {}); err != nil {
			k.bad(ErrBuffer, "receive: %w", err)
		}
	}
	bytes := make([]int, len(counts))
	for i, x := range counts {
		bytes[i] = x * es
	}
	if k.sig.Err != nil || len(bytes) != nl {
		bytes = make([]int, nl)
	}
	switch {
	case kind == coll.Reduce && k.inter() && isRoot:
		k.sig.Recv = int64(len(r))
		s = nil
	case kind == coll.Reduce && k.inter() && root == ProcNull:
		s = nil
	case kind == coll.ReduceScatterBlock:
		k.sig.Send = int64(len(r))
		if k.inter() {
			k.sig.Send, k.sig.Recv = int64(len(s)), int64(len(s))
		}
	default:
		k.sig.Send = int64(len(s))
		if k.inter() && kind != coll.Reduce {
			k.sig.Recv = int64(len(s))
		}
	}
	if kind == coll.ReduceScatter && !k.inter() {
		k.sig.Counts = digest(bytes)
	}
	o := p.o
	return k.run(func(a *coll.Actions) error {
		var err error
		switch kind {
		case coll.Reduce:
			err = a.Reduce(k.cc, s, r, o, root)
		case coll.Allreduce:
			err = a.Allreduce(k.cc, s, r, o)
		case coll.Scan:
			err = a.Scan(k.cc, s, r, o)
		case coll.Exscan:
			err = a.Exscan(k.cc, s, r, o)
		case coll.ReduceScatter:
			err = a.ReduceScatter(k.cc, s, r, bytes, o)
		case coll.ReduceScatterBlock:
			err = a.ReduceScatterBlock(k.cc, s, r, o)
		}
		if err != nil || !gets {
			return err
		}
		return k.then(func() error { return p.out(r, recv, out, d) })
	})
}
