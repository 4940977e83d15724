package mpi

// IsContiguous reports whether d's data is one run of Size bytes from
// buf[0], in order, with lower bound 0 and extent Size: then count
// elements of d are exactly count*Size bytes from buf[0], and may be
// moved as bytes (Send, Recv, copy) instead of through the datatype calls.
// The predefined types are contiguous, and so is, say,
// TypeContiguous(4, Int32); a vector with gaps, a struct with padding or
// a resized type is not.
func (d *Datatype) IsContiguous() bool {
	if d == nil || d.marker || d.lb != 0 || d.ub != d.size {
		return false
	}
	switch len(d.blocks) {
	case 0:
		return d.size == 0
	case 1:
		return d.blocks[0].Off == 0 && d.blocks[0].Len == d.size
	}
	return false
}

// TypeOpaque is a new basic datatype of size bytes aligned to align
// bytes, for a machine type Go has no name for (C's long double, a
// 128-bit integer): its bytes move as they are, it counts as one basic
// element (GetElements), it pads structs as its alignment says, and
// PackExternal reverses its bytes as one unit on a little-endian host, as
// it does an integer's (External32 has no rule for an unknown type: both
// sides must agree on what the bytes are). Its envelope is CombinerNamed.
func TypeOpaque(name string, size, align int) (*Datatype, error) {
	if size < 1 || align < 1 || align&(align-1) != 0 {
		return nil, errorf(ErrArg, "opaque type %q: size %d, alignment %d (want size > 0, alignment a power of 2)", name, size, align)
	}
	d := &Datatype{name: name, size: size, ub: size, tub: size, align: align, blocks: []block{{Off: 0, Len: size}}, elems: 1}
	d.runs = []run{{0, d, 1}}
	return d, nil
}
