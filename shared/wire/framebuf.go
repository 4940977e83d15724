package wire

// FrameBuffer gathers the bytes read from a connection until they make
// whole frames, for readers that read without waiting (a non-blocking
// descriptor): read into Space, report with Filled, take frames with
// Next. The zero value is ready.
type FrameBuffer struct {
	b        []byte
	pos, end int // b[pos:end] read, not yet taken
}

// frameBufferSize is a FrameBuffer's first size.
const frameBufferSize = 64 << 10

// Next returns the next whole frame: its header and body, which aliases
// the buffer until the next Space. ok is false when no whole frame is
// buffered; err reports a bad header (the stream cannot be read further).
func (f *FrameBuffer) Next() (h Header, body []byte, ok bool, err error) {
	if f.end-f.pos < HeaderSize {
		return Header{}, nil, false, nil
	}
	h, err = ParseHeader(f.b[f.pos:])
	if err != nil {
		return Header{}, nil, false, err
	}
	end := f.pos + HeaderSize + h.Len
	if end > f.end {
		return Header{}, nil, false, nil
	}
	body = f.b[f.pos+HeaderSize : end]
	f.pos = end
	return h, body, true, nil
}

// Partial reports whether part of a frame is buffered.
func (f *FrameBuffer) Partial() bool { return f.pos < f.end }

// Space returns where to read more: room for the rest of the frame begun,
// at least. It moves or grows the buffer, which ends the bodies Next
// returned.
func (f *FrameBuffer) Space() []byte {
	if f.pos == f.end {
		f.pos, f.end = 0, 0
	}
	need := HeaderSize
	if f.end-f.pos >= HeaderSize {
		if h, err := ParseHeader(f.b[f.pos:]); err == nil {
			need += h.Len
		}
	}
	switch {
	case f.pos+need <= len(f.b) && f.end < len(f.b):
	case need <= len(f.b) && f.pos > 0 && f.end-f.pos < len(f.b):
		f.end = copy(f.b, f.b[f.pos:f.end])
		f.pos = 0
	default:
		grown := make([]byte, max(2*len(f.b), need, frameBufferSize))
		f.end = copy(grown, f.b[f.pos:f.end])
		f.pos = 0
		f.b = grown
	}
	return f.b[f.end:]
}

// Filled records n bytes read into Space.
func (f *FrameBuffer) Filled(n int) { f.end += n }
