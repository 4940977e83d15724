// Package wire is the protocol spoken between LAM/Go's tools, MPI
// processes and lamds: over the local Unix socket of a session directory,
// and between lamds over their authenticated TCP links.
//
// Every message travels in a frame:
//
//	uint32 length   bytes after this field, at most MaxFrame
//	uint16 kind     which message (Kind)
//	uint16 flags    FlagReply on replies; FlagMore on every frame of a
//	                reply stream but the last
//	uint64 id       the request id the sender chose; replies carry it back
//	...             the message, big-endian, every length prefixed
//
// Decoding validates every field against the limits below, so a stray or
// hostile peer gets an error (and loses its connection), never a crash, a
// hang or an unbounded allocation. The package is a leaf: it imports only
// the standard library.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version exchanged in hellos. Peers with
// different versions refuse each other. Version 2 added streams (Attach,
// Post, Credit; RoleStream).
const Version = 2

// Limits.
const (
	HeaderSize = 16
	MaxFrame   = 16 << 20 // largest frame body, header excluded
	MaxData    = MaxFrame - 1024
	MaxString  = 64 << 10
	MaxArgs    = 8192
	MaxNodes   = 1 << 16
	// MaxCPUs is the largest cpu count a node may have in a node table
	// (Node.CPUs, BootHello.CPUs).
	MaxCPUs = 1 << 24
	// MaxHost is the longest host name a node table carries (Node.Host,
	// BootHello.Host), in bytes.
	MaxHost = 1024
)

// Flags of a frame.
const (
	// FlagMore marks a frame of a reply stream that is not the last.
	FlagMore uint16 = 1 << iota
	// FlagReply marks a reply (the id is the request's).
	FlagReply
	flagsAll = FlagMore | FlagReply
)

// Header is a decoded frame header.
type Header struct {
	Kind  Kind
	Flags uint16
	ID    uint64
	Len   int // body length
}

// AppendFrame appends one frame holding m to buf.
func AppendFrame(buf []byte, id uint64, flags uint16, m Message) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, HeaderSize)...)
	buf = Marshal(buf, m.fields)
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start-4))
	binary.BigEndian.PutUint16(buf[start+4:], uint16(m.Kind()))
	binary.BigEndian.PutUint16(buf[start+6:], flags)
	binary.BigEndian.PutUint64(buf[start+8:], id)
	return buf
}

// ErrTooLarge is wrapped when a frame exceeds MaxFrame.
var ErrTooLarge = errors.New("frame too large")

// ReadHeader reads and checks a frame header.
func ReadHeader(r io.Reader) (Header, error) {
	var b [HeaderSize]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Header{}, err
	}
	return ParseHeader(b[:])
}

// ParseHeader checks and decodes the frame header at the start of b,
// which holds at least HeaderSize bytes.
func ParseHeader(b []byte) (Header, error) {
	n := binary.BigEndian.Uint32(b[0:])
	if n < HeaderSize-4 {
		return Header{}, fmt.Errorf("%w: frame length %d shorter than its header", ErrMalformed, n)
	}
	h := Header{
		Kind:  Kind(binary.BigEndian.Uint16(b[4:])),
		Flags: binary.BigEndian.Uint16(b[6:]),
		ID:    binary.BigEndian.Uint64(b[8:]),
		Len:   int(n) - (HeaderSize - 4),
	}
	if h.Len > MaxFrame {
		return Header{}, fmt.Errorf("%w: %d bytes (limit %d)", ErrTooLarge, h.Len, MaxFrame)
	}
	if h.Flags&^flagsAll != 0 {
		return Header{}, fmt.Errorf("%w: unknown flags %#x", ErrMalformed, h.Flags)
	}
	return h, nil
}

// Frame is one received frame.
type Frame struct {
	Header
	Msg Message
}

// ReadFrame reads one frame and decodes its message.
func ReadFrame(r io.Reader) (Frame, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return Frame{}, err
	}
	body := make([]byte, h.Len)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	m, err := Decode(h.Kind, body)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Header: h, Msg: m}, nil
}

// Decode decodes the body of a frame of the given kind.
func Decode(k Kind, body []byte) (Message, error) {
	if k == 0 || k >= kindEnd {
		return nil, fmt.Errorf("%w: unknown message kind %d", ErrMalformed, k)
	}
	m := kinds[k].new()
	if err := Unmarshal(body, m.fields); err != nil {
		return nil, fmt.Errorf("%v: %w", k, err)
	}
	return m, nil
}
