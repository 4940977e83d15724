package mpi

import (
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/rpi"
)

// Datatype describes the layout of data in a buffer (MPI_Datatype): which
// bytes, at which offsets, make one element. The typed functions (Send,
// Recv, …) cover buffers of one Go element type; a Datatype describes
// anything else — a matrix column, a struct's fields — for SendType,
// RecvType, Pack and Unpack.
//
// Displacements are relative to the start of the buffer given to the
// call (buf[0]): every byte an element covers must lie inside buf. A type
// built with negative displacements or strides is used by placing it at
// a positive displacement (TypeStruct, TypeHindexed) or by passing a
// sub-slice that starts early enough.
//
// A Datatype is immutable once built, so it may be shared by goroutines
// and stays valid for as long as a pending operation holds it.
type Datatype struct {
	name     string
	size     int     // bytes of data in one element
	lb, ub   int     // its extent is ub-lb
	tlb, tub int     // the true bounds: of the data alone, markers left out
	align    int     // the largest alignment of the basic types in it
	lbMark   bool    // lb was set explicitly (an LB marker or a resize)
	ubMark   bool    // ub was set explicitly (a UB marker or a resize)
	marker   bool    // the LB or UB marker itself
	blocks   []block // where the data is, relative to an element's start
	runs     []run   // the basic elements, in type-map order
	elems    int     // basic elements in one element
	env      envelope

	attrs attrSet // cached attributes (attr.go)
}

// block is a run of an element's data bytes (rpi.Block, so that a
// layout over the user's buffer hands a transport the type's blocks as
// they are).
type block = rpi.Block

// run is n basic elements of type t, one after another from off.
type run struct {
	off int
	t   *Datatype
	n   int
}

// The predefined datatypes.
var (
	Byte       = basic("MPI_BYTE", 1, 1)
	Char       = basic("MPI_CHAR", 1, 1)
	Int8       = basic("MPI_INT8_T", 1, 1)
	Uint8      = basic("MPI_UINT8_T", 1, 1)
	Int16      = basic("MPI_SHORT", 2, unsafe.Alignof(int16(0)))
	Uint16     = basic("MPI_UNSIGNED_SHORT", 2, unsafe.Alignof(uint16(0)))
	Int32      = basic("MPI_INT", 4, unsafe.Alignof(int32(0)))
	Uint32     = basic("MPI_UNSIGNED", 4, unsafe.Alignof(uint32(0)))
	Int64      = basic("MPI_LONG", 8, unsafe.Alignof(int64(0)))
	Uint64     = basic("MPI_UNSIGNED_LONG", 8, unsafe.Alignof(uint64(0)))
	Float32    = basic("MPI_FLOAT", 4, unsafe.Alignof(float32(0)))
	Float64    = basic("MPI_DOUBLE", 8, unsafe.Alignof(float64(0)))
	Complex64  = basic("MPI_COMPLEX", 8, unsafe.Alignof(complex64(0)))
	Complex128 = basic("MPI_DOUBLE_COMPLEX", 16, unsafe.Alignof(complex128(0)))
	// Bool is a Go bool (one byte, 0 or 1; MPI_C_BOOL).
	Bool = basic("MPI_C_BOOL", 1, 1)
)

func basic(name string, n int, align uintptr) *Datatype {
	d := &Datatype{name: name, size: n, ub: n, tub: n, align: int(align), blocks: []block{{Off: 0, Len: n}}, elems: 1}
	d.runs = []run{{0, d, 1}}
	return d
}

// Size is the number of data bytes in one element.
func (d *Datatype) Size() int {
	if d == nil {
		return 0
	}
	return d.size
}

// Extent is the span of one element, the step between consecutive ones:
// UB-LB. A struct's extent is padded to the largest alignment of its
// members, as Go (and C) pad structs, unless a UB marker or a resize set
// its upper bound.
func (d *Datatype) Extent() int {
	if d == nil {
		return 0
	}
	return d.ub - d.lb
}

// LB is the lower bound of one element (MPI_Type_lb).
func (d *Datatype) LB() int {
	if d == nil {
		return 0
	}
	return d.lb
}

// UB is the upper bound of one element (MPI_Type_ub).
func (d *Datatype) UB() int {
	if d == nil {
		return 0
	}
	return d.ub
}

// Name is the datatype's name.
func (d *Datatype) Name() string {
	if d == nil {
		return "MPI_DATATYPE_NULL"
	}
	return d.name
}

// Commit readies a datatype for communication (nothing to do here: a
// Datatype is ready once built).
func (d *Datatype) Commit() error { return nil }

// Free releases a datatype (MPI_Type_free): it runs the delete callbacks
// of its attributes. Datatypes are garbage collected and their layouts
// immutable, so one freed while an operation that uses it is pending
// stays valid until that operation is done, as MPI requires, and so do
// the types built from it.
func (d *Datatype) Free() error {
	if d == nil {
		return errorf(ErrType, "Free of a nil datatype")
	}
	return d.deleteTypeAttrs()
}

// maxBlocks bounds a datatype's description.
const maxBlocks = 1 << 24

// builder accumulates a type map: blocks and runs (merging adjacent
// ones), the data size, the bounds and the markers.
type builder struct {
	blocks      []block
	runs        []run
	size, elems int
	lb, ub      int // natural bounds, of the components without markers
	haveLB      bool
	haveUB      bool
	xlb, xub    int // explicit bounds, of the components with markers
	hasXLB      bool
	hasXUB      bool
	tlb, tub    int // true bounds
	haveData    bool
	align       int
	err         error
}

func (b *builder) add(d *Datatype, at int) {
	if b.err != nil {
		return
	}
	for _, bl := range d.blocks {
		off := at + bl.Off
		if n := len(b.blocks); n > 0 && b.blocks[n-1].Off+b.blocks[n-1].Len == off {
			b.blocks[n-1].Len += bl.Len
		} else {
			if len(b.blocks) >= maxBlocks {
				b.err = errorf(ErrType, "datatype too complex (over %d blocks)", maxBlocks)
				return
			}
			b.blocks = append(b.blocks, block{Off: off, Len: bl.Len})
		}
	}
	for _, r := range d.runs {
		off := at + r.off
		if n := len(b.runs); n > 0 && b.runs[n-1].t == r.t && b.runs[n-1].off+b.runs[n-1].n*r.t.size == off {
			b.runs[n-1].n += r.n
		} else {
			if len(b.runs) >= maxBlocks {
				b.err = errorf(ErrType, "datatype too complex (over %d runs)", maxBlocks)
				return
			}
			b.runs = append(b.runs, run{off, r.t, r.n})
		}
	}
	b.size += d.size
	b.elems += d.elems
	b.align = max(b.align, d.align)
	if d.size > 0 {
		lo, hi := at+d.tlb, at+d.tub
		if !b.haveData {
			b.tlb, b.tub, b.haveData = lo, hi, true
		} else {
			b.tlb, b.tub = min(b.tlb, lo), max(b.tub, hi)
		}
	}
	switch lo := at + d.lb; {
	case d.lbMark && !b.hasXLB:
		b.xlb, b.hasXLB = lo, true
	case d.lbMark:
		b.xlb = min(b.xlb, lo)
	case d.marker: // a UB marker sets no lower bound
	case !b.haveLB:
		b.lb, b.haveLB = lo, true
	default:
		b.lb = min(b.lb, lo)
	}
	switch hi := at + d.ub; {
	case d.ubMark && !b.hasXUB:
		b.xub, b.hasXUB = hi, true
	case d.ubMark:
		b.xub = max(b.xub, hi)
	case d.marker: // an LB marker sets no upper bound
	case !b.haveUB:
		b.ub, b.haveUB = hi, true
	default:
		b.ub = max(b.ub, hi)
	}
}

// done makes the datatype. With pad, an upper bound that no marker set
// is raised so that the extent is a multiple of the largest alignment
// (the epsilon of MPI-1 §3.12.2, applied to structs as C compilers and
// Go pad them).
func (b *builder) done(name string, pad bool, env envelope) (*Datatype, error) {
	if b.err != nil {
		return nil, b.err
	}
	d := &Datatype{name: name, size: b.size, blocks: b.blocks, runs: b.runs, elems: b.elems,
		align: max(b.align, 1), tlb: b.tlb, tub: b.tub, env: env}
	lbSet, ubSet := b.hasXLB || b.haveLB, b.hasXUB || b.haveUB
	switch {
	case b.hasXLB:
		d.lb, d.lbMark = b.xlb, true
	case b.haveLB:
		d.lb = b.lb
	}
	switch {
	case b.hasXUB:
		d.ub, d.ubMark = b.xub, true
	case b.haveUB:
		d.ub = b.ub
	}
	if lbSet && !ubSet {
		d.ub = d.lb
	} else if ubSet && !lbSet {
		d.lb = d.ub
	}
	if pad && !d.ubMark {
		if r := (d.ub - d.lb) % d.align; r > 0 {
			d.ub += d.align - r
		}
	}
	return d, nil
}

func checkOld(d *Datatype, counts ...int) error {
	if d == nil {
		return errorf(ErrType, "nil datatype")
	}
	for _, c := range counts {
		if c < 0 {
			return errorf(ErrCount, "negative count %d", c)
		}
	}
	return nil
}

// TypeContiguous is count copies of old, one after another
// (MPI_Type_contiguous).
func TypeContiguous(count int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count); err != nil {
		return nil, err
	}
	return hvector(count, 1, old.Extent(), old, fmt.Sprintf("contiguous(%d,%s)", count, old.name),
		envelope{comb: CombinerContiguous, ints: []int{count}, types: []*Datatype{old}})
}

// TypeVector is count blocks of blocklen elements of old, the blocks
// stride elements apart (a matrix column: TypeVector(rows, 1, cols, ...);
// MPI_Type_vector). The stride may be negative.
func TypeVector(count, blocklen, stride int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count, blocklen); err != nil {
		return nil, err
	}
	return hvector(count, blocklen, stride*old.Extent(), old, fmt.Sprintf("vector(%d,%d,%d,%s)", count, blocklen, stride, old.name),
		envelope{comb: CombinerVector, ints: []int{count, blocklen, stride}, types: []*Datatype{old}})
}

// TypeHvector is TypeVector with the stride in bytes (MPI_Type_hvector).
func TypeHvector(count, blocklen, strideBytes int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count, blocklen); err != nil {
		return nil, err
	}
	return hvector(count, blocklen, strideBytes, old, fmt.Sprintf("hvector(%d,%d,%d,%s)", count, blocklen, strideBytes, old.name),
		envelope{comb: CombinerHvector, ints: []int{count, blocklen}, addrs: []int{strideBytes}, types: []*Datatype{old}})
}

func hvector(count, blocklen, strideBytes int, old *Datatype, name string, env envelope) (*Datatype, error) {
	var b builder
	for i := 0; i < count; i++ {
		for j := 0; j < blocklen; j++ {
			b.add(old, i*strideBytes+j*old.Extent())
		}
	}
	return b.done(name, false, env)
}

// TypeIndexed is blocks of blocklens[i] elements of old at displs[i]
// elements (MPI_Type_indexed).
func TypeIndexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	bytes := make([]int, len(displs))
	for i, d := range displs {
		bytes[i] = d * old.Extent()
	}
	return hindexed(blocklens, bytes, old, "indexed("+old.name+")",
		envelope{comb: CombinerIndexed, ints: append(append([]int{len(blocklens)}, blocklens...), displs...), types: []*Datatype{old}})
}

// TypeHindexed is TypeIndexed with the displacements in bytes
// (MPI_Type_hindexed).
func TypeHindexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
	return hindexed(blocklens, displs, old, "hindexed("+old.Name()+")",
		envelope{comb: CombinerHindexed, ints: append([]int{len(blocklens)}, blocklens...), addrs: clone(displs), types: []*Datatype{old}})
}

func hindexed(blocklens, displs []int, old *Datatype, name string, env envelope) (*Datatype, error) {
	if err := checkOld(old, blocklens...); err != nil {
		return nil, err
	}
	if len(blocklens) != len(displs) {
		return nil, errorf(ErrArg, "%d block lengths for %d displacements", len(blocklens), len(displs))
	}
	var b builder
	for i, n := range blocklens {
		for j := 0; j < n; j++ {
			b.add(old, displs[i]+j*old.Extent())
		}
	}
	return b.done(name, false, env)
}

// TypeStruct is blocks of blocklens[i] elements of types[i] at displs[i]
// bytes (a Go struct's fields, with their unsafe.Offsetof offsets;
// MPI_Type_create_struct). Its extent is padded to the largest alignment
// of its members, so that it equals unsafe.Sizeof of the Go struct and a
// slice of such structs is count elements of the type; LB and UB markers
// among types set the bounds explicitly instead.
func TypeStruct(blocklens, displs []int, types []*Datatype) (*Datatype, error) {
	if len(blocklens) != len(displs) || len(displs) != len(types) {
		return nil, errorf(ErrArg, "block lengths, displacements and types differ in number")
	}
	var b builder
	for i, n := range blocklens {
		if err := checkOld(types[i], n); err != nil {
			return nil, err
		}
		for j := 0; j < n; j++ {
			b.add(types[i], displs[i]+j*types[i].Extent())
		}
	}
	return b.done("struct", true, envelope{comb: CombinerStruct, ints: append([]int{len(blocklens)}, blocklens...),
		addrs: clone(displs), types: clone(types)})
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

// PackSize is the room Pack needs for count elements of d (0 for a nil
// datatype or a negative count, which Pack refuses).
func PackSize(count int, d *Datatype) int {
	if d == nil || count < 0 {
		return 0
	}
	return count * d.size
}

// walk calls fn for each run of count elements of d in buf, checking that
// every block lies inside buf. Blocks that follow one another in buf are
// handed over as one run (all count elements at once for a contiguous
// type, such as Byte), so packing a basic type is one copy.
func walk(buf []byte, count int, d *Datatype, fn func(b []byte)) error {
	if err := checkOld(d, count); err != nil {
		return err
	}
	if d.IsContiguous() {
		n := count * d.size
		if n > len(buf) {
			return errorf(ErrBuffer, "%d elements of %s do not fit in a buffer of %d bytes", count, d.name, len(buf))
		}
		if n > 0 {
			fn(buf[:n])
		}
		return nil
	}
	ext := d.Extent()
	start, end := 0, 0 // the run not yet handed to fn
	for i := 0; i < count; i++ {
		for _, bl := range d.blocks {
			off := i*ext + bl.Off
			if off < 0 || off+bl.Len > len(buf) {
				return errorf(ErrBuffer, "%d elements of %s do not fit in a buffer of %d bytes", count, d.name, len(buf))
			}
			if bl.Len == 0 {
				continue
			}
			if off == end && end > start {
				end += bl.Len
				continue
			}
			if end > start {
				fn(buf[start:end])
			}
			start, end = off, off+bl.Len
		}
	}
	if end > start {
		fn(buf[start:end])
	}
	return nil
}

// Pack appends count elements of d from buf to out at *pos, advancing
// *pos (MPI_Pack).
func Pack(buf []byte, count int, d *Datatype, out []byte, pos *int) error {
	if err := checkOld(d, count); err != nil {
		return err
	}
	if pos == nil {
		return errorf(ErrArg, "nil position")
	}
	if *pos < 0 || *pos+PackSize(count, d) > len(out) {
		return errorf(ErrBuffer, "pack buffer too small")
	}
	return walk(buf, count, d, func(b []byte) { *pos += copy(out[*pos:], b) })
}

// Unpack reads count elements of d from in at *pos into buf, advancing
// *pos (MPI_Unpack).
func Unpack(in []byte, pos *int, buf []byte, count int, d *Datatype) error {
	if err := checkOld(d, count); err != nil {
		return err
	}
	if pos == nil {
		return errorf(ErrArg, "nil position")
	}
	if *pos < 0 || *pos+PackSize(count, d) > len(in) {
		return errorf(ErrTruncate, "unpack past the end of the packed data")
	}
	return walk(buf, count, d, func(b []byte) { *pos += copy(b, in[*pos:]) })
}

// GetCountType is the number of whole elements of d a status describes,
// or Undefined.
func GetCountType(s Status, d *Datatype) int {
	if d == nil || d.size == 0 || s.Bytes%d.size != 0 {
		return Undefined
	}
	return s.Bytes / d.size
}
