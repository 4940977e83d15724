package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"github.com/lamgo/lam/libmpi/mpi"
)

// Info objects. mpi.h keeps LAM's limits, MPI_MAX_INFO_KEY 36 and
// MPI_MAX_INFO_VAL 256, below the Go API's: C keys of 36 characters or
// more and values of more than 256 are MPI_ERR_INFO_KEY and
// MPI_ERR_INFO_VALUE, so that whatever a C
// program sets fits the buffers mpi.h tells it to make. Info errors go
// to MPI_COMM_WORLD's error handler.
var infos = new(table[mpi.Info])

// infoArg is the Info of handle h; MPI_INFO_NULL is nil when null is
// allowed (the calls that take hints), else MPI_ERR_INFO.
func infoArg(c *mpi.Comm, h C.MPI_Info, null bool, fn string) (*mpi.Info, C.int) {
	if h == C.MPI_INFO_NULL && null {
		return nil, C.MPI_SUCCESS
	}
	in := infos.get(int(h))
	if in == nil {
		return nil, fail(c, mpi.ErrInfo, fn+": invalid info")
	}
	return in, C.MPI_SUCCESS
}

// infoKey reads a C key, checked against mpi.h's limit.
func infoKey(key *C.char, fn string) (string, C.int) {
	if key == nil {
		return "", fail(nil, mpi.ErrInfoKey, fn+": NULL key")
	}
	k := C.GoString(key)
	if len(k) >= C.MPI_MAX_INFO_KEY {
		return "", fail(nil, mpi.ErrInfoKey, fn+": key of MPI_MAX_INFO_KEY characters or more")
	}
	return k, C.MPI_SUCCESS
}

//export capi_Info_create
func capi_Info_create(info *C.MPI_Info) C.int {
	if info == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_create: NULL info")
	}
	in, err := mpi.NewInfo()
	if err != nil {
		return raise(err, "MPI_Info_create")
	}
	*info = C.MPI_Info(infos.add(in))
	return C.MPI_SUCCESS
}

//export capi_Info_set
func capi_Info_set(info C.MPI_Info, key, value *C.char) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_set")
	if in == nil {
		return rc
	}
	k, rc := infoKey(key, "MPI_Info_set")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if value == nil {
		return fail(nil, mpi.ErrInfoValue, "MPI_Info_set: NULL value")
	}
	v := C.GoString(value)
	if len(v) > C.MPI_MAX_INFO_VAL {
		return fail(nil, mpi.ErrInfoValue, "MPI_Info_set: value longer than MPI_MAX_INFO_VAL")
	}
	return raise(in.Set(k, v), "MPI_Info_set")
}

// Info_get copies at most valuelen characters of the value and a NUL
// (value holds valuelen+1 characters, as MPI says).
//
//export capi_Info_get
func capi_Info_get(info C.MPI_Info, key *C.char, valuelen C.int, value *C.char, flag *C.int) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_get")
	if in == nil {
		return rc
	}
	k, rc := infoKey(key, "MPI_Info_get")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	switch {
	case valuelen < 0:
		return fail(nil, mpi.ErrArg, "MPI_Info_get: negative valuelen")
	case value == nil || flag == nil:
		return fail(nil, mpi.ErrArg, "MPI_Info_get: NULL value or flag")
	}
	v, ok, err := in.Get(k)
	if err != nil {
		return raise(err, "MPI_Info_get")
	}
	*flag = cBool(ok)
	if ok {
		putString(value, int(valuelen)+1, v, nil)
	}
	return C.MPI_SUCCESS
}

//export capi_Info_get_valuelen
func capi_Info_get_valuelen(info C.MPI_Info, key *C.char, valuelen, flag *C.int) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_get_valuelen")
	if in == nil {
		return rc
	}
	k, rc := infoKey(key, "MPI_Info_get_valuelen")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if valuelen == nil || flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_get_valuelen: NULL valuelen or flag")
	}
	n, ok, err := in.GetValuelen(k)
	if err != nil {
		return raise(err, "MPI_Info_get_valuelen")
	}
	*flag = cBool(ok)
	if ok {
		*valuelen = C.int(n)
	}
	return C.MPI_SUCCESS
}

//export capi_Info_delete
func capi_Info_delete(info C.MPI_Info, key *C.char) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_delete")
	if in == nil {
		return rc
	}
	k, rc := infoKey(key, "MPI_Info_delete")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return raise(in.Delete(k), "MPI_Info_delete")
}

//export capi_Info_get_nkeys
func capi_Info_get_nkeys(info C.MPI_Info, nkeys *C.int) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_get_nkeys")
	if in == nil {
		return rc
	}
	if nkeys == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_get_nkeys: NULL nkeys")
	}
	n, err := in.NKeys()
	if err != nil {
		return raise(err, "MPI_Info_get_nkeys")
	}
	*nkeys = C.int(n)
	return C.MPI_SUCCESS
}

// Info_get_nthkey writes the key into a buffer of MPI_MAX_INFO_KEY
// characters, as MPI says: every key set from C fits with its NUL.
//
//export capi_Info_get_nthkey
func capi_Info_get_nthkey(info C.MPI_Info, n C.int, key *C.char) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_get_nthkey")
	if in == nil {
		return rc
	}
	if key == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_get_nthkey: NULL key")
	}
	k, err := in.NthKey(int(n))
	if err != nil {
		return raise(err, "MPI_Info_get_nthkey")
	}
	putString(key, C.MPI_MAX_INFO_KEY, k, nil)
	return C.MPI_SUCCESS
}

//export capi_Info_dup
func capi_Info_dup(info C.MPI_Info, newinfo *C.MPI_Info) C.int {
	in, rc := infoArg(nil, info, false, "MPI_Info_dup")
	if in == nil {
		return rc
	}
	if newinfo == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_dup: NULL newinfo")
	}
	d, err := in.Dup()
	if err != nil {
		return raise(err, "MPI_Info_dup")
	}
	*newinfo = C.MPI_Info(infos.add(d))
	return C.MPI_SUCCESS
}

//export capi_Info_free
func capi_Info_free(info *C.MPI_Info) C.int {
	if info == nil {
		return fail(nil, mpi.ErrArg, "MPI_Info_free: NULL info")
	}
	in, rc := infoArg(nil, *info, false, "MPI_Info_free")
	if in == nil {
		return rc
	}
	if err := in.Free(); err != nil {
		return raise(err, "MPI_Info_free")
	}
	infos.remove(int(*info))
	*info = C.MPI_INFO_NULL
	return C.MPI_SUCCESS
}
