package mpi

import "reflect"

// NewSizedOp makes a reduction over elements of size bytes that no Go
// type describes (MPI_Op_create for a datatype built at run time, as a C
// program's user op over a struct datatype): fn gets in and inout as
// whole elements, len(inout)/size of them laid out as the datatype lays
// out one element in memory (the bytes the datatype leaves out are
// zero), and must set inout's element i to in's ∘ inout's, where in holds
// the contribution of lower ranks. Like NewTypeOp's, the op applies to
// ReduceType and the other datatype reductions over a datatype of extent
// size and lower bound 0.
func NewSizedOp(size int, fn func(in, inout []byte), commutative bool) (*Op, error) {
	switch {
	case fn == nil:
		return nil, errorf(ErrOp, "NewSizedOp with a nil function")
	case size <= 0:
		return nil, errorf(ErrArg, "NewSizedOp: element size %d", size)
	}
	return &Op{name: "user op", commute: commutative, typ: reflect.TypeFor[[]byte](), mem: &typeOp{
		size:  size,
		id:    2<<32 | size, // NewTypeOp's ids are 1<<32 | a hash of the type
		apply: fn,
	}}, nil
}
