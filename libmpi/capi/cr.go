package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "mpi.h"
void *lamgo_cr_lookup(const char *name);
void lamgo_cr_call(void *fn, int locked);
*/
import "C"

import (
	"fmt"
	"io"
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Checkpoint/restart for C programs: the library's callbacks (registered
// here, so every program linked with libmpi.so has them) call the C
// functions the self cr module names (cr_self_prefix, or
// cr_self_checkpoint, _continue and _restart; lam_cr_self_checkpoint ...
// by default), found in the process with dlsym as LAM found them in the
// executable — or a Fortran program's subroutines, under the same name
// with gfortran's trailing underscore. The functions write and read the
// program's state in the checkpoint with MPIL_Cr_write and MPIL_Cr_read
// (include/mpil_cr.h; MPIL_CR_WRITE ... in Fortran).

func init() {
	mpi.OnCheckpoint(crCheckpoint)
	mpi.OnContinue(crContinue)
	mpi.OnRestart(crRestart)
}

// crIO is the checkpoint or restart under way: the writer or reader the
// C functions use, and the first error of a write.
var crIO struct {
	mu  sync.Mutex
	w   *mpi.CheckpointWriter
	r   *mpi.CheckpointReader
	err error
	// comms are the handles MPIL_Cr_read_comm gave in this restart, so
	// that a communicator read twice has one handle.
	comms map[*mpi.Comm]C.MPI_Comm
}

// crLookup returns the program's C function for which ("checkpoint",
// "continue", "restart"), nil if it has none. A function named one by one
// (cr_self_checkpoint, ...) that is not in the process is an error.
func crLookup(which string) (unsafe.Pointer, error) {
	cb, ok := mpi.CRCallbacks()
	if !ok {
		return nil, nil
	}
	name := map[string]string{"checkpoint": cb.Checkpoint, "continue": cb.Continue, "restart": cb.Restart}[which]
	if name == "" {
		return nil, nil
	}
	f := lookup(name)
	if f == nil {
		f = lookup(name + "_") // a Fortran subroutine (gfortran's name)
	}
	if f == nil && cb.Named {
		return nil, fmt.Errorf("cr_self_%s names %s, which the program does not define (or was not linked with -rdynamic)", which, name)
	}
	return f, nil
}

// lookup finds the program's function name in the process.
func lookup(name string) unsafe.Pointer {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.lamgo_cr_lookup(cs)
}

// crCall calls the C function f with the writer w or the reader r in
// place for MPIL_Cr_write and MPIL_Cr_read, and returns the first error
// of a write.
// The checkpoint function (w set) runs under the program's lock
// (MPIL_Cr_lock).
func crCall(f unsafe.Pointer, w *mpi.CheckpointWriter, r *mpi.CheckpointReader) error {
	crIO.mu.Lock()
	crIO.w, crIO.r, crIO.err = w, r, nil
	crIO.mu.Unlock()
	locked := C.int(0)
	if w != nil {
		locked = 1
	}
	C.lamgo_cr_call(f, locked)
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	err := crIO.err
	crIO.w, crIO.r, crIO.err, crIO.comms = nil, nil, nil, nil
	return err
}

func crCheckpoint(w *mpi.CheckpointWriter) error {
	f, err := crLookup("checkpoint")
	if err != nil || f == nil {
		return err
	}
	return crCall(f, w, nil)
}

func crContinue() error {
	f, err := crLookup("continue")
	if err != nil || f == nil {
		return err
	}
	return crCall(f, nil, nil)
}

// crRestart calls the program's restart function. A checkpoint that
// holds the program's state while the program has no restart function
// is an error: the state would be lost without a word.
func crRestart(r *mpi.CheckpointReader) error {
	f, err := crLookup("restart")
	if err != nil {
		return err
	}
	if f == nil {
		if n, _ := r.Read(make([]byte, 1)); n > 0 {
			cb, _ := mpi.CRCallbacks()
			return fmt.Errorf("the checkpoint holds the program's state, but the program has no restart function %s (define it, and link the program with -rdynamic)", cb.Restart)
		}
		return nil
	}
	return crCall(f, nil, r)
}

//export lamgo_cr_write
func lamgo_cr_write(buf unsafe.Pointer, count C.int) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	switch {
	case crIO.w == nil:
		return C.MPI_ERR_OTHER
	case count < 0 || buf == nil && count > 0:
		crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write: %d bytes at %p", count, buf))
		return C.MPI_ERR_ARG
	case count == 0:
		return C.MPI_SUCCESS
	}
	if _, err := crIO.w.Write(unsafe.Slice((*byte)(buf), int(count))); err != nil {
		crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write: %w", err))
		return C.MPI_ERR_OTHER
	}
	return C.MPI_SUCCESS
}

//export lamgo_cr_read
func lamgo_cr_read(buf unsafe.Pointer, count C.int) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	switch {
	case crIO.r == nil:
		return C.MPI_ERR_OTHER
	case count < 0 || buf == nil && count > 0:
		return C.MPI_ERR_ARG
	case count == 0:
		return C.MPI_SUCCESS
	}
	if _, err := io.ReadFull(crIO.r, unsafe.Slice((*byte)(buf), int(count))); err != nil {
		return C.MPI_ERR_OTHER
	}
	return C.MPI_SUCCESS
}

//export lamgo_cr_discard
func lamgo_cr_discard() C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	if crIO.r == nil {
		return C.MPI_ERR_OTHER
	}
	crIO.r.DiscardMessages()
	return C.MPI_SUCCESS
}

// firstErr keeps the first error.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

//export lamgo_cr_write_request
func lamgo_cr_write_request(h C.MPI_Request) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	if crIO.w == nil {
		return C.MPI_ERR_OTHER
	}
	var r *mpi.Request
	if h != C.MPI_REQUEST_NULL {
		if r = requests.get(int(h)); r == nil {
			crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write_request: %d names no request", int(h)))
			return C.MPI_ERR_REQUEST
		}
	}
	if err := crIO.w.Request(r); err != nil {
		crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write_request: %w", err))
		return code(err)
	}
	return C.MPI_SUCCESS
}

//export lamgo_cr_read_request
func lamgo_cr_read_request(buf unsafe.Pointer, bytes C.int, out *C.MPI_Request) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	switch {
	case crIO.r == nil:
		return C.MPI_ERR_OTHER
	case out == nil || bytes < 0 || buf == nil && bytes > 0:
		return C.MPI_ERR_ARG
	}
	var b []byte
	if bytes > 0 {
		b = unsafe.Slice((*byte)(buf), int(bytes))
	}
	r, err := mpi.ReadRequest(crIO.r, b)
	return putRequest(out, r, r.Persistent(), err)
}

// lamgo_cr_keyval_name makes the program's keyval h restorable under the
// name of n bytes (MPIL_Cr_keyval_name): its attributes' values, integers
// the size of a pointer, are saved with the communicators and datatypes a
// checkpoint saves, and set again at restart on those of a program that
// named its keyval the same before MPI_Init.
//
//export lamgo_cr_keyval_name
func lamgo_cr_keyval_name(h C.int, name *C.char, n C.int) C.int {
	const fn = "MPIL_Cr_keyval_name"
	if name == nil || n <= 0 {
		return fail(nil, mpi.ErrArg, fn+": a keyval's name is empty")
	}
	kv := keyvals.get(int(h))
	if kv == nil {
		return fail(nil, mpi.ErrKeyval, fmt.Sprintf("%s: %d is not a keyval of the program", fn, int(h)))
	}
	s := C.GoStringN(name, n)
	var err error
	if kv.comm != nil {
		err = kv.comm.Restorable(s)
	} else {
		err = kv.typ.Restorable(s)
	}
	if err != nil {
		return fail(nil, mpi.Class(err), fmt.Sprintf("%s: %v", fn, err))
	}
	return C.MPI_SUCCESS
}

// What the C layer keeps of a communicator beyond the Go API
// (comm.go's named and predef), saved before it by MPIL_Cr_write_comm.
const (
	crCommNamed  = 1 << 0 // the program named it: MPI_Comm_get_name gives the name
	crCommPredef = 1 << 1 // it holds the predefined attributes (MPI_TAG_UB ...)
)

// lamgo_cr_write_comm saves the program's communicator h with the
// program's state (MPIL_Cr_write_comm), as the Go API's CheckpointWriter.Comm
// does: its group, context, name, topology and the attributes of
// restorable keyvals; MPI_COMM_NULL comes back as MPI_COMM_NULL.
//
//export lamgo_cr_write_comm
func lamgo_cr_write_comm(h C.MPI_Comm) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	if crIO.w == nil {
		return C.MPI_ERR_OTHER
	}
	var c *mpi.Comm
	if h != C.MPI_COMM_NULL {
		if c = comms.get(int(h)); c == nil {
			crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write_comm: %d names no communicator", int(h)))
			return C.MPI_ERR_COMM
		}
	}
	var flags byte
	if c != nil {
		if _, ok := named.Load(c); ok {
			flags |= crCommNamed
		}
		if c != mpi.World && holdsPredefined(c) {
			flags |= crCommPredef
		}
	}
	if _, err := crIO.w.Write([]byte{flags}); err != nil {
		crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write_comm: %w", err))
		return C.MPI_ERR_OTHER
	}
	if err := crIO.w.Comm(c); err != nil {
		crIO.err = firstErr(crIO.err, fmt.Errorf("MPIL_Cr_write_comm: %w", err))
		return code(err)
	}
	return C.MPI_SUCCESS
}

// lamgo_cr_read_comm gives back, in the restart function, the next
// communicator MPIL_Cr_write_comm saved (MPIL_Cr_read_comm): made again by
// the library with its attributes; MPI_COMM_WORLD and MPI_COMM_SELF as
// themselves, one communicator saved twice as one handle.
//
//export lamgo_cr_read_comm
func lamgo_cr_read_comm(out *C.MPI_Comm) C.int {
	crIO.mu.Lock()
	defer crIO.mu.Unlock()
	switch {
	case crIO.r == nil:
		return C.MPI_ERR_OTHER
	case out == nil:
		return C.MPI_ERR_ARG
	}
	*out = C.MPI_COMM_NULL
	var flags [1]byte
	if _, err := io.ReadFull(crIO.r, flags[:]); err != nil {
		return C.MPI_ERR_OTHER
	}
	c, err := crIO.r.Comm()
	if err != nil {
		return code(err)
	}
	switch {
	case c == nil:
	case c == mpi.World:
		*out = C.MPI_COMM_WORLD
	case c == mpi.Self:
		*out = C.MPI_COMM_SELF
	default:
		if h, ok := crIO.comms[c]; ok {
			*out = h
			break
		}
		if flags[0]&crCommNamed != 0 {
			named.Store(c, struct{}{})
		}
		if flags[0]&crCommPredef != 0 {
			predef.Store(c, struct{}{})
		}
		putComm(c, out)
		if crIO.comms == nil {
			crIO.comms = map[*mpi.Comm]C.MPI_Comm{}
		}
		crIO.comms[c] = *out
	}
	return C.MPI_SUCCESS
}
