package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The group table: MPI_GROUP_EMPTY is the Go API's GroupEmpty. Every call
// that makes a group gives a new handle, even for an empty result, so the
// program can free each one it got.
var groups = func() *table[mpi.Group] {
	t := new(table[mpi.Group])
	t.set(int(C.MPI_GROUP_EMPTY), mpi.GroupEmpty)
	return t
}()

// groupArg is the group of handle h; an invalid handle raises
// MPI_ERR_GROUP through MPI_COMM_WORLD's handler (groups have no
// communicator of their own).
func groupArg(h C.MPI_Group, fn string) (*mpi.Group, C.int) {
	g := groups.get(int(h))
	if g == nil {
		return nil, fail(nil, mpi.ErrGroup, fn+": invalid group")
	}
	return g, C.MPI_SUCCESS
}

// putGroup stores the handle of a new group in *out.
func putGroup(g *mpi.Group, out *C.MPI_Group) {
	*out = C.MPI_Group(groups.add(g))
}

// ints is the n C ints at p as Go ints (nil for none).
func ints(p *C.int, n int) []int {
	if p == nil || n <= 0 {
		return nil
	}
	in := unsafe.Slice(p, n)
	out := make([]int, n)
	for i, v := range in {
		out[i] = int(v)
	}
	return out
}

// putInts stores vs in the C array at p (which holds at least len(vs)).
func putInts(p *C.int, vs []int) {
	if len(vs) == 0 {
		return
	}
	out := unsafe.Slice(p, len(vs))
	for i, v := range vs {
		out[i] = C.int(v)
	}
}

//export capi_Comm_group
func capi_Comm_group(comm C.MPI_Comm, group *C.MPI_Group) C.int {
	c, rc := commOut(comm, group, "MPI_Comm_group", "group")
	if c == nil {
		return rc
	}
	g, err := c.Group()
	if err != nil {
		return fail(c, mpi.Class(err), "MPI_Comm_group: "+err.Error())
	}
	putGroup(g, group)
	return C.MPI_SUCCESS
}

//export capi_Comm_remote_group
func capi_Comm_remote_group(comm C.MPI_Comm, group *C.MPI_Group) C.int {
	c, rc := commOut(comm, group, "MPI_Comm_remote_group", "group")
	if c == nil {
		return rc
	}
	g, err := c.RemoteGroup()
	if err != nil {
		return code(err)
	}
	putGroup(g, group)
	return C.MPI_SUCCESS
}

//export capi_Group_size
func capi_Group_size(group C.MPI_Group, size *C.int) C.int {
	g, rc := groupArg(group, "MPI_Group_size")
	if g == nil {
		return rc
	}
	if size == nil {
		return fail(nil, mpi.ErrArg, "MPI_Group_size: NULL size")
	}
	*size = C.int(g.Size())
	return C.MPI_SUCCESS
}

//export capi_Group_rank
func capi_Group_rank(group C.MPI_Group, rank *C.int) C.int {
	g, rc := groupArg(group, "MPI_Group_rank")
	if g == nil {
		return rc
	}
	if rank == nil {
		return fail(nil, mpi.ErrArg, "MPI_Group_rank: NULL rank")
	}
	*rank = C.int(g.Rank()) // mpi.Undefined is MPI_UNDEFINED
	return C.MPI_SUCCESS
}

//export capi_Group_translate_ranks
func capi_Group_translate_ranks(group1 C.MPI_Group, n C.int, ranks1 *C.int, group2 C.MPI_Group, ranks2 *C.int) C.int {
	a, rc := groupArg(group1, "MPI_Group_translate_ranks")
	if a == nil {
		return rc
	}
	b, rc := groupArg(group2, "MPI_Group_translate_ranks")
	if b == nil {
		return rc
	}
	switch {
	case n < 0:
		return fail(nil, mpi.ErrArg, "MPI_Group_translate_ranks: negative n")
	case n > 0 && (ranks1 == nil || ranks2 == nil):
		return fail(nil, mpi.ErrArg, "MPI_Group_translate_ranks: NULL ranks")
	}
	out, err := a.TranslateRanks(ints(ranks1, int(n)), b)
	if err != nil {
		return raise(err, "MPI_Group_translate_ranks")
	}
	putInts(ranks2, out)
	return C.MPI_SUCCESS
}

//export capi_Group_compare
func capi_Group_compare(group1, group2 C.MPI_Group, result *C.int) C.int {
	a, rc := groupArg(group1, "MPI_Group_compare")
	if a == nil {
		return rc
	}
	b, rc := groupArg(group2, "MPI_Group_compare")
	if b == nil {
		return rc
	}
	if result == nil {
		return fail(nil, mpi.ErrArg, "MPI_Group_compare: NULL result")
	}
	*result = cCompare(mpi.GroupCompare(a, b))
	return C.MPI_SUCCESS
}

// groupOp runs one of the set operations on two groups.
func groupOp(group1, group2 C.MPI_Group, out *C.MPI_Group, op func(a, b *mpi.Group) *mpi.Group, fn string) C.int {
	a, rc := groupArg(group1, fn)
	if a == nil {
		return rc
	}
	b, rc := groupArg(group2, fn)
	if b == nil {
		return rc
	}
	if out == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL newgroup")
	}
	putGroup(op(a, b), out)
	return C.MPI_SUCCESS
}

//export capi_Group_union
func capi_Group_union(group1, group2 C.MPI_Group, newgroup *C.MPI_Group) C.int {
	return groupOp(group1, group2, newgroup, mpi.GroupUnion, "MPI_Group_union")
}

//export capi_Group_intersection
func capi_Group_intersection(group1, group2 C.MPI_Group, newgroup *C.MPI_Group) C.int {
	return groupOp(group1, group2, newgroup, mpi.GroupIntersection, "MPI_Group_intersection")
}

//export capi_Group_difference
func capi_Group_difference(group1, group2 C.MPI_Group, newgroup *C.MPI_Group) C.int {
	return groupOp(group1, group2, newgroup, mpi.GroupDifference, "MPI_Group_difference")
}

// groupSub makes a subgroup from a list of n ranks (Incl, Excl).
func groupSub(group C.MPI_Group, n C.int, ranks *C.int, out *C.MPI_Group, op func(g *mpi.Group, ranks []int) (*mpi.Group, error), fn string) C.int {
	g, rc := groupArg(group, fn)
	if g == nil {
		return rc
	}
	switch {
	case n < 0 || int(n) > g.Size():
		return fail(nil, mpi.ErrArg, fn+": n is negative or larger than the group")
	case n > 0 && ranks == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL ranks")
	case out == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL newgroup")
	}
	s, err := op(g, ints(ranks, int(n)))
	if err != nil {
		return raise(err, fn)
	}
	putGroup(s, out)
	return C.MPI_SUCCESS
}

//export capi_Group_incl
func capi_Group_incl(group C.MPI_Group, n C.int, ranks *C.int, newgroup *C.MPI_Group) C.int {
	return groupSub(group, n, ranks, newgroup, (*mpi.Group).Incl, "MPI_Group_incl")
}

//export capi_Group_excl
func capi_Group_excl(group C.MPI_Group, n C.int, ranks *C.int, newgroup *C.MPI_Group) C.int {
	return groupSub(group, n, ranks, newgroup, (*mpi.Group).Excl, "MPI_Group_excl")
}

// groupRange makes a subgroup from n (first, last, stride) triples.
func groupRange(group C.MPI_Group, n C.int, ranges unsafe.Pointer, out *C.MPI_Group, op func(g *mpi.Group, triples [][3]int) (*mpi.Group, error), fn string) C.int {
	g, rc := groupArg(group, fn)
	if g == nil {
		return rc
	}
	switch {
	case n < 0:
		return fail(nil, mpi.ErrArg, fn+": negative n")
	case n > 0 && ranges == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL ranges")
	case out == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL newgroup")
	}
	var triples [][3]int
	if n > 0 {
		r := unsafe.Slice((*C.int)(ranges), 3*int(n)) // int ranges[n][3]
		for i := range int(n) {
			triples = append(triples, [3]int{int(r[3*i]), int(r[3*i+1]), int(r[3*i+2])})
		}
	}
	s, err := op(g, triples)
	if err != nil {
		return raise(err, fn)
	}
	putGroup(s, out)
	return C.MPI_SUCCESS
}

//export capi_Group_range_incl
func capi_Group_range_incl(group C.MPI_Group, n C.int, ranges unsafe.Pointer, newgroup *C.MPI_Group) C.int {
	return groupRange(group, n, ranges, newgroup, (*mpi.Group).RangeIncl, "MPI_Group_range_incl")
}

//export capi_Group_range_excl
func capi_Group_range_excl(group C.MPI_Group, n C.int, ranges unsafe.Pointer, newgroup *C.MPI_Group) C.int {
	return groupRange(group, n, ranges, newgroup, (*mpi.Group).RangeExcl, "MPI_Group_range_excl")
}

// Group_free frees the handle and sets the caller's to MPI_GROUP_NULL;
// MPI_GROUP_EMPTY cannot be freed (MPI_ERR_GROUP).
//
//export capi_Group_free
func capi_Group_free(group *C.MPI_Group) C.int {
	if group == nil {
		return fail(nil, mpi.ErrArg, "MPI_Group_free: NULL group")
	}
	g, rc := groupArg(*group, "MPI_Group_free")
	if g == nil {
		return rc
	}
	if !groups.remove(int(*group)) {
		return fail(nil, mpi.ErrGroup, "MPI_Group_free: a predefined group cannot be freed")
	}
	g.Free()
	*group = C.MPI_GROUP_NULL
	return C.MPI_SUCCESS
}
