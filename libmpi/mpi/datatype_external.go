package mpi

import "unsafe"

// External32 is the portable data representation of MPI-2 §13.5.2, the
// only one PackExternal and UnpackExternal know: every basic element
// big-endian, IEEE floats, no padding. Each basic type keeps its size
// here (Int64 is 8 bytes, as MPI_INT64_T), a complex is its two parts.
const External32 = "external32"

// bigEndianHost is whether this machine stores numbers big-endian.
var bigEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

func checkRep(datarep string) error {
	if datarep != External32 {
		return errorf(ErrArg, "unknown data representation %q (only %q)", datarep, External32)
	}
	return nil
}

// PackExternalSize is the room PackExternal needs for count elements of d
// (MPI_Pack_external_size).
func PackExternalSize(datarep string, count int, d *Datatype) (int, error) {
	if err := checkRep(datarep); err != nil {
		return 0, err
	}
	if err := checkOld(d, count); err != nil {
		return 0, err
	}
	return count * d.size, nil
}

// swapUnit is the size of the units a basic element is byte-swapped in.
func swapUnit(t *Datatype) int {
	if t == Complex64 || t == Complex128 {
		return t.size / 2
	}
	return t.size
}

// walkRuns calls fn for each basic element of count elements of d in
// buf, with the size of its byte-swapping unit, checking that every one
// lies inside buf.
func walkRuns(buf []byte, count int, d *Datatype, fn func(b []byte, unit int)) error {
	ext := d.Extent()
	for i := 0; i < count; i++ {
		for _, r := range d.runs {
			off, n := i*ext+r.off, r.n*r.t.size
			if off < 0 || off+n > len(buf) {
				return errorf(ErrBuffer, "%d elements of %s do not fit in a buffer of %d bytes", count, d.name, len(buf))
			}
			fn(buf[off:off+n], swapUnit(r.t))
		}
	}
	return nil
}

// copyExternal copies src to dst (of the same length) in units of unit
// bytes, reversing each unit's bytes on a little-endian host.
func copyExternal(dst, src []byte, unit int) {
	if bigEndianHost || unit == 1 {
		copy(dst, src)
		return
	}
	for o := 0; o < len(src); o += unit {
		for k := 0; k < unit; k++ {
			dst[o+k] = src[o+unit-1-k]
		}
	}
}

// PackExternal is Pack in the portable representation datarep (only
// External32: big-endian; MPI_Pack_external): count elements of d from
// buf are appended to out at *pos, which advances.
func PackExternal(datarep string, buf []byte, count int, d *Datatype, out []byte, pos *int) error {
	n, err := PackExternalSize(datarep, count, d)
	if err != nil {
		return err
	}
	if pos == nil {
		return errorf(ErrArg, "nil position")
	}
	if *pos < 0 || *pos+n > len(out) {
		return errorf(ErrBuffer, "pack buffer too small")
	}
	if err := walkRuns(buf, count, d, func([]byte, int) {}); err != nil {
		return err
	}
	return walkRuns(buf, count, d, func(b []byte, unit int) {
		copyExternal(out[*pos:*pos+len(b)], b, unit)
		*pos += len(b)
	})
}

// UnpackExternal is Unpack from the portable representation datarep
// (only External32; MPI_Unpack_external): count elements of d are read
// from in at *pos, which advances, into buf.
func UnpackExternal(datarep string, in []byte, pos *int, buf []byte, count int, d *Datatype) error {
	n, err := PackExternalSize(datarep, count, d)
	if err != nil {
		return err
	}
	if pos == nil {
		return errorf(ErrArg, "nil position")
	}
	if *pos < 0 || *pos+n > len(in) {
		return errorf(ErrTruncate, "unpack past the end of the packed data")
	}
	if err := walkRuns(buf, count, d, func([]byte, int) {}); err != nil {
		return err
	}
	return walkRuns(buf, count, d, func(b []byte, unit int) {
		copyExternal(b, in[*pos:*pos+len(b)], unit)
		*pos += len(b)
	})
}
