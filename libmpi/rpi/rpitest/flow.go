package rpitest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
)

// pattern fills b with bytes that depend on seed and on each position, so
// that a lost, repeated or misplaced piece shows. Past a few MiB the
// bytes repeat with an odd period (copying is fast under the race
// detector; generating is not).
func pattern(b []byte, seed uint64) {
	const period = 4<<20 + 13
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := b[:min(len(b), period)]
	i := 0
	for ; i+8 <= len(g); i += 8 {
		binary.LittleEndian.PutUint64(g[i:], r.Uint64())
	}
	for ; i < len(g); i++ {
		g[i] = byte(r.Uint32())
	}
	for done := len(g); done < len(b); {
		done += copy(b[done:], b[:done])
	}
}

// flow is one direction of a link: the bytes rank from writes, in writes
// of the lengths cuts says (each one continued until it is all taken),
// and rank to reads, in reads of at most maxRead bytes.
type flow struct {
	from, to int
	src      []byte
	cuts     []int
	maxRead  int
	wrng     *rand.Rand // the writer's
	rrng     *rand.Rand // the reader's

	cut, inCut, sent int // writing
	got              []byte
	recvd            int // reading
}

func newFlow(from, to int, cuts []int, maxRead int, seed uint64) *flow {
	total := 0
	for _, c := range cuts {
		total += c
	}
	fl := &flow{from: from, to: to, cuts: cuts, maxRead: maxRead, src: make([]byte, total), got: make([]byte, total),
		wrng: rand.New(rand.NewPCG(seed, uint64(from)<<32|uint64(to))),
		rrng: rand.New(rand.NewPCG(seed+1, uint64(from)<<32|uint64(to)))}
	pattern(fl.src, seed+uint64(from)*1000+uint64(to))
	return fl
}

func (fl *flow) String() string {
	return fmt.Sprintf("%d→%d: wrote %d of %d bytes, read %d", fl.from, fl.to, fl.sent, len(fl.src), fl.recvd)
}

func (fl *flow) written() bool { return fl.cut == len(fl.cuts) }
func (fl *flow) arrived() bool { return fl.recvd == len(fl.got) }

// write makes one write of what is left of the current cut, through
// Write2 now and then where the link has it. It reports whether bytes
// moved.
func (fl *flow) write(l rpi.Link) (bool, error) {
	if fl.written() {
		return false, nil
	}
	p := fl.src[fl.sent : fl.sent+fl.cuts[fl.cut]-fl.inCut]
	var n int
	var err error
	if vw, ok := l.(rpi.VectorWriter); ok && fl.wrng.IntN(2) == 0 {
		k := fl.wrng.IntN(len(p) + 1)
		n, err = vw.Write2(p[:k], p[k:])
		if err != nil {
			return false, fmt.Errorf("Write2 of %d+%d bytes: %w", k, len(p)-k, err)
		}
	} else if n, err = l.Write(p); err != nil {
		return false, fmt.Errorf("write of %d bytes: %w", len(p), err)
	}
	if n < 0 || n > len(p) {
		return false, fmt.Errorf("a write of %d bytes returned %d", len(p), n)
	}
	fl.sent += n
	fl.inCut += n
	if fl.inCut == fl.cuts[fl.cut] {
		fl.cut++
		fl.inCut = 0
	}
	return n > 0, nil
}

// read makes one read, or now and then takes what Peek shows (or looks at
// it and leaves it to Read). It reports whether bytes moved.
func (fl *flow) read(l rpi.Link) (bool, error) {
	rest := fl.got[fl.recvd:]
	if pk, ok := l.(rpi.Peeker); ok && fl.rrng.IntN(3) == 0 {
		p, ready, err := pk.Peek()
		if err != nil {
			return false, fmt.Errorf("peek: %w", err)
		}
		if p != nil {
			if !ready {
				return false, fmt.Errorf("Peek showed %d bytes but says nothing is ready", len(p))
			}
			if len(p) > len(rest) {
				return false, fmt.Errorf("Peek showed %d bytes with %d still to come", len(p), len(rest))
			}
			if fl.rrng.IntN(4) > 0 {
				fl.recvd += copy(rest, p)
				pk.Consume()
				return len(p) > 0, nil
			}
		}
	}
	k := 1 + fl.rrng.IntN(fl.maxRead)
	if fl.rrng.IntN(8) == 0 {
		k = fl.maxRead
	}
	buf := rest[:min(k, len(rest))]
	n, err := l.Read(buf)
	if err != nil {
		return false, fmt.Errorf("read of %d bytes: %w", len(buf), err)
	}
	if n < 0 || n > len(buf) {
		return false, fmt.Errorf("a read of %d bytes returned %d", len(buf), n)
	}
	fl.recvd += n
	return n > 0, nil
}

// check compares what arrived with what was sent.
func (fl *flow) check() error {
	if fl.recvd != len(fl.src) {
		return fmt.Errorf("flow %v", fl)
	}
	if !bytes.Equal(fl.got, fl.src) {
		i := 0
		for fl.got[i] == fl.src[i] {
			i++
		}
		return fmt.Errorf("flow %d→%d: %d bytes arrived, the first wrong at offset %d", fl.from, fl.to, len(fl.got), i)
	}
	return nil
}

// exchange moves the flows over the job's links, every rank in its own
// goroutine writing its flows out and reading its flows in, until every
// byte arrived or ctx ends; then it checks the bytes, and that nothing
// more came.
func exchange(ctx context.Context, t testing.TB, j *job, flows []*flow) {
	t.Helper()
	n := len(j.links)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for rank := range n {
		var outs, ins []*flow
		for _, fl := range flows {
			if fl.from == rank {
				outs = append(outs, fl)
			}
			if fl.to == rank {
				ins = append(ins, fl)
			}
		}
		if len(outs)+len(ins) == 0 {
			continue
		}
		wg.Go(func() { errs[rank] = drive(ctx, rank, j.links[rank], outs, ins) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, fl := range flows {
		if err := fl.check(); err != nil {
			t.Error(err)
		}
		var extra [64]byte
		if n, err := j.links[fl.to][fl.from].Read(extra[:]); n != 0 || err != nil {
			t.Errorf("flow %d→%d: after all it sent, a read returned %d, %v", fl.from, fl.to, n, err)
		}
	}
}

// drive is one rank's loop of exchange.
func drive(ctx context.Context, rank int, links []rpi.Link, outs, ins []*flow) error {
	var wait idle
	last := time.Now()
	for {
		moved, done := false, true
		for _, fl := range outs {
			if fl.written() {
				continue
			}
			m, err := fl.write(links[fl.to])
			if err != nil {
				return failf(rank, "flow %v: %v", fl, err)
			}
			moved = moved || m
			done = done && fl.written()
		}
		for _, fl := range ins {
			if fl.arrived() {
				continue
			}
			m, err := fl.read(links[fl.from])
			if err != nil {
				return failf(rank, "flow %v: %v", fl, err)
			}
			moved = moved || m
			done = done && fl.arrived()
		}
		if done {
			return nil
		}
		if moved {
			wait.reset()
			last = time.Now()
			continue
		}
		if ctx.Err() != nil || time.Since(last) > stall {
			var state []string
			for _, fl := range append(outs, ins...) {
				state = append(state, fl.String())
			}
			why := fmt.Sprintf("nothing moved for %v", stall)
			if ctx.Err() != nil {
				why = context.Cause(ctx).Error()
			}
			return failf(rank, "gave up waiting (%s): %v", why, state)
		}
		wait.wait()
	}
}

// shuffled returns sizes repeated times, in an order of seed's.
func shuffled(sizes []int, times int, seed uint64) []int {
	var out []int
	for range times {
		out = append(out, sizes...)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}
