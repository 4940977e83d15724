package rpitest

import "unsafe"

// addr is the address of b's first byte, as the MPI core sends it to a
// peer that copies from or to it.
func addr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }
