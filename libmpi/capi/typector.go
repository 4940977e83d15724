package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The datatype constructors, MPI_Type_get_envelope and
// MPI_Type_get_contents. Every constructor makes its type with the Go
// API and keeps the C handles it was made from (parts) for
// MPI_Type_get_contents.

// cInts is the n C ints at p as Go ints (p may be NULL when n is 0).
func cInts(p *C.int, n int) []int {
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out
}

// cAints is the n MPI_Aints at p as Go ints.
func cAints(p *C.MPI_Aint, n int) []int {
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out
}

// ctorArgs checks what every constructor takes: a count (of blocks,
// dimensions, …), the arrays it needs (NULL only when count is 0) and
// the new type's handle.
func ctorArgs(fn string, count C.int, newtype *C.MPI_Datatype, arrays ...unsafe.Pointer) C.int {
	if newtype == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL newtype")
	}
	if count < 0 {
		return fail(nil, mpi.ErrCount, fmt.Sprintf("%s: negative count %d", fn, count))
	}
	for _, a := range arrays {
		if a == nil && count > 0 {
			return fail(nil, mpi.ErrArg, fn+": NULL array")
		}
	}
	return C.MPI_SUCCESS
}

// partOf is the part of handle h a constructor is given.
func partOf(h C.MPI_Datatype, fn string) (part, C.int) {
	t, rc := typeArg(nil, h, fn)
	if t == nil {
		return part{}, rc
	}
	if h >= C.LAMGO_PREDEFINED_TYPES {
		h = C.MPI_DATATYPE_NULL // may be freed and given out again
	}
	return part{h, t}, C.MPI_SUCCESS
}

// newType stores a constructor's result under a new handle.
func newType(fn string, d *mpi.Datatype, err error, parts []part, newtype *C.MPI_Datatype) C.int {
	if err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	*newtype = C.MPI_Datatype(types.add(newDerived(d, parts)))
	return C.MPI_SUCCESS
}

// oneOld builds a type from one old type with build.
func oneOld(fn string, count C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype, build func(old *mpi.Datatype) (*mpi.Datatype, error), arrays ...unsafe.Pointer) C.int {
	if rc := ctorArgs(fn, count, newtype, arrays...); rc != C.MPI_SUCCESS {
		return rc
	}
	p, rc := partOf(oldtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	d, err := build(p.t.d)
	return newType(fn, d, err, []part{p}, newtype)
}

//export capi_Type_contiguous
func capi_Type_contiguous(count C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_contiguous", count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeContiguous(int(count), old)
	})
}

//export capi_Type_vector
func capi_Type_vector(count, blocklength, stride C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_vector", count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeVector(int(count), int(blocklength), int(stride), old)
	})
}

//export capi_Type_hvector
func capi_Type_hvector(count, blocklength C.int, stride C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype)
}

//export capi_Type_create_hvector
func capi_Type_create_hvector(count, blocklength C.int, stride C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype)
}

func hvector(fn string, count, blocklength C.int, stride C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld(fn, count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeHvector(int(count), int(blocklength), int(stride), old)
	})
}

//export capi_Type_indexed
func capi_Type_indexed(count C.int, blocklengths, displacements *C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_indexed", count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeIndexed(cInts(blocklengths, int(count)), cInts(displacements, int(count)), old)
	}, unsafe.Pointer(blocklengths), unsafe.Pointer(displacements))
}

//export capi_Type_hindexed
func capi_Type_hindexed(count C.int, blocklengths *C.int, displacements *C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return hindexed("MPI_Type_hindexed", count, blocklengths, displacements, oldtype, newtype)
}

//export capi_Type_create_hindexed
func capi_Type_create_hindexed(count C.int, blocklengths *C.int, displacements *C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return hindexed("MPI_Type_create_hindexed", count, blocklengths, displacements, oldtype, newtype)
}

func hindexed(fn string, count C.int, blocklengths *C.int, displacements *C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld(fn, count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeHindexed(cInts(blocklengths, int(count)), cAints(displacements, int(count)), old)
	}, unsafe.Pointer(blocklengths), unsafe.Pointer(displacements))
}

//export capi_Type_create_indexed_block
func capi_Type_create_indexed_block(count, blocklength C.int, displacements *C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_create_indexed_block", count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeIndexedBlock(int(blocklength), cInts(displacements, int(count)), old)
	}, unsafe.Pointer(displacements))
}

//export capi_Type_create_hindexed_block
func capi_Type_create_hindexed_block(count, blocklength C.int, displacements *C.MPI_Aint, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_create_hindexed_block", count, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeHindexedBlock(int(blocklength), cAints(displacements, int(count)), old)
	}, unsafe.Pointer(displacements))
}

//export capi_Type_struct
func capi_Type_struct(count C.int, blocklengths *C.int, displacements *C.MPI_Aint, types *C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return typeStruct("MPI_Type_struct", count, blocklengths, displacements, types, newtype)
}

//export capi_Type_create_struct
func capi_Type_create_struct(count C.int, blocklengths *C.int, displacements *C.MPI_Aint, types *C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	return typeStruct("MPI_Type_create_struct", count, blocklengths, displacements, types, newtype)
}

func typeStruct(fn string, count C.int, blocklengths *C.int, displacements *C.MPI_Aint, handles *C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	if rc := ctorArgs(fn, count, newtype, unsafe.Pointer(blocklengths), unsafe.Pointer(displacements), unsafe.Pointer(handles)); rc != C.MPI_SUCCESS {
		return rc
	}
	n := int(count)
	parts := make([]part, n)
	olds := make([]*mpi.Datatype, n)
	if n > 0 {
		for i, h := range unsafe.Slice(handles, n) {
			p, rc := partOf(h, fn)
			if rc != C.MPI_SUCCESS {
				return rc
			}
			parts[i], olds[i] = p, p.t.d
		}
	}
	d, err := mpi.TypeStruct(cInts(blocklengths, n), cAints(displacements, n), olds)
	return newType(fn, d, err, parts, newtype)
}

//export capi_Type_create_resized
func capi_Type_create_resized(oldtype C.MPI_Datatype, lb, extent C.MPI_Aint, newtype *C.MPI_Datatype) C.int {
	return oneOld("MPI_Type_create_resized", 0, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeCreateResized(old, int(lb), int(extent))
	})
}

// Type_dup's copy of a committed type is committed.
//
//export capi_Type_dup
func capi_Type_dup(oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	const fn = "MPI_Type_dup"
	if rc := ctorArgs(fn, 0, newtype); rc != C.MPI_SUCCESS {
		return rc
	}
	p, rc := partOf(oldtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	d, err := mpi.TypeDup(p.t.d)
	if err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	t := newDerived(d, []part{p})
	if !p.t.derived || p.t.committed.Load() {
		if err := t.commit(); err != nil {
			return fail(nil, mpi.Class(err), fn+": "+err.Error())
		}
	}
	*newtype = C.MPI_Datatype(types.add(t))
	return C.MPI_SUCCESS
}

//export capi_Type_create_subarray
func capi_Type_create_subarray(ndims C.int, sizes, subsizes, starts *C.int, order C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	const fn = "MPI_Type_create_subarray"
	if ndims <= 0 {
		return fail(nil, mpi.ErrDims, fmt.Sprintf("%s: %d dimensions", fn, ndims))
	}
	return oneOld(fn, ndims, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		n := int(ndims)
		return mpi.TypeCreateSubarray(cInts(sizes, n), cInts(subsizes, n), cInts(starts, n), mpi.Order(order), old)
	}, unsafe.Pointer(sizes), unsafe.Pointer(subsizes), unsafe.Pointer(starts))
}

// The HPF distributions in C (mpi.h's numbers) and Go.
var (
	goDistrib = map[C.int]mpi.Distribution{
		C.MPI_DISTRIBUTE_BLOCK: mpi.DistributeBlock, C.MPI_DISTRIBUTE_CYCLIC: mpi.DistributeCyclic,
		C.MPI_DISTRIBUTE_NONE: mpi.DistributeNone,
	}
	cDistrib = map[mpi.Distribution]C.int{
		mpi.DistributeBlock: C.MPI_DISTRIBUTE_BLOCK, mpi.DistributeCyclic: C.MPI_DISTRIBUTE_CYCLIC,
		mpi.DistributeNone: C.MPI_DISTRIBUTE_NONE,
	}
)

//export capi_Type_create_darray
func capi_Type_create_darray(size, rank, ndims C.int, gsizes, distribs, dargs, psizes *C.int, order C.int, oldtype C.MPI_Datatype, newtype *C.MPI_Datatype) C.int {
	const fn = "MPI_Type_create_darray"
	if ndims <= 0 {
		return fail(nil, mpi.ErrDims, fmt.Sprintf("%s: %d dimensions", fn, ndims))
	}
	if rc := ctorArgs(fn, ndims, newtype, unsafe.Pointer(gsizes), unsafe.Pointer(distribs), unsafe.Pointer(dargs), unsafe.Pointer(psizes)); rc != C.MPI_SUCCESS {
		return rc
	}
	n := int(ndims)
	ds := make([]mpi.Distribution, n)
	for i, v := range unsafe.Slice(distribs, n) {
		d, ok := goDistrib[v]
		if !ok {
			return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: dimension %d: unknown distribution %d", fn, i, v))
		}
		ds[i] = d
	}
	return oneOld(fn, ndims, oldtype, newtype, func(old *mpi.Datatype) (*mpi.Datatype, error) {
		return mpi.TypeCreateDarray(int(size), int(rank), cInts(gsizes, n), ds, cInts(dargs, n), cInts(psizes, n), mpi.Order(order), old)
	})
}

// The combiners in C (LAM's numbers) and Go. The C MPI-1 constructors
// (MPI_Type_hvector, _hindexed, _struct) report the same combiners as
// their MPI-2 names, as MPI-2 says for C; the _INTEGER combiners are
// Fortran's.
var cCombiner = map[mpi.Combiner]C.int{
	mpi.CombinerNamed: C.MPI_COMBINER_NAMED, mpi.CombinerDup: C.MPI_COMBINER_DUP,
	mpi.CombinerContiguous: C.MPI_COMBINER_CONTIGUOUS, mpi.CombinerVector: C.MPI_COMBINER_VECTOR,
	mpi.CombinerHvector: C.MPI_COMBINER_HVECTOR, mpi.CombinerIndexed: C.MPI_COMBINER_INDEXED,
	mpi.CombinerHindexed: C.MPI_COMBINER_HINDEXED, mpi.CombinerIndexedBlock: C.MPI_COMBINER_INDEXED_BLOCK,
	mpi.CombinerHindexedBlock: C.MPI_COMBINER_HINDEXED_BLOCK, mpi.CombinerStruct: C.MPI_COMBINER_STRUCT,
	mpi.CombinerSubarray: C.MPI_COMBINER_SUBARRAY, mpi.CombinerDarray: C.MPI_COMBINER_DARRAY,
	mpi.CombinerResized: C.MPI_COMBINER_RESIZED,
}

//export capi_Type_get_envelope
func capi_Type_get_envelope(datatype C.MPI_Datatype, numIntegers, numAddresses, numDatatypes, combiner *C.int) C.int {
	const fn = "MPI_Type_get_envelope"
	t, rc := typeArg(nil, datatype, fn)
	if t == nil {
		return rc
	}
	if numIntegers == nil || numAddresses == nil || numDatatypes == nil || combiner == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL argument")
	}
	if !t.derived {
		*numIntegers, *numAddresses, *numDatatypes, *combiner = 0, 0, 0, C.MPI_COMBINER_NAMED
		return C.MPI_SUCCESS
	}
	ni, na, _, comb, err := mpi.TypeGetEnvelope(t.d)
	if err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	c, ok := cCombiner[comb]
	if !ok {
		return fail(nil, mpi.ErrIntern, fmt.Sprintf("%s: combiner %v has no C number", fn, comb))
	}
	*numIntegers, *numAddresses, *numDatatypes, *combiner = C.int(ni), C.int(na), C.int(len(t.parts)), c
	return C.MPI_SUCCESS
}

// Type_get_contents gives the predefined types it was made from by their
// handles and each derived one as a new handle, as MPI says (the caller
// frees it): a handle on the same Go datatype, committed if the original
// is, whose MPI_Type_free leaves the original's attributes alone.
//
//export capi_Type_get_contents
func capi_Type_get_contents(datatype C.MPI_Datatype, maxIntegers, maxAddresses, maxDatatypes C.int, integers *C.int, addresses *C.MPI_Aint, datatypes *C.MPI_Datatype) C.int {
	const fn = "MPI_Type_get_contents"
	t, rc := typeArg(nil, datatype, fn)
	if t == nil {
		return rc
	}
	if !t.derived {
		return fail(nil, mpi.ErrArg, fn+": a predefined datatype has no contents")
	}
	ints, addrs, _, err := mpi.TypeGetContents(t.d)
	if err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	if len(ints) > int(maxIntegers) || len(addrs) > int(maxAddresses) || len(t.parts) > int(maxDatatypes) {
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: room for %d, %d and %d, need %d integers, %d addresses and %d datatypes",
			fn, maxIntegers, maxAddresses, maxDatatypes, len(ints), len(addrs), len(t.parts)))
	}
	if (len(ints) > 0 && integers == nil) || (len(addrs) > 0 && addresses == nil) || (len(t.parts) > 0 && datatypes == nil) {
		return fail(nil, mpi.ErrArg, fn+": NULL array")
	}
	if comb, _, _ := envelopeOf(t); comb == mpi.CombinerDarray && len(ints) > 2 {
		nd := ints[2]
		for i := range nd {
			ints[3+nd+i] = int(cDistrib[mpi.Distribution(ints[3+nd+i])])
		}
	}
	if len(ints) > 0 {
		out := unsafe.Slice(integers, len(ints))
		for i, v := range ints {
			out[i] = C.int(v)
		}
	}
	if len(addrs) > 0 {
		out := unsafe.Slice(addresses, len(addrs))
		for i, v := range addrs {
			out[i] = C.MPI_Aint(v)
		}
	}
	if len(t.parts) > 0 {
		out := unsafe.Slice(datatypes, len(t.parts))
		for i, p := range t.parts {
			if p.h != C.MPI_DATATYPE_NULL {
				out[i] = p.h
				continue
			}
			out[i] = C.MPI_Datatype(types.add(p.t.alias()))
		}
	}
	return C.MPI_SUCCESS
}

// envelopeOf is t's Go combiner and counts.
func envelopeOf(t *dtype) (mpi.Combiner, int, int) {
	ni, na, _, comb, _ := mpi.TypeGetEnvelope(t.d)
	return comb, ni, na
}

// alias is a new entry for t's Go datatype, as Type_get_contents gives
// out: it does not own the datatype's attributes.
func (t *dtype) alias() *dtype {
	a := newDerived(t.d, t.parts)
	a.owner = false
	if t.committed.Load() {
		a.view.Store(t.view.Load())
		a.committed.Store(true)
	}
	return a
}
