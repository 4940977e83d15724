package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
)

// ErrMalformed is wrapped by every decoding error: a frame or message that
// is truncated, too long, or carries a value out of range.
var ErrMalformed = errors.New("malformed message")

// Codec reads or writes the fields of one message, big-endian, every
// length prefixed. A message declares its layout once, in a method that
// passes each of its fields to the Codec in wire order together with the
// field's bound; run by Marshal that method writes the message, run by
// Unmarshal it reads it and checks every bound. The first decoding error
// sticks: later reads leave their fields alone, and Unmarshal returns it.
type Codec struct {
	decoding bool
	buf      []byte // encoding: the output; decoding: the input not yet read
	err      error  // decoding: the first error
}

// codecs recycles Codecs: fields is called through an interface or a
// function value, so a Codec on the stack would escape to the heap for
// every message.
var codecs = sync.Pool{New: func() any { return new(Codec) }}

// Marshal appends to buf the message whose layout fields declares.
func Marshal(buf []byte, fields func(*Codec)) []byte {
	c := codecs.Get().(*Codec)
	*c = Codec{buf: buf}
	fields(c)
	buf = c.buf
	*c = Codec{}
	codecs.Put(c)
	return buf
}

// Unmarshal reads b into the message whose layout fields declares. Every
// field must lie within its bound and no byte may be left over; errors
// wrap ErrMalformed.
func Unmarshal(b []byte, fields func(*Codec)) error {
	c := codecs.Get().(*Codec)
	*c = Codec{decoding: true, buf: b}
	fields(c)
	if c.err == nil && len(c.buf) != 0 {
		c.Fail("%d bytes left over", len(c.buf))
	}
	err := c.err
	*c = Codec{}
	codecs.Put(c)
	return err
}

// Checking reports whether a check of the values read so far is due: c is
// decoding and has met no error. A message's own validations, beyond the
// bounds that the Codec's methods take, go under it:
//
//	if c.Checking() && m.Path == "" {
//		c.Fail("empty path")
//	}
func (c *Codec) Checking() bool { return c.decoding && c.err == nil }

// Fail records a decoding error, unless one is already recorded.
func (c *Codec) Fail(format string, args ...any) {
	if c.decoding && c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	}
}

// take consumes n bytes of input, or fails and returns nil.
func (c *Codec) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.buf) {
		c.Fail("truncated %s", what)
		return nil
	}
	b := c.buf[:n:n]
	c.buf = c.buf[n:]
	return b
}

// U8 is one byte, unbounded.
func (c *Codec) U8(p *uint8) {
	if !c.decoding {
		c.buf = append(c.buf, *p)
	} else if b := c.take(1, "u8"); b != nil {
		*p = b[0]
	}
}

// U16 is a uint16, unbounded.
func (c *Codec) U16(p *uint16) {
	if !c.decoding {
		c.buf = binary.BigEndian.AppendUint16(c.buf, *p)
	} else if b := c.take(2, "u16"); b != nil {
		*p = binary.BigEndian.Uint16(b)
	}
}

// U32 is a uint32, unbounded.
func (c *Codec) U32(p *uint32) {
	if !c.decoding {
		c.buf = binary.BigEndian.AppendUint32(c.buf, *p)
	} else if b := c.take(4, "u32"); b != nil {
		*p = binary.BigEndian.Uint32(b)
	}
}

// I32 is an int32, unbounded.
func (c *Codec) I32(p *int32) {
	if !c.decoding {
		c.buf = binary.BigEndian.AppendUint32(c.buf, uint32(*p))
	} else if b := c.take(4, "i32"); b != nil {
		*p = int32(binary.BigEndian.Uint32(b))
	}
}

// Bool is one byte that must be 0 or 1.
func (c *Codec) Bool(p *bool) {
	if !c.decoding {
		c.buf = append(c.buf, boolByte(*p))
		return
	}
	var v uint8
	c.U8(&v)
	if c.Checking() && v > 1 {
		c.Fail("bad boolean %d", v)
	}
	*p = v == 1
}

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Int32 is an int32 that must lie in [lo, hi].
func (c *Codec) Int32(p *int32, what string, lo, hi int) {
	c.I32(p)
	if v := int(*p); c.Checking() && (v < lo || v > hi) {
		c.Fail("%s %d out of range [%d, %d]", what, v, lo, hi)
	}
}

// Enum is one byte that must lie in [lo, hi].
func (c *Codec) Enum(p *uint8, what string, lo, hi uint8) {
	c.U8(p)
	if c.Checking() && (*p < lo || *p > hi) {
		c.Fail("unknown %s %d", what, *p)
	}
}

// Flags is a uint32 set of flags with no bit outside known.
func (c *Codec) Flags(p *uint32, what string, known uint32) {
	c.U32(p)
	if c.Checking() && *p&^known != 0 {
		c.Fail("unknown %s %#x", what, *p)
	}
}

// Blob is a length-prefixed byte string of at most max bytes. A decoded
// blob aliases the input.
func (c *Codec) Blob(p *[]byte, what string, max int) {
	if !c.decoding {
		c.buf = binary.BigEndian.AppendUint32(c.buf, uint32(len(*p)))
		c.buf = append(c.buf, *p...)
		return
	}
	var n uint32
	c.U32(&n)
	if c.err == nil && uint64(n) > uint64(max) {
		c.Fail("%s of %d bytes exceeds %d", what, n, max)
	}
	if b := c.take(int(n), what); b != nil {
		*p = b
	}
}

// String is a length-prefixed string of at most max bytes.
func (c *Codec) String(p *string, what string, max int) {
	if !c.decoding {
		c.buf = binary.BigEndian.AppendUint32(c.buf, uint32(len(*p)))
		c.buf = append(c.buf, *p...)
		return
	}
	var b []byte
	c.Blob(&b, what, max)
	if c.err == nil {
		*p = string(b)
	}
}

// Strings is a counted list of at most maxN strings of at most maxLen
// bytes each.
func (c *Codec) Strings(p *[]string, what string, maxN, maxLen int) {
	List(c, p, what, maxN, 4, func(s *string, c *Codec) { c.String(s, what, maxLen) })
}

// List is a counted list of at most max elements, each declared by elem
// and taking at least minSize bytes on the wire. Bounding the count by
// the bytes left bounds what a lying count can make the decoder allocate.
func List[T any](c *Codec, p *[]T, what string, max, minSize int, elem func(*T, *Codec)) {
	n := uint32(len(*p))
	c.U32(&n)
	if c.decoding {
		left := len(c.buf)
		switch {
		case c.err != nil:
			return
		case uint64(n) > uint64(max):
			c.Fail("%d %s exceed %d", n, what, max)
			return
		case uint64(n)*uint64(minSize) > uint64(left):
			c.Fail("%d %s do not fit in %d bytes", n, what, left)
			return
		}
		*p = make([]T, n)
	}
	for i := range *p {
		elem(&(*p)[i], c)
	}
	if c.err != nil {
		*p = nil
	}
}
