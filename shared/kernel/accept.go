package kernel

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/wire"
)

// Defaults of the limits in Config.
const (
	DefaultMaxClients      = 1024
	DefaultMaxLinkAttempts = 64
	DefaultHelloTimeout    = 10 * time.Second
	DefaultFrameTimeout    = 30 * time.Second
)

const (
	// Accept failures are retried after a pause that doubles from
	// acceptMinDelay to acceptMaxDelay, as net/http's Server does.
	acceptMinDelay = 5 * time.Millisecond
	acceptMaxDelay = time.Second
	// burstQuiet is how long a condition must stay away for its next
	// occurrence to be logged again.
	burstQuiet = 10 * time.Second
	// refuseTimeout bounds the write of a refusal to a client beyond the
	// cap (into an empty socket buffer, so it does not wait in practice).
	refuseTimeout = 100 * time.Millisecond
	// maxHello bounds the first frame a local or link peer sends.
	maxHello = 1 << 10
)

// acceptLoop calls accept until the listener closes or the lamd stops. A
// failed accept (EMFILE, ENFILE, ENOBUFS, ECONNABORTED or anything else
// but a closed listener) is retried after a pause, so that the lamd keeps
// serving once the descriptors or memory come back; the failures are
// logged once per burst.
func (k *Kernel) acceptLoop(what string, accept func() error) {
	failing := burstLog{log: k.log}
	var delay time.Duration
	for {
		err := accept()
		if err == nil {
			failing.ok("accepting again", "listener", what)
			delay = 0
			continue
		}
		if errors.Is(err, net.ErrClosed) || k.ctx.Err() != nil {
			return
		}
		failing.fail("accept failed; retrying with backoff (logged once per burst)", "listener", what, "err", err)
		delay = min(max(2*delay, acceptMinDelay), acceptMaxDelay)
		t := time.NewTimer(delay)
		select {
		case <-k.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// burstLog logs a recurring condition once per burst: its first
// occurrence after burstQuiet without one, and the first success after
// it. It is safe for concurrent use.
type burstLog struct {
	log      *slog.Logger
	mu       sync.Mutex
	last     time.Time // of the last occurrence
	n        int       // occurrences in this burst
	reported bool      // the burst's end was logged
}

func (b *burstLog) fail(msg string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if b.n == 0 || now.Sub(b.last) > burstQuiet {
		b.n, b.reported = 0, false
		b.log.Warn(msg, args...)
	}
	b.n++
	b.last = now
}

func (b *burstLog) ok(msg string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n > 0 && !b.reported {
		b.reported = true
		b.log.Info(msg, append(args, "after", b.n)...)
	}
}

// readFirst reads the first frame of a connection straight from nc, with
// no buffer: it must be of the given kind and at most maxHello bytes. On
// a frame of another kind it returns the header with an error.
func readFirst(nc net.Conn, kind wire.Kind) (wire.Frame, error) {
	h, err := wire.ReadHeader(nc)
	if err != nil {
		return wire.Frame{}, err
	}
	if h.Kind != kind || h.Len > maxHello {
		return wire.Frame{Header: h}, fmt.Errorf("%w: expected a %v of at most %d bytes, got a %v of %d", wire.ErrMalformed, kind, maxHello, h.Kind, h.Len)
	}
	body := make([]byte, h.Len)
	if _, err := io.ReadFull(nc, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return wire.Frame{}, err
	}
	m, err := wire.Decode(h.Kind, body)
	if err != nil {
		return wire.Frame{}, err
	}
	return wire.Frame{Header: h, Msg: m}, nil
}

// writeFrame writes one frame straight to nc (before it has a wire.Conn),
// giving up after timeout.
func writeFrame(nc net.Conn, id uint64, flags uint16, m wire.Message, timeout time.Duration) error {
	_ = nc.SetWriteDeadline(time.Now().Add(timeout))
	defer nc.SetWriteDeadline(time.Time{})
	_, err := nc.Write(wire.AppendFrame(nil, id, flags, m))
	return err
}
