package wire

import (
	"bytes"
	"errors"
	"testing"
)

// feed gives data to a FrameBuffer in reads of at most the chunk sizes
// given (in turn) and returns how many frames Next gave, each checked
// against ReadFrame over the same bytes.
func feed(t *testing.T, data []byte, chunks []int) (frames int, err error) {
	t.Helper()
	var f FrameBuffer
	r := bytes.NewReader(data)
	for off, i := 0, 0; ; i++ {
		for {
			h, body, ok, err := f.Next()
			if err != nil {
				return frames, err
			}
			if !ok {
				break
			}
			want, rerr := ReadFrame(r)
			if rerr == nil && (want.Header != h || !bytes.Equal(AppendFrame(nil, h.ID, h.Flags, want.Msg)[HeaderSize:], body)) {
				t.Fatalf("frame %d: %+v of %d bytes, want %+v", frames, h, len(body), want.Header)
			}
			if rerr != nil && !errors.Is(rerr, ErrMalformed) {
				t.Fatalf("frame %d: Next gave it, ReadFrame: %v", frames, rerr)
			}
			frames++
		}
		if off == len(data) {
			return frames, nil
		}
		space := f.Space()
		if len(space) == 0 {
			t.Fatal("Space gave no room")
		}
		n := copy(space[:min(len(space), chunks[i%len(chunks)])], data[off:])
		f.Filled(n)
		off += n
	}
}

// Frames come whole whatever the reads' sizes, frames larger than the
// first buffer included; a bad header is an error.
func TestFrameBuffer(t *testing.T) {
	var data []byte
	for i := range 50 {
		data = AppendFrame(data, uint64(i), 0, &Echo{Node: 1, Data: bytes.Repeat([]byte{byte(i)}, i*i*37)})
	}
	data = AppendPost(data, 9, 1, 2, 3, []byte("head"), make([]byte, 200<<10)) // beyond the first size
	for _, chunks := range [][]int{{1}, {7, 3}, {16}, {100}, {4096}, {1 << 20}} {
		if n, err := feed(t, data, chunks); err != nil || n != 51 {
			t.Errorf("reads of %v: %d frames, %v", chunks, n, err)
		}
	}
	short := append(AppendFrame(nil, 1, 0, &OK{}), 0, 0, 0, 1) // a length shorter than a header
	short = append(short, make([]byte, HeaderSize-4)...)
	if n, err := feed(t, short, []int{5}); n != 1 || !errors.Is(err, ErrMalformed) {
		t.Errorf("a bad header after a frame: %d frames, %v", n, err)
	}
	var f FrameBuffer
	if f.Partial() {
		t.Error("an empty buffer is partial")
	}
	f.Filled(copy(f.Space(), data[:5]))
	if !f.Partial() {
		t.Error("5 bytes of a frame are not partial")
	}
}

func FuzzFrameBuffer(f *testing.F) {
	f.Add(AppendFrame(nil, 1, 0, &Echo{Node: 1, Data: []byte("x")}), uint16(3))
	f.Add(AppendPost(nil, 2, 1, 2, 3, nil, make([]byte, 70000)), uint16(1000))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		feed(t, data, []int{int(chunk%4096) + 1})
	})
}
