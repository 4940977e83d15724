package rpi

// Block is one run of data bytes in an element of a Layout: Len bytes at
// Off from the element's start.
type Block struct{ Off, Len int }

// Layout is data spread over a buffer (a derived datatype's data in the
// user's memory): Count elements, Extent bytes apart, each made of Blocks
// in order. Its bytes, read block by block and element by element, are
// the message (what packing them would give), so a link can move them
// straight between the buffer and the wire.
//
// Every block of every element lies inside Base; whoever builds a Layout
// checks that once. Size is the sum of the blocks' lengths.
type Layout struct {
	Base   []byte
	Blocks []Block
	Count  int
	Extent int
	Size   int
}

// Len is the number of data bytes in the layout.
func (l *Layout) Len() int { return l.Count * l.Size }

// Pieces is the number of runs of bytes the layout has (blocks times
// elements): what a vector of I/O buffers over it would need.
func (l *Layout) Pieces() int { return l.Count * len(l.Blocks) }

// Cursor returns a cursor at the layout's first byte.
func (l *Layout) Cursor() Cursor { return Cursor{l: l} }

// Cursor is a position in a Layout's bytes. The zero Cursor is at the
// end of an empty layout.
type Cursor struct {
	l     *Layout
	elem  int // the element
	block int // the block in it
	off   int // bytes of the block before the position
	pos   int // bytes of the layout before the position
}

// Pos is the number of the layout's bytes before the cursor.
func (c *Cursor) Pos() int { return c.pos }

// Left is the number of the layout's bytes from the cursor on.
func (c *Cursor) Left() int {
	if c.l == nil {
		return 0
	}
	return c.l.Len() - c.pos
}

// Next returns the bytes from the cursor to the end of its block, at most
// max of them, and moves past them; it returns nil at the end (or for
// max <= 0).
func (c *Cursor) Next(max int) []byte {
	for max > 0 {
		p := c.piece()
		if p == nil {
			return nil
		}
		if len(p) == 0 {
			c.advance(0, 0) // an empty block
			continue
		}
		k := min(len(p), max)
		c.advance(k, len(p))
		return p[:k:k]
	}
	return nil
}

// Skip moves the cursor n bytes on (to the end at most).
func (c *Cursor) Skip(n int) {
	for n > 0 {
		p := c.Next(n)
		if p == nil {
			return
		}
		n -= len(p)
	}
}

// Seek moves the cursor to byte pos of the layout (to the end at most).
func (c *Cursor) Seek(pos int) {
	l := c.l
	*c = Cursor{l: l}
	if l == nil || l.Size == 0 || pos <= 0 {
		return
	}
	pos = min(pos, l.Len())
	c.elem = pos / l.Size
	c.pos = c.elem * l.Size
	c.Skip(pos - c.pos)
}

// CopyIn copies src into the layout from the cursor on and moves past
// what it copied (a scatter); it returns the bytes copied.
func (c *Cursor) CopyIn(src []byte) int {
	n := 0
	for n < len(src) {
		p := c.piece()
		if p == nil {
			break
		}
		k := copy(p, src[n:])
		c.advance(k, len(p))
		n += k
	}
	return n
}

// CopyOut copies the layout's bytes from the cursor on into dst and
// moves past them (a gather); it returns the bytes copied.
func (c *Cursor) CopyOut(dst []byte) int {
	n := 0
	for n < len(dst) {
		p := c.piece()
		if p == nil {
			break
		}
		k := copy(dst[n:], p)
		c.advance(k, len(p))
		n += k
	}
	return n
}

// piece is the rest of the cursor's block (nil at the layout's end),
// without moving.
func (c *Cursor) piece() []byte {
	l := c.l
	if l == nil || c.elem >= l.Count || len(l.Blocks) == 0 {
		return nil
	}
	b := l.Blocks[c.block]
	at := c.elem*l.Extent + b.Off + c.off
	return l.Base[at : at+b.Len-c.off]
}

// advance moves the cursor k bytes on in a piece of left bytes, to the
// next non-empty block if it used the piece up.
func (c *Cursor) advance(k, left int) {
	c.pos += k
	if k < left {
		c.off += k
		return
	}
	c.off = 0
	l := c.l
	for {
		if c.block++; c.block == len(l.Blocks) {
			c.block = 0
			if c.elem++; c.elem >= l.Count {
				return
			}
		}
		if l.Blocks[c.block].Len > 0 {
			return
		}
	}
}

// The optional interfaces below let a link move a Layout's bytes without
// an intermediate copy. A link without them gets the bytes through
// Read and Write, the core copying through a bounded buffer of its own.

// GatherWriter is implemented by links that write a frame's header and a
// body spread over a layout in one call (writev(2), one publication in a
// shared-memory ring).
type GatherWriter interface {
	// WriteGather writes hdr (which may be empty) and then up to n bytes
	// of a layout from body on, as much as the link takes now, and moves
	// body past the body bytes written. It returns the bytes written,
	// header included.
	WriteGather(hdr []byte, body *Cursor, n int) (int, error)
}

// ScatterReader is implemented by links that read straight into a
// layout's pieces (readv(2), a shared-memory ring's copy).
type ScatterReader interface {
	// ReadScatter reads up to n bytes into the layout from body on, as
	// much as the link has now, and moves body past them.
	ReadScatter(body *Cursor, n int) (int, error)
}

// RemoteLayout is implemented by links whose single-copy transfers
// (RemoteReader, RemoteWriter) also take a layout on this process's side:
// one system call moves between the layout's pieces and a run of the
// peer's memory.
type RemoteLayout interface {
	// ReadRemoteLayout copies n bytes at addr in the peer's memory into
	// the layout from dst on, and moves dst past them.
	ReadRemoteLayout(dst *Cursor, n int, addr uint64) error
	// WriteRemoteLayout copies n bytes of the layout from src on to addr
	// in the peer's memory, and moves src past them.
	WriteRemoteLayout(src *Cursor, n int, addr uint64) error
}

// MinPiecer is implemented by links whose gathering and scattering calls
// cost enough per piece (a system call's I/O vector) that short pieces
// are cheaper copied through a buffer: a layout whose blocks are shorter
// than MinPiece bytes on average goes through the core's buffers instead.
type MinPiecer interface {
	MinPiece() int
}
