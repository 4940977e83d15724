package core

import (
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/rpi"
)

// Code outside Go — libmpi.so's C fast path for small blocking sends and
// receives (libmpi/capi, docs/capi.md) — reads and writes the engine's
// state where the engine keeps it, so that the Go side publishes nothing
// per message and its own fast path is unchanged. Outside gives the
// addresses once; the caller pins the objects behind them for as long as
// it uses them (runtime.Pinner) and must take the progress lock (Lock)
// before touching anything else.

// OutsidePeer is where one peer's state lies.
type OutsidePeer struct {
	Link rpi.Link
	// Short is the link's eager limit.
	Short int
	// Dead is the first word of the peer's error: nonzero once the peer
	// is dead.
	Dead *uintptr
	// OutHead and OutLen say whether frames are queued on the link
	// (OutHead < OutLen): a frame written past them would overtake them.
	OutHead, OutLen *int
	// Rpos and Rend bound the bytes read from the link and not yet
	// used; InBody says a frame's body is being read. A frame may be
	// taken from the link directly only when Rpos == Rend and !InBody.
	Rpos, Rend *int
	InBody     *bool
	// Sent and Recvd count the link's bytes (a checkpoint's drain).
	Sent, Recvd *uint64
}

// Outside is where the engine's state lies, for one communicator context.
type Outside struct {
	// Lock is the progress lock's state word: 0 unlocked, 1 locked with
	// no waiter. Taking it is a compare-and-swap 0 → 1; giving it back a
	// compare-and-swap 1 → 0, or, if that fails (a goroutine waits),
	// Unlock.
	Lock *int32
	// Unlock gives the lock back in Go.
	Unlock func()
	// Hold is set while a checkpoint holds new frames.
	Hold *bool
	// Activity counts link reads and writes that moved bytes.
	Activity *uint64
	// Recvs and Msgs are the heads of the context's queues of posted
	// receives and unexpected messages: nil while empty.
	Recvs, Msgs *unsafe.Pointer
	// Spin is how long a waiter spins before it yields.
	Spin  time.Duration
	Peers []OutsidePeer // by world rank; Link nil for this process
}

// Outside returns where the engine's state for context lies. The
// context's queues must outlive the caller's use of them: a context that
// is never dropped (the world's).
func (e *Engine) Outside(context uint32) Outside {
	e.mu.Lock()
	defer e.mu.Unlock()
	o := Outside{
		Lock:     e.lockWord(),
		Unlock:   e.mu.Unlock,
		Hold:     &e.hold,
		Activity: &e.activity,
		Spin:     e.pace.Spin,
		Peers:    make([]OutsidePeer, len(e.peers)),
	}
	o.Recvs, o.Msgs = e.match.Heads(context)
	for i, p := range e.peers {
		if p == nil {
			continue
		}
		o.Peers[i] = OutsidePeer{
			Link:    p.link,
			Short:   p.short,
			Dead:    (*uintptr)(unsafe.Pointer(&p.dead)),
			OutHead: &p.outHead,
			OutLen:  (*int)(unsafe.Add(unsafe.Pointer(&p.out), unsafe.Sizeof(uintptr(0)))),
			Rpos:    &p.rpos,
			Rend:    &p.rend,
			InBody:  &p.inBody,
			Sent:    &p.sent,
			Recvd:   &p.recvd,
		}
	}
	return o
}

// lockWord is the progress lock's state word.
func (e *Engine) lockWord() *int32 { return (*int32)(unsafe.Pointer(&e.mu)) }

// The frame protocol as an outside writer needs it.
const (
	HeaderSize = headerSize
	FrameEager = frameEager
)

// EagerHeader is the header of an eager frame as the engine writes it,
// for checking a mirror of the protocol outside Go.
func EagerHeader(context uint32, source, tag int32, length uint64) [HeaderSize]byte {
	var b [headerSize]byte
	h := header{typ: frameEager, context: context, source: source, tag: tag, length: length}
	h.encode(&b)
	return b
}
