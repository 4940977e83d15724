package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"sync"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The communicator table: MPI_COMM_WORLD and MPI_COMM_SELF are the Go
// API's World and Self.
var comms = func() *table[mpi.Comm] {
	t := new(table[mpi.Comm])
	t.set(int(C.MPI_COMM_WORLD), mpi.World)
	t.set(int(C.MPI_COMM_SELF), mpi.Self)
	return t
}()

// commArg is the communicator of handle h; an invalid handle raises
// MPI_ERR_COMM through MPI_COMM_WORLD's handler (rc is its code).
func commArg(h C.MPI_Comm, fn string) (c *mpi.Comm, rc C.int) {
	if c = comms.get(int(h)); c == nil {
		return nil, fail(nil, mpi.ErrComm, fn+": invalid communicator")
	}
	return c, C.MPI_SUCCESS
}

// commOut is commArg for a call that stores a result in *out: a NULL out
// (what names it in the error) is MPI_ERR_ARG through c's handler.
func commOut[T any](h C.MPI_Comm, out *T, fn, what string) (*mpi.Comm, C.int) {
	c, rc := commArg(h, fn)
	if c == nil {
		return nil, rc
	}
	if out == nil {
		return nil, fail(c, mpi.ErrArg, fn+": NULL "+what)
	}
	return c, C.MPI_SUCCESS
}

//export capi_Comm_rank
func capi_Comm_rank(comm C.MPI_Comm, rank *C.int) C.int {
	c, rc := commOut(comm, rank, "MPI_Comm_rank", "rank")
	if c == nil {
		return rc
	}
	*rank = C.int(c.Rank())
	return C.MPI_SUCCESS
}

//export capi_Comm_size
func capi_Comm_size(comm C.MPI_Comm, size *C.int) C.int {
	c, rc := commOut(comm, size, "MPI_Comm_size", "size")
	if c == nil {
		return rc
	}
	*size = C.int(c.Size())
	return C.MPI_SUCCESS
}

// What the C layer keeps of communicators beyond the Go API:
//   - named: those the program named. MPI says an unnamed communicator's
//     name is empty, where the Go API names each after its origin
//     ("MPI_COMM_WORLD (dup)"); MPI_COMM_WORLD and MPI_COMM_SELF keep
//     theirs.
//   - predef: those holding the predefined attributes (MPI_TAG_UB …):
//     MPI_COMM_WORLD and, as in Open MPI, its duplicates and theirs, so
//     a library that asks its own duplicate for MPI_TAG_UB finds it.
var named, predef sync.Map // *mpi.Comm → struct{}

// forget drops what the C layer keeps of a freed communicator.
func forget(c *mpi.Comm) {
	named.Delete(c)
	predef.Delete(c)
}

// holdsPredefined reports whether c holds the predefined attributes.
func holdsPredefined(c *mpi.Comm) bool {
	if c == mpi.World {
		return true
	}
	_, ok := predef.Load(c)
	return ok
}

// putComm stores the handle of a new communicator in *out, MPI_COMM_NULL
// for none (a process outside the new group).
func putComm(n *mpi.Comm, out *C.MPI_Comm) {
	if n == nil {
		*out = C.MPI_COMM_NULL
		return
	}
	*out = C.MPI_Comm(comms.add(n))
}

// raise passes an error the Go API returned without running a handler
// (group, Info and keyval calls: they have no communicator) through
// MPI_COMM_WORLD's handler, as MPI says for such calls.
func raise(err error, fn string) C.int {
	if err == nil {
		return C.MPI_SUCCESS
	}
	return fail(nil, mpi.Class(err), fn+": "+err.Error())
}

// cCompare is the C result (LAM's MPI_IDENT..MPI_UNEQUAL) of a Go
// comparison (mpi.Ident..mpi.Unequal).
func cCompare(r int) C.int {
	switch r {
	case mpi.Ident:
		return C.MPI_IDENT
	case mpi.Congruent:
		return C.MPI_CONGRUENT
	case mpi.Similar:
		return C.MPI_SIMILAR
	}
	return C.MPI_UNEQUAL
}

//export capi_Comm_remote_size
func capi_Comm_remote_size(comm C.MPI_Comm, size *C.int) C.int {
	c, rc := commOut(comm, size, "MPI_Comm_remote_size", "size")
	if c == nil {
		return rc
	}
	n, err := c.RemoteSize()
	if err != nil {
		return code(err)
	}
	*size = C.int(n)
	return C.MPI_SUCCESS
}

//export capi_Comm_test_inter
func capi_Comm_test_inter(comm C.MPI_Comm, flag *C.int) C.int {
	c, rc := commOut(comm, flag, "MPI_Comm_test_inter", "flag")
	if c == nil {
		return rc
	}
	*flag = cBool(c.TestInter())
	return C.MPI_SUCCESS
}

//export capi_Comm_compare
func capi_Comm_compare(comm1, comm2 C.MPI_Comm, result *C.int) C.int {
	a, rc := commArg(comm1, "MPI_Comm_compare")
	if a == nil {
		return rc
	}
	b, rc := commArg(comm2, "MPI_Comm_compare")
	if b == nil {
		return rc
	}
	if result == nil {
		return fail(a, mpi.ErrArg, "MPI_Comm_compare: NULL result")
	}
	r, err := mpi.CommCompare(a, b)
	if err != nil {
		return fail(a, mpi.Class(err), "MPI_Comm_compare: "+err.Error())
	}
	*result = cCompare(r)
	return C.MPI_SUCCESS
}

//export capi_Comm_dup
func capi_Comm_dup(comm C.MPI_Comm, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Comm_dup")
	if c == nil {
		return rc
	}
	return dupComm(c, newcomm, "MPI_Comm_dup")
}

// dupComm is MPI_Comm_dup of c.
func dupComm(c *mpi.Comm, newcomm *C.MPI_Comm, fn string) C.int {
	if newcomm == nil {
		return fail(c, mpi.ErrArg, fn+": NULL newcomm")
	}
	n, err := c.Dup()
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	if holdsPredefined(c) {
		predef.Store(n, struct{}{})
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Comm_create
func capi_Comm_create(comm C.MPI_Comm, group C.MPI_Group, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Comm_create")
	if c == nil {
		return rc
	}
	g := groups.get(int(group))
	switch {
	case g == nil:
		return fail(c, mpi.ErrGroup, "MPI_Comm_create: invalid group")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Comm_create: NULL newcomm")
	}
	n, err := c.Create(g)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Comm_create_group
func capi_Comm_create_group(comm C.MPI_Comm, group C.MPI_Group, tag C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Comm_create_group")
	if c == nil {
		return rc
	}
	g := groups.get(int(group))
	switch {
	case g == nil:
		return fail(c, mpi.ErrGroup, "MPI_Comm_create_group: invalid group")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Comm_create_group: NULL newcomm")
	}
	n, err := c.CreateGroup(g, int(tag))
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Comm_split
func capi_Comm_split(comm C.MPI_Comm, color, key C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commOut(comm, newcomm, "MPI_Comm_split", "newcomm")
	if c == nil {
		return rc
	}
	n, err := c.Split(int(color), int(key))
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Comm_split_type
func capi_Comm_split_type(comm C.MPI_Comm, splitType, key C.int, info C.MPI_Info, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Comm_split_type")
	if c == nil {
		return rc
	}
	if _, rc := infoArg(c, info, true, "MPI_Comm_split_type"); rc != C.MPI_SUCCESS {
		return rc
	}
	if newcomm == nil {
		return fail(c, mpi.ErrArg, "MPI_Comm_split_type: NULL newcomm")
	}
	n, err := c.SplitType(int(splitType), int(key))
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

// Comm_free runs the attributes' delete callbacks (mpi.Comm.Free does),
// then frees the handle and sets the caller's to MPI_COMM_NULL. The
// predefined communicators cannot be freed (MPI_ERR_COMM).
//
//export capi_Comm_free
func capi_Comm_free(comm *C.MPI_Comm) C.int {
	if comm == nil {
		return fail(nil, mpi.ErrArg, "MPI_Comm_free: NULL comm")
	}
	c, rc := commArg(*comm, "MPI_Comm_free")
	if c == nil {
		return rc
	}
	if *comm == C.MPI_COMM_WORLD || *comm == C.MPI_COMM_SELF {
		return fail(c, mpi.ErrComm, "MPI_Comm_free: a predefined communicator cannot be freed")
	}
	if err := c.Free(); err != nil {
		return code(err)
	}
	forget(c)
	comms.remove(int(*comm))
	*comm = C.MPI_COMM_NULL
	return C.MPI_SUCCESS
}

//export capi_Intercomm_create
func capi_Intercomm_create(local C.MPI_Comm, localLeader C.int, peer C.MPI_Comm, remoteLeader, tag C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commOut(local, newcomm, "MPI_Intercomm_create", "newintercomm")
	if c == nil {
		return rc
	}
	// The peer matters at the leaders only: elsewhere it may be anything,
	// MPI_COMM_NULL included (the Go API then checks nothing of it).
	p := comms.get(int(peer))
	n, err := mpi.IntercommCreate(c, int(localLeader), p, int(remoteLeader), int(tag))
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Intercomm_merge
func capi_Intercomm_merge(inter C.MPI_Comm, high C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commOut(inter, newcomm, "MPI_Intercomm_merge", "newintracomm")
	if c == nil {
		return rc
	}
	n, err := c.Merge(high != 0)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Comm_set_name
func capi_Comm_set_name(comm C.MPI_Comm, name *C.char) C.int {
	c, rc := commOut(comm, name, "MPI_Comm_set_name", "name")
	if c == nil {
		return rc
	}
	if err := c.SetName(C.GoString(name)); err != nil {
		return code(err)
	}
	named.Store(c, struct{}{})
	return C.MPI_SUCCESS
}

//export capi_Comm_get_name
func capi_Comm_get_name(comm C.MPI_Comm, name *C.char, length *C.int) C.int {
	c, rc := commArg(comm, "MPI_Comm_get_name")
	if c == nil {
		return rc
	}
	if name == nil || length == nil {
		return fail(c, mpi.ErrArg, "MPI_Comm_get_name: NULL name or resultlen")
	}
	s := ""
	if _, ok := named.Load(c); ok || c == mpi.World || c == mpi.Self {
		s = c.Name()
	}
	putString(name, C.MPI_MAX_OBJECT_NAME, s, length)
	return C.MPI_SUCCESS
}

// Comm_idup duplicates at once, as the Go API's Idup does: the request it
// returns is complete.
//
//export capi_Comm_idup
func capi_Comm_idup(comm C.MPI_Comm, newcomm *C.MPI_Comm, request *C.MPI_Request) C.int {
	c, rc := commArg(comm, "MPI_Comm_idup")
	if c == nil {
		return rc
	}
	if newcomm == nil || request == nil {
		return fail(c, mpi.ErrArg, "MPI_Comm_idup: NULL newcomm or request")
	}
	n, r, err := c.Idup()
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	if holdsPredefined(c) {
		predef.Store(n, struct{}{})
	}
	putComm(n, newcomm)
	*request = C.MPI_Request(requests.add(r))
	return C.MPI_SUCCESS
}
