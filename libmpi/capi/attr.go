package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "attrcb.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Attribute caching. A C keyval is an int: the predefined ones keep LAM's
// numbers (MPI_TAG_UB 0 … MPI_APPNUM 5, MPI_LASTUSEDCODE 21), the
// program's are numbered from LAMGO_PREDEFINED_KEYVALS and never reused,
// so a callback still running for a freed keyval gets its own number. Each
// maps onto a Go keyval holding uintptr values (C's void *, kept as an
// integer: a program may cache any integer cast to a pointer). The C copy
// and delete functions run through the trampolines of attrcb.c, in the
// order the Go API runs callbacks: on MPI_Comm_dup (and MPI_Type_dup) the
// copy functions in keyval creation order, on MPI_Comm_free the delete
// functions in the reverse order the attributes were set. MPI-1's
// MPI_Keyval_create and MPI_Attr_* are the communicator calls under their
// old names, as in C their functions have the same types.

// A keyval is a program's keyval: a communicator one or a datatype one.
type keyval struct {
	h    C.int
	comm *mpi.Keyval[uintptr]
	typ  *mpi.TypeKeyval[uintptr]
}

var keyvals = func() *table[keyval] {
	t := new(table[keyval])
	t.set(C.LAMGO_PREDEFINED_KEYVALS-1, nil)
	return t
}()

// callbackError is the Go error of a callback's C return code.
func callbackError(rc C.int, what string) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	class, ok := goClass(rc)
	if !ok {
		class = mpi.ErrOther
	}
	return &mpi.Error{Class: class, Msg: fmt.Sprintf("%s returned %d", what, int(rc))}
}

// typeHandle is the handle of d (MPI_DATATYPE_NULL if it has none): the
// datatype callbacks get it. A predefined Go type with several C names
// gets the first.
func typeHandle(d *mpi.Datatype) C.MPI_Datatype {
	if s := types.slots.Load(); s != nil {
		for h, sl := range *s {
			if t := sl.v.Load(); t != nil && t.d == d {
				return C.MPI_Datatype(h)
			}
		}
	}
	return C.MPI_DATATYPE_NULL
}

// newCommKeyval makes a communicator keyval calling the functions copyFn
// and delFn (C's NULL: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN) of
// language lang (LAMGO_LANG_C or one of the Fortran ones).
func newCommKeyval(copyFn, delFn unsafe.Pointer, extra uintptr, lang C.int) C.int {
	kv := &keyval{}
	x := C.uintptr_t(extra)
	var cp func(*mpi.Comm, uintptr) (uintptr, bool, error)
	var del func(*mpi.Comm, uintptr) error
	if copyFn != nil {
		cp = func(old *mpi.Comm, v uintptr) (uintptr, bool, error) {
			var out C.uintptr_t
			var flag C.int
			rc := C.lamgo_comm_copy(copyFn, lang, commHandle(old), kv.h, x, C.uintptr_t(v), &out, &flag)
			if err := callbackError(rc, "the copy function"); err != nil {
				return 0, false, err
			}
			return uintptr(out), flag != 0, nil
		}
	}
	if delFn != nil {
		del = func(c *mpi.Comm, v uintptr) error {
			return callbackError(C.lamgo_comm_delete(delFn, lang, commHandle(c), kv.h, C.uintptr_t(v), x), "the delete function")
		}
	}
	kv.comm = mpi.NewKeyval(cp, del)
	kv.h = C.int(keyvals.add(kv))
	return kv.h
}

// newTypeKeyval is newCommKeyval for datatypes.
func newTypeKeyval(copyFn, delFn unsafe.Pointer, extra uintptr, lang C.int) C.int {
	kv := &keyval{}
	x := C.uintptr_t(extra)
	var cp func(*mpi.Datatype, uintptr) (uintptr, bool, error)
	var del func(*mpi.Datatype, uintptr) error
	if copyFn != nil {
		cp = func(old *mpi.Datatype, v uintptr) (uintptr, bool, error) {
			var out C.uintptr_t
			var flag C.int
			rc := C.lamgo_type_copy(copyFn, lang, typeHandle(old), kv.h, x, C.uintptr_t(v), &out, &flag)
			if err := callbackError(rc, "the copy function"); err != nil {
				return 0, false, err
			}
			return uintptr(out), flag != 0, nil
		}
	}
	if delFn != nil {
		del = func(d *mpi.Datatype, v uintptr) error {
			return callbackError(C.lamgo_type_delete(delFn, lang, typeHandle(d), kv.h, C.uintptr_t(v), x), "the delete function")
		}
	}
	kv.typ = mpi.NewTypeKeyval(cp, del)
	kv.h = C.int(keyvals.add(kv))
	return kv.h
}

// isPredefinedKeyval reports whether h is one of mpi.h's attribute keys.
func isPredefinedKeyval(h C.int) bool { return h >= 0 && h < C.LAMGO_PREDEFINED_KEYVALS }

// commKeyvalArg is the communicator keyval of handle h.
func commKeyvalArg(c *mpi.Comm, h C.int, fn string) (*keyval, C.int) {
	kv := keyvals.get(int(h))
	if kv == nil || kv.comm == nil {
		return nil, fail(c, mpi.ErrKeyval, fn+": invalid communicator keyval")
	}
	return kv, C.MPI_SUCCESS
}

// predefinedAttr is the value of a predefined attribute of c (which
// MPI_COMM_WORLD and its duplicates hold): a pointer to an int the
// library keeps, as MPI says.
func predefinedAttr(c *mpi.Comm, h C.int) (p *C.int, ok bool, err error) {
	if !holdsPredefined(c) {
		return nil, false, nil
	}
	c = mpi.World // the Go API keeps them there
	var v int
	switch h {
	case C.MPI_TAG_UB:
		v, ok, err = mpi.GetAttr(c, mpi.KeyTagUB)
	case C.MPI_HOST:
		v, ok, err = mpi.GetAttr(c, mpi.KeyHost)
	case C.MPI_IO:
		v, ok, err = mpi.GetAttr(c, mpi.KeyIO)
	case C.MPI_WTIME_IS_GLOBAL:
		var b bool
		b, ok, err = mpi.GetAttr(c, mpi.KeyWtimeIsGlobal)
		v = int(cBool(b))
	case C.MPI_UNIVERSE_SIZE:
		v, ok, err = mpi.GetAttr(c, mpi.KeyUniverseSize)
	case C.MPI_APPNUM:
		v, ok, err = mpi.GetAttr(c, mpi.KeyAppNum)
	case C.MPI_LASTUSEDCODE:
		v, ok, err = mpi.GetAttr(c, mpi.KeyLastUsedCode)
		v = int(cCode(mpi.ErrorClass(v)))
	}
	if err != nil || !ok {
		return nil, false, err
	}
	p = &C.lamgo_attr_ints[h]
	*p = C.int(v)
	return p, true, nil
}

// setAttr is MPI_Comm_set_attr and MPI_Attr_put.
func setAttr(comm C.MPI_Comm, h C.int, v unsafe.Pointer, fn string) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if isPredefinedKeyval(h) {
		return fail(c, mpi.ErrKeyval, fn+": a predefined attribute cannot be set")
	}
	kv, rc := commKeyvalArg(c, h, fn)
	if kv == nil {
		return rc
	}
	return code(mpi.SetAttr(c, kv.comm, uintptr(v)))
}

// getAttr is MPI_Comm_get_attr and MPI_Attr_get: the value goes to
// *(void **)v.
func getAttr(comm C.MPI_Comm, h C.int, v unsafe.Pointer, flag *C.int, fn string) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if v == nil || flag == nil {
		return fail(c, mpi.ErrArg, fn+": NULL attribute_val or flag")
	}
	out := (*C.uintptr_t)(v)
	if isPredefinedKeyval(h) {
		p, ok, err := predefinedAttr(c, h)
		if err != nil {
			return code(err)
		}
		*flag = cBool(ok)
		if ok {
			*out = C.uintptr_t(uintptr(unsafe.Pointer(p)))
		}
		return C.MPI_SUCCESS
	}
	kv, rc := commKeyvalArg(c, h, fn)
	if kv == nil {
		return rc
	}
	a, ok, err := mpi.GetAttr(c, kv.comm)
	if err != nil {
		return code(err)
	}
	*flag = cBool(ok)
	if ok {
		*out = C.uintptr_t(a)
	}
	return C.MPI_SUCCESS
}

// deleteAttr is MPI_Comm_delete_attr and MPI_Attr_delete.
func deleteAttr(comm C.MPI_Comm, h C.int, fn string) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if isPredefinedKeyval(h) {
		return fail(c, mpi.ErrKeyval, fn+": a predefined attribute cannot be deleted")
	}
	kv, rc := commKeyvalArg(c, h, fn)
	if kv == nil {
		return rc
	}
	return code(mpi.DeleteAttr(c, kv.comm))
}

// freeKeyval frees a keyval (comm or type) and sets *h to
// MPI_KEYVAL_INVALID. The handle is not given out again.
func freeKeyval(h *C.int, forType bool, fn string) C.int {
	if h == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL keyval")
	}
	if isPredefinedKeyval(*h) {
		return fail(nil, mpi.ErrKeyval, fn+": a predefined keyval cannot be freed")
	}
	kv := keyvals.get(int(*h))
	if kv == nil || forType != (kv.typ != nil) {
		return fail(nil, mpi.ErrKeyval, fn+": invalid keyval")
	}
	var err error
	if forType {
		err = kv.typ.Free()
	} else {
		err = kv.comm.Free()
	}
	if err != nil {
		return raise(err, fn)
	}
	*h = C.MPI_KEYVAL_INVALID
	return C.MPI_SUCCESS
}

//export capi_Comm_create_keyval
func capi_Comm_create_keyval(copyFn *C.MPI_Comm_copy_attr_function, delFn *C.MPI_Comm_delete_attr_function, keyval *C.int, extra unsafe.Pointer) C.int {
	if keyval == nil {
		return fail(nil, mpi.ErrArg, "MPI_Comm_create_keyval: NULL keyval")
	}
	*keyval = newCommKeyval(unsafe.Pointer(copyFn), unsafe.Pointer(delFn), uintptr(extra), C.LAMGO_LANG_C)
	return C.MPI_SUCCESS
}

//export capi_Keyval_create
func capi_Keyval_create(copyFn *C.MPI_Copy_function, delFn *C.MPI_Delete_function, keyval *C.int, extra unsafe.Pointer) C.int {
	if keyval == nil {
		return fail(nil, mpi.ErrArg, "MPI_Keyval_create: NULL keyval")
	}
	*keyval = newCommKeyval(unsafe.Pointer(copyFn), unsafe.Pointer(delFn), uintptr(extra), C.LAMGO_LANG_C)
	return C.MPI_SUCCESS
}

// lamgo_fortran_keyval makes a keyval whose copy and delete functions are
// Fortran subroutines of language lang (LAMGO_LANG_F77 or LAMGO_LANG_F90),
// for the communicator or, when forType is set, the datatype calls; fn
// names the Fortran call in errors. The Fortran bindings (fortran_attr.c)
// call it. MPI's predefined copy and delete functions are real Fortran
// subroutines there, called as the program's own.
//
//export lamgo_fortran_keyval
func lamgo_fortran_keyval(copyFn, delFn unsafe.Pointer, extra C.MPI_Aint, lang, forType C.int, keyval *C.MPI_Fint, fn *C.char) C.int {
	if copyFn == nil || delFn == nil {
		return fail(nil, mpi.ErrArg, C.GoString(fn)+": a copy or delete subroutine is missing")
	}
	if lang != C.LAMGO_LANG_F77 && lang != C.LAMGO_LANG_F90 {
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: unknown callback language %d", C.GoString(fn), int(lang)))
	}
	x := uintptr(extra)
	if forType != 0 {
		*keyval = C.MPI_Fint(newTypeKeyval(copyFn, delFn, x, lang))
	} else {
		*keyval = C.MPI_Fint(newCommKeyval(copyFn, delFn, x, lang))
	}
	return C.MPI_SUCCESS
}

//export capi_Comm_free_keyval
func capi_Comm_free_keyval(keyval *C.int) C.int {
	return freeKeyval(keyval, false, "MPI_Comm_free_keyval")
}

//export capi_Keyval_free
func capi_Keyval_free(keyval *C.int) C.int {
	return freeKeyval(keyval, false, "MPI_Keyval_free")
}

//export capi_Comm_set_attr
func capi_Comm_set_attr(comm C.MPI_Comm, keyval C.int, v unsafe.Pointer) C.int {
	return setAttr(comm, keyval, v, "MPI_Comm_set_attr")
}

//export capi_Attr_put
func capi_Attr_put(comm C.MPI_Comm, keyval C.int, v unsafe.Pointer) C.int {
	return setAttr(comm, keyval, v, "MPI_Attr_put")
}

//export capi_Comm_get_attr
func capi_Comm_get_attr(comm C.MPI_Comm, keyval C.int, v unsafe.Pointer, flag *C.int) C.int {
	return getAttr(comm, keyval, v, flag, "MPI_Comm_get_attr")
}

//export capi_Attr_get
func capi_Attr_get(comm C.MPI_Comm, keyval C.int, v unsafe.Pointer, flag *C.int) C.int {
	return getAttr(comm, keyval, v, flag, "MPI_Attr_get")
}

//export capi_Comm_delete_attr
func capi_Comm_delete_attr(comm C.MPI_Comm, keyval C.int) C.int {
	return deleteAttr(comm, keyval, "MPI_Comm_delete_attr")
}

//export capi_Attr_delete
func capi_Attr_delete(comm C.MPI_Comm, keyval C.int) C.int {
	return deleteAttr(comm, keyval, "MPI_Attr_delete")
}

//export capi_Type_create_keyval
func capi_Type_create_keyval(copyFn *C.MPI_Type_copy_attr_function, delFn *C.MPI_Type_delete_attr_function, keyval *C.int, extra unsafe.Pointer) C.int {
	if keyval == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_create_keyval: NULL keyval")
	}
	*keyval = newTypeKeyval(unsafe.Pointer(copyFn), unsafe.Pointer(delFn), uintptr(extra), C.LAMGO_LANG_C)
	return C.MPI_SUCCESS
}

//export capi_Type_free_keyval
func capi_Type_free_keyval(keyval *C.int) C.int {
	return freeKeyval(keyval, true, "MPI_Type_free_keyval")
}

// typeKeyvalArgs checks the datatype and keyval of a datatype attribute
// call; errors go to MPI_COMM_WORLD's handler.
func typeKeyvalArgs(datatype C.MPI_Datatype, h C.int, fn string) (*dtype, *keyval, C.int) {
	t, rc := typeArg(nil, datatype, fn)
	if t == nil {
		return nil, nil, rc
	}
	kv := keyvals.get(int(h))
	if isPredefinedKeyval(h) || kv == nil || kv.typ == nil {
		return nil, nil, fail(nil, mpi.ErrKeyval, fn+": invalid datatype keyval")
	}
	return t, kv, C.MPI_SUCCESS
}

//export capi_Type_set_attr
func capi_Type_set_attr(datatype C.MPI_Datatype, keyval C.int, v unsafe.Pointer) C.int {
	t, kv, rc := typeKeyvalArgs(datatype, keyval, "MPI_Type_set_attr")
	if t == nil {
		return rc
	}
	return raise(mpi.SetTypeAttr(t.d, kv.typ, uintptr(v)), "MPI_Type_set_attr")
}

//export capi_Type_get_attr
func capi_Type_get_attr(datatype C.MPI_Datatype, keyval C.int, v unsafe.Pointer, flag *C.int) C.int {
	t, kv, rc := typeKeyvalArgs(datatype, keyval, "MPI_Type_get_attr")
	if t == nil {
		return rc
	}
	if v == nil || flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_attr: NULL attribute_val or flag")
	}
	a, ok, err := mpi.GetTypeAttr(t.d, kv.typ)
	if err != nil {
		return raise(err, "MPI_Type_get_attr")
	}
	*flag = cBool(ok)
	if ok {
		*(*C.uintptr_t)(v) = C.uintptr_t(a)
	}
	return C.MPI_SUCCESS
}

//export capi_Type_delete_attr
func capi_Type_delete_attr(datatype C.MPI_Datatype, keyval C.int) C.int {
	t, kv, rc := typeKeyvalArgs(datatype, keyval, "MPI_Type_delete_attr")
	if t == nil {
		return rc
	}
	return raise(mpi.DeleteTypeAttr(t.d, kv.typ), "MPI_Type_delete_attr")
}
