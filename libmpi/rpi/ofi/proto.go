package ofi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Every fabric message starts with a header:
//
//	kind     1 byte   what the message is (below)
//	         1 byte   zero
//	credits  2 bytes  receive buffers the sender has emptied and posted
//	                  again for the receiver since it last said so
//	from     4 bytes  the sender's rank
//	seq      4 bytes  the message's number among the sender's data
//	                  messages to the receiver (data only)
//	         4 bytes  zero
//
// little-endian, followed by the payload.
const hdrSize = 16

// Kinds of message.
const (
	kindData   = 1 // stream bytes
	kindCredit = 2 // credits only
	kindHello  = 3 // the first message to a peer: a proof of the job's secret
	kindClose  = 4 // the sender closed its link: the stream ends
	kindKey    = 5 // in the stream's order, not its bytes: a buffer the receiver may read (keyMsg)
	kindPull   = 6 // send me that part of a buffer you exposed, tagged (pullMsg)
)

// maxCredits16 is the most credits one header carries.
const maxCredits16 = 1<<16 - 1

type header struct {
	kind    uint8
	credits uint16
	from    uint32
	seq     uint32
}

func (h header) put(b []byte) {
	_ = b[hdrSize-1]
	b[0], b[1] = h.kind, 0
	binary.LittleEndian.PutUint16(b[2:], h.credits)
	binary.LittleEndian.PutUint32(b[4:], h.from)
	binary.LittleEndian.PutUint32(b[8:], h.seq)
	binary.LittleEndian.PutUint32(b[12:], 0)
}

var errShort = errors.New("fabric message shorter than its header")

// parseHeader reads a message's header; the kind is checked by the caller.
func parseHeader(b []byte) (header, error) {
	if len(b) < hdrSize {
		return header{}, errShort
	}
	return header{
		kind:    b[0],
		credits: binary.LittleEndian.Uint16(b[2:]),
		from:    binary.LittleEndian.Uint32(b[4:]),
		seq:     binary.LittleEndian.Uint32(b[8:]),
	}, nil
}

// address is what a process publishes: its pid (which tells peers on its
// node how to watch it), the provider (every process of the job must use
// the same) and its endpoint's name, as fi_getname gives it.
type address struct {
	pid      int
	provider string
	name     []byte
}

// maxName bounds an endpoint name (libfabric's are tens of bytes).
const maxName = 1024

func (a address) String() string {
	return strconv.Itoa(a.pid) + "," + a.provider + "," + hex.EncodeToString(a.name)
}

func parseAddress(s string) (address, error) {
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return address{}, fmt.Errorf("bad ofi address %q: want pid,provider,name", s)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return address{}, fmt.Errorf("bad ofi address %q: bad pid", s)
	}
	if f[1] == "" {
		return address{}, fmt.Errorf("bad ofi address %q: no provider", s)
	}
	if len(f[2]) == 0 || len(f[2]) > 2*maxName {
		return address{}, fmt.Errorf("bad ofi address %q: endpoint name of %d hex digits", s, len(f[2]))
	}
	name, err := hex.DecodeString(f[2])
	if err != nil {
		return address{}, fmt.Errorf("bad ofi address %q: %w", s, err)
	}
	return address{pid: pid, provider: f[1], name: name}, nil
}

// helloSize is a hello's payload: an HMAC.
const helloSize = sha256.Size

// helloMAC is the proof rank from sends to rank to: an HMAC under the
// job's secret of both ranks and both endpoint names, so that it holds
// for these two endpoints of this job only.
func helloMAC(secret []byte, from, to int, fromAddr, toAddr string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("LAMGOOFI1\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(from))
	binary.LittleEndian.PutUint32(b[4:], uint32(to))
	h.Write(b[:])
	h.Write([]byte(fromAddr))
	h.Write([]byte{0})
	h.Write([]byte(toAddr))
	return h.Sum(nil)
}

// A key message tells the receiver that it may read len bytes at addr in
// the sender's memory (a long message's buffer, whose address the MPI
// core sends after it): with the registration's key, at raddr, the
// address the provider wants for the byte at addr (addr itself, or its
// offset into the registration).
//
//	addr   8 bytes
//	len    8 bytes
//	raddr  8 bytes
//	key    8 bytes
const keySize = 32

type keyMsg struct {
	addr, len, raddr, key uint64
}

func (k keyMsg) put(b []byte) {
	_ = b[keySize-1]
	binary.LittleEndian.PutUint64(b, k.addr)
	binary.LittleEndian.PutUint64(b[8:], k.len)
	binary.LittleEndian.PutUint64(b[16:], k.raddr)
	binary.LittleEndian.PutUint64(b[24:], k.key)
}

func parseKey(b []byte) (keyMsg, error) {
	if len(b) != keySize {
		return keyMsg{}, fmt.Errorf("key message of %d bytes, want %d", len(b), keySize)
	}
	k := keyMsg{
		addr:  binary.LittleEndian.Uint64(b),
		len:   binary.LittleEndian.Uint64(b[8:]),
		raddr: binary.LittleEndian.Uint64(b[16:]),
		key:   binary.LittleEndian.Uint64(b[24:]),
	}
	if k.len == 0 || k.addr+k.len < k.addr {
		return keyMsg{}, fmt.Errorf("key message for a bad range [%#x, +%d)", k.addr, k.len)
	}
	return k, nil
}

// holds reports whether the buffer k names holds [addr, addr+n).
func (k keyMsg) holds(addr uint64, n int) bool {
	return addr >= k.addr && addr+uint64(n) >= addr && addr+uint64(n) <= k.addr+k.len
}

// A pull message asks the sender of a key message for n bytes at addr,
// inside the buffer the key names, as a tagged message with tag: the
// receiver has posted a tagged receive for it into the receive buffer.
//
//	tag   8 bytes
//	addr  8 bytes
//	n     8 bytes
const pullSize = 24

type pullMsg struct {
	tag, addr, n uint64
}

func (m pullMsg) put(b []byte) {
	_ = b[pullSize-1]
	binary.LittleEndian.PutUint64(b, m.tag)
	binary.LittleEndian.PutUint64(b[8:], m.addr)
	binary.LittleEndian.PutUint64(b[16:], m.n)
}

func parsePull(b []byte) (pullMsg, error) {
	if len(b) != pullSize {
		return pullMsg{}, fmt.Errorf("pull message of %d bytes, want %d", len(b), pullSize)
	}
	m := pullMsg{
		tag:  binary.LittleEndian.Uint64(b),
		addr: binary.LittleEndian.Uint64(b[8:]),
		n:    binary.LittleEndian.Uint64(b[16:]),
	}
	if m.n == 0 || m.n > 1<<40 || m.addr+m.n < m.addr {
		return pullMsg{}, fmt.Errorf("pull message for a bad range [%#x, +%d)", m.addr, m.n)
	}
	return m, nil
}
