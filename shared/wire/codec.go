package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every decoding error: a frame or message that
// is truncated, too long, or carries a value out of range.
var ErrMalformed = errors.New("malformed message")

// Encoder appends big-endian values to a buffer.
type Encoder struct{ buf []byte }

// NewEncoder returns an encoder that appends to buf.
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf} }

// Bytes returns the encoded bytes.
func (e *Encoder) Bytes() []byte { return e.buf }

func (e *Encoder) U8(v uint8)   { e.buf = append(e.buf, v) }
func (e *Encoder) U16(v uint16) { e.buf = binary.BigEndian.AppendUint16(e.buf, v) }
func (e *Encoder) U32(v uint32) { e.buf = binary.BigEndian.AppendUint32(e.buf, v) }
func (e *Encoder) U64(v uint64) { e.buf = binary.BigEndian.AppendUint64(e.buf, v) }
func (e *Encoder) I32(v int32)  { e.U32(uint32(v)) }
func (e *Encoder) I64(v int64)  { e.U64(uint64(v)) }

// Bool encodes b as one byte.
func (e *Encoder) Bool(b bool) {
	if b {
		e.U8(1)
	} else {
		e.U8(0)
	}
}

// Blob encodes a length-prefixed byte string.
func (e *Encoder) Blob(b []byte) {
	e.U32(uint32(len(b)))
	e.buf = append(e.buf, b...)
}

// String encodes a length-prefixed string.
func (e *Encoder) String(s string) {
	e.U32(uint32(len(s)))
	e.buf = append(e.buf, s...)
}

// Strings encodes a counted list of strings.
func (e *Encoder) Strings(ss []string) {
	e.U32(uint32(len(ss)))
	for _, s := range ss {
		e.String(s)
	}
}

// Decoder reads big-endian values with bounds checks. The first error
// sticks: later reads return zero values, and Err reports it.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder reads from buf.
func NewDecoder(buf []byte) *Decoder { return &Decoder{buf: buf} }

// Err returns the first error met.
func (d *Decoder) Err() error { return d.err }

// Fail records a validation error, unless one is already recorded.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	}
}

// Finish reports the first error, or an error if bytes are left over.
func (d *Decoder) Finish() error {
	if d.err == nil && d.off != len(d.buf) {
		d.Fail("%d bytes left over", len(d.buf)-d.off)
	}
	return d.err
}

func (d *Decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.buf)-d.off {
		d.Fail("truncated %s", what)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

func (d *Decoder) U8() uint8 {
	if b := d.take(1, "u8"); b != nil {
		return b[0]
	}
	return 0
}

func (d *Decoder) U16() uint16 {
	if b := d.take(2, "u16"); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (d *Decoder) U32() uint32 {
	if b := d.take(4, "u32"); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *Decoder) U64() uint64 {
	if b := d.take(8, "u64"); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *Decoder) I32() int32 { return int32(d.U32()) }
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// Bool reads one byte that must be 0 or 1.
func (d *Decoder) Bool() bool {
	switch v := d.U8(); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.Fail("bad boolean %d", v)
		return false
	}
}

// Int reads an int32 that must lie in [lo, hi].
func (d *Decoder) Int(what string, lo, hi int) int {
	v := int(d.I32())
	if d.err == nil && (v < lo || v > hi) {
		d.Fail("%s %d out of range [%d, %d]", what, v, lo, hi)
	}
	return v
}

// Blob reads a length-prefixed byte string of at most max bytes. The
// result aliases the decoder's buffer.
func (d *Decoder) Blob(what string, max int) []byte {
	n := d.U32()
	if d.err == nil && uint64(n) > uint64(max) {
		d.Fail("%s of %d bytes exceeds %d", what, n, max)
		return nil
	}
	return d.take(int(n), what)
}

// String reads a length-prefixed string of at most max bytes.
func (d *Decoder) String(what string, max int) string {
	return string(d.Blob(what, max))
}

// Strings reads a counted list of at most maxN strings of at most maxLen
// bytes each.
func (d *Decoder) Strings(what string, maxN, maxLen int) []string {
	n := d.U32()
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(maxN) {
		d.Fail("%d %s exceed %d", n, what, maxN)
		return nil
	}
	// Each string needs at least its 4-byte length: bound the allocation
	// by what the buffer can hold.
	if int(n) > (len(d.buf)-d.off)/4 {
		d.Fail("truncated %s", what)
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.String(what, maxLen)
	}
	return out
}
