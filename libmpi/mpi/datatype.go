package mpi

import "fmt"

// Datatype describes the layout of data in a buffer (MPI_Datatype): which
// bytes, at which offsets, make one element. The typed functions (Send,
// Recv, …) cover buffers of one Go element type; a Datatype describes
// anything else — a matrix column, a struct's fields — for SendType,
// RecvType, Pack and Unpack.
type Datatype struct {
	name   string
	size   int     // bytes of data in one element
	lb, ub int     // its extent is ub-lb
	blocks []block // where the data is, relative to an element's start

	attrs attrSet // cached attributes (attr.go)
}

type block struct{ off, n int }

// The predefined datatypes.
var (
	Byte       = basic("MPI_BYTE", 1)
	Char       = basic("MPI_CHAR", 1)
	Int8       = basic("MPI_INT8_T", 1)
	Uint8      = basic("MPI_UINT8_T", 1)
	Int16      = basic("MPI_SHORT", 2)
	Uint16     = basic("MPI_UNSIGNED_SHORT", 2)
	Int32      = basic("MPI_INT", 4)
	Uint32     = basic("MPI_UNSIGNED", 4)
	Int64      = basic("MPI_LONG", 8)
	Uint64     = basic("MPI_UNSIGNED_LONG", 8)
	Float32    = basic("MPI_FLOAT", 4)
	Float64    = basic("MPI_DOUBLE", 8)
	Complex64  = basic("MPI_COMPLEX", 8)
	Complex128 = basic("MPI_DOUBLE_COMPLEX", 16)
)

func basic(name string, n int) *Datatype {
	return &Datatype{name: name, size: n, ub: n, blocks: []block{{0, n}}}
}

// Size is the number of data bytes in one element.
func (d *Datatype) Size() int {
	if d == nil {
		return 0
	}
	return d.size
}

// Extent is the span of one element, the step between consecutive ones.
func (d *Datatype) Extent() int {
	if d == nil {
		return 0
	}
	return d.ub - d.lb
}

// LB and UB are the lower and upper bounds of one element.
func (d *Datatype) LB() int {
	if d == nil {
		return 0
	}
	return d.lb
}

// UB is the upper bound of one element.
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

// Commit readies a datatype for communication (nothing to do here).
func (d *Datatype) Commit() error { return nil }

// Free releases a datatype (datatypes are garbage collected).
func (d *Datatype) Free() {}

// maxBlocks bounds a datatype's description.
const maxBlocks = 1 << 24

// builder accumulates blocks, merging adjacent ones.
type builder struct {
	blocks  []block
	size    int
	lb, ub  int
	started bool
	err     error
}

func (b *builder) add(d *Datatype, at int) {
	if b.err != nil {
		return
	}
	for _, bl := range d.blocks {
		off := at + bl.off
		if n := len(b.blocks); n > 0 && b.blocks[n-1].off+b.blocks[n-1].n == off {
			b.blocks[n-1].n += bl.n
		} else {
			if len(b.blocks) >= maxBlocks {
				b.err = errorf(ErrType, "datatype too complex (over %d blocks)", maxBlocks)
				return
			}
			b.blocks = append(b.blocks, block{off, bl.n})
		}
	}
	b.size += d.size
	lo, hi := at+d.lb, at+d.ub
	if !b.started {
		b.lb, b.ub, b.started = lo, hi, true
	} else {
		b.lb, b.ub = min(b.lb, lo), max(b.ub, hi)
	}
}

func (b *builder) done(name string) (*Datatype, error) {
	if b.err != nil {
		return nil, b.err
	}
	return &Datatype{name: name, size: b.size, lb: b.lb, ub: b.ub, blocks: b.blocks}, nil
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

// TypeContiguous is count copies of old, one after another.
func TypeContiguous(count int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count); err != nil {
		return nil, err
	}
	return TypeHvector(count, 1, old.Extent(), old)
}

// TypeVector is count blocks of blocklen elements of old, the blocks
// stride elements apart (a matrix column: TypeVector(rows, 1, cols, ...)).
func TypeVector(count, blocklen, stride int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count, blocklen); err != nil {
		return nil, err
	}
	return TypeHvector(count, blocklen, stride*old.Extent(), old)
}

// TypeHvector is TypeVector with the stride in bytes.
func TypeHvector(count, blocklen, strideBytes int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, count, blocklen); err != nil {
		return nil, err
	}
	var b builder
	for i := 0; i < count; i++ {
		for j := 0; j < blocklen; j++ {
			b.add(old, i*strideBytes+j*old.Extent())
		}
	}
	return b.done(fmt.Sprintf("vector(%d,%d,%d,%s)", count, blocklen, strideBytes, old.name))
}

// TypeIndexed is blocks of blocklens[i] elements of old at displs[i]
// elements.
func TypeIndexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	bytes := make([]int, len(displs))
	for i, d := range displs {
		bytes[i] = d * old.Extent()
	}
	return TypeHindexed(blocklens, bytes, old)
}

// TypeHindexed is TypeIndexed with the displacements in bytes.
func TypeHindexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
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
	return b.done("indexed(" + old.name + ")")
}

// TypeStruct is blocks of blocklens[i] elements of types[i] at displs[i]
// bytes (a Go struct's fields, with their unsafe.Offsetof offsets).
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
	return b.done("struct")
}

// PackSize is the room Pack needs for count elements of d (0 for a nil
// datatype or a negative count, which Pack refuses).
func PackSize(count int, d *Datatype) int {
	if d == nil || count < 0 {
		return 0
	}
	return count * d.size
}

// walk calls fn for each block of count elements of d in buf, checking
// that every one lies inside buf.
func walk(buf []byte, count int, d *Datatype, fn func(b []byte)) error {
	if err := checkOld(d, count); err != nil {
		return err
	}
	ext := d.Extent()
	for i := 0; i < count; i++ {
		for _, bl := range d.blocks {
			off := i*ext + bl.off
			if off < 0 || off+bl.n > len(buf) {
				return errorf(ErrBuffer, "%d elements of %s do not fit in a buffer of %d bytes", count, d.name, len(buf))
			}
			fn(buf[off : off+bl.n])
		}
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

// SendType sends count elements of d from buf.
func SendType(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	if err := checkOld(d, count); err != nil {
		return c.fail(err)
	}
	packed := make([]byte, PackSize(count, d))
	pos := 0
	if err := Pack(buf, count, d, packed, &pos); err != nil {
		return c.fail(err)
	}
	return Send(c, packed, dest, tag)
}

// RecvType receives up to count elements of d into buf; Status.Bytes
// counts the data bytes (GetCountType turns it into elements).
func RecvType(c *Comm, buf []byte, count int, d *Datatype, source, tag int) (Status, error) {
	if err := c.check(); err != nil {
		return Status{}, World.fail(err)
	}
	if err := walk(buf, count, d, func([]byte) {}); err != nil {
		return Status{}, c.fail(err)
	}
	packed := make([]byte, PackSize(count, d))
	st, err := Recv(c, packed, source, tag)
	if err != nil && Class(err) != ErrTruncate {
		return st, err
	}
	pos := 0
	n := st.Bytes / max(d.size, 1)
	Unpack(packed[:n*d.size], &pos, buf, n, d)
	return st, err
}

// GetCountType is the number of whole elements of d a status describes,
// or Undefined.
func GetCountType(s Status, d *Datatype) int {
	if d == nil || d.size == 0 || s.Bytes%d.size != 0 {
		return Undefined
	}
	return s.Bytes / d.size
}
