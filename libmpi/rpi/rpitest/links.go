package rpitest

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// The tests of the bare links. Links are used as the MPI core uses them:
// each by one goroutine at a time (its process's), without blocking.

// await polls cond until it says done, fails, or ctx ends; cond also
// says whether it moved anything (a loop that moves does not pause).
func await(ctx context.Context, t testing.TB, what string, cond func() (done, moved bool, err error)) {
	t.Helper()
	var wait idle
	last := time.Now()
	for {
		done, moved, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if done {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: gave up (%v)", what, context.Cause(ctx))
		}
		if time.Since(last) > stall {
			t.Fatalf("%s: gave up (nothing moved for %v)", what, stall)
		}
		if moved {
			wait.reset()
			last = time.Now()
		} else {
			wait.wait()
		}
	}
}

// within is a context that ends after d, or with the test's bound.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(deadline(t), d)
	t.Cleanup(cancel)
	return ctx
}

// writeAll writes p whole, as the link takes it.
func writeAll(ctx context.Context, t testing.TB, l rpi.Link, p []byte) {
	t.Helper()
	await(ctx, t, fmt.Sprintf("write %d bytes", len(p)), func() (bool, bool, error) {
		n, err := l.Write(p)
		p = p[n:]
		return len(p) == 0, n > 0, err
	})
}

// readFull reads len(p) bytes.
func readFull(ctx context.Context, t testing.TB, l rpi.Link, p []byte) {
	t.Helper()
	got := 0
	await(ctx, t, fmt.Sprintf("read %d bytes", len(p)), func() (bool, bool, error) {
		n, err := l.Read(p[got:])
		got += n
		return got == len(p), n > 0, err
	})
}

func testConnect(t *testing.T, f Factory) {
	j := f.open(t, 3)
	for i, tr := range j.ts {
		if tr.Addr() == "" {
			t.Errorf("rank %d: empty address", i)
		}
		if tr.Short() <= 0 {
			t.Errorf("rank %d: eager limit %d", i, tr.Short())
		}
		if p, ok := tr.(rpi.Pacer); ok {
			if pc := p.Pace(); pc.SpinPolls < 0 || pc.Spin < 0 {
				t.Errorf("rank %d: pace %+v", i, pc)
			}
		}
		for k, l := range j.links[i] {
			if s, ok := l.(rpi.Shorter); ok && s.Short() <= 0 {
				t.Errorf("link %d→%d: eager limit %d", i, k, s.Short())
			}
		}
	}
	// A second job of the same module, at the same time, in the same
	// process does not mix with the first.
	j2 := f.open(t, 2)
	ctx := deadline(t)
	writeAll(ctx, t, j.links[0][1], []byte("first"))
	writeAll(ctx, t, j2.links[0][1], []byte("second"))
	a, b := make([]byte, 5), make([]byte, 6)
	readFull(ctx, t, j.links[1][0], a)
	readFull(ctx, t, j2.links[1][0], b)
	if string(a) != "first" || string(b) != "second" {
		t.Errorf("two jobs' links carried %q and %q", a, b)
	}
}

// An empty link reads nothing, and empty reads and writes are no error.
func testNothing(t *testing.T, f Factory) {
	j := f.open(t, 2)
	a, b := j.links[0][1], j.links[1][0]
	var buf [16]byte
	for range 10 {
		if n, err := b.Read(buf[:]); n != 0 || err != nil {
			t.Fatalf("a read of an empty link returned %d, %v", n, err)
		}
	}
	if n, err := a.Write(nil); n != 0 || err != nil {
		t.Errorf("a write of nothing returned %d, %v", n, err)
	}
	if vw, ok := a.(rpi.VectorWriter); ok {
		if n, err := vw.Write2(nil, nil); n != 0 || err != nil {
			t.Errorf("Write2 of nothing returned %d, %v", n, err)
		}
	}
	ctx := deadline(t)
	writeAll(ctx, t, a, []byte{42})
	if n, err := b.Read(nil); n != 0 || err != nil {
		t.Errorf("a read into nothing returned %d, %v", n, err)
	}
	readFull(ctx, t, b, buf[:1])
	if buf[0] != 42 {
		t.Errorf("read %d, want 42", buf[0])
	}
	if n, err := b.Read(buf[:]); n != 0 || err != nil {
		t.Errorf("a read of a drained link returned %d, %v", n, err)
	}
}

// streamSizes are write lengths around every limit a module may have:
// nothing, a byte, a cache line or slot, a page, the eager limit, the
// usual socket and ring sizes, and more than a mebibyte.
func streamSizes(short int) []int {
	sizes := []int{0, 1, 2, 7, 55, 56, 57, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097,
		65535, 65536, 65537, 1<<20 - 1, 1<<20 + 1, 3 << 19}
	for _, d := range []int{-1, 0, 1} {
		sizes = append(sizes, short+d)
	}
	return sizes
}

// Writes of every size, both directions at once, reads of every size.
func testStream(t *testing.T, f Factory) {
	j := f.open(t, 2)
	times := 1
	if *long {
		times = 4
	}
	var flows []*flow
	for _, d := range [][2]int{{0, 1}, {1, 0}} {
		cuts := shuffled(streamSizes(j.short(d[0], d[1])), times, uint64(d[0]))
		flows = append(flows, newFlow(d[0], d[1], cuts, 256<<10, 1))
	}
	exchange(deadline(t), t, j, flows)
}

// Several MiB each way at once, each in one write that the link takes
// in part.
func testLarge(t *testing.T, f Factory) {
	size := 8 << 20
	if *long {
		size = 64 << 20
	}
	j := f.open(t, 2)
	exchange(deadline(t), t, j, []*flow{
		newFlow(0, 1, []int{size}, 1<<20, 2),
		newFlow(1, 0, []int{size / 2, size/2 + 3}, 1<<20, 3),
	})
}

// Every write of a small stream read a byte or three at a time.
func testSmallReads(t *testing.T, f Factory) {
	j := f.open(t, 2)
	var cuts []int
	for i := range 300 {
		cuts = append(cuts, i%97, 1)
	}
	exchange(deadline(t), t, j, []*flow{newFlow(0, 1, cuts, 3, 4), newFlow(1, 0, cuts[:100], 1, 5)})
}

// Every pair of a larger job at once, both ways.
func testAllPairs(t *testing.T, f Factory) {
	n, size := 4, 128<<10
	if *long {
		n, size = 8, 1<<20
	}
	j := f.open(t, n)
	var flows []*flow
	for a := range n {
		for b := range n {
			if a != b {
				cuts := shuffled([]int{0, 1, 100, 4096, j.short(a, b) + 1, size}, 1, uint64(a*n+b))
				flows = append(flows, newFlow(a, b, cuts, 64<<10, 6))
			}
		}
	}
	exchange(deadline(t), t, j, flows)
}

// A writer whose peer does not read, in one-byte writes and then in
// large ones: it writes until the link holds it back (Bounded) or up to a
// cap; then the peer reads in pieces of 1 to 13 bytes while the writer
// goes on, and the stream arrives whole.
func testFill(t *testing.T, f Factory) {
	// One-byte writes may fill a slot queue or not (a socket buffer
	// takes tens of thousands of them): only large ones must be held back.
	for _, tc := range []struct {
		name            string
		piece, capBytes int
		bounded         bool
	}{{"OneByte", 1, 4 << 10, false}, {"Large", 1 << 20, 48 << 20, f.Bounded}} {
		t.Run(tc.name, func(t *testing.T) { fill(t, tc.piece, tc.capBytes, tc.bounded, f) })
	}
}

func fill(t *testing.T, piece, capBytes int, bounded bool, f Factory) {
	j := f.open(t, 2)
	a, b := j.links[0][1], j.links[1][0]
	rest := min(capBytes, 1<<20)
	src := make([]byte, capBytes+rest)
	pattern(src, 8)
	sent, writes := 0, 0
	// A refusal may be passing (a socket's buffer grows by itself), so
	// the link holds the writer back when it refuses for a while.
	held := func(p []byte) (bool, error) {
		idle := 0
		for start := time.Now(); idle < 3 || time.Since(start) < 5*time.Millisecond; {
			n, err := a.Write(p)
			if err != nil || n < 0 || n > len(p) {
				return false, fmt.Errorf("a write of %d bytes returned %d, %v", len(p), n, err)
			}
			if n > 0 {
				sent += n
				writes++
				return false, nil
			}
			idle++
			time.Sleep(time.Millisecond)
		}
		return true, nil
	}
	blocked := false
	for !blocked && sent < capBytes {
		var err error
		if blocked, err = held(src[sent:min(sent+piece, capBytes)]); err != nil {
			t.Fatal(err)
		}
	}
	switch {
	case blocked:
		t.Logf("the link held the writer back after %d writes of %d bytes in all", writes, sent)
	case bounded:
		t.Fatalf("the link took %d writes of %d bytes in all without its peer reading", writes, sent)
	default:
		t.Logf("the link took %d writes of %d bytes in all without its peer reading", writes, sent)
	}
	// Drain in small pieces for a while, then larger, while the writer
	// goes on (in pieces of at least 4 KiB after a hundred writes).
	total := sent + rest
	writes = 0
	got := make([]byte, total)
	recvd, reads := 0, 0
	await(deadline(t), t, "drain", func() (bool, bool, error) {
		moved := false
		if sent < total {
			p := src[sent:min(sent+piece, total)]
			if writes > 100 {
				p = src[sent:min(sent+max(piece, 4096), total)]
			}
			n, err := a.Write(p)
			if err != nil || n < 0 || n > len(p) {
				return false, false, fmt.Errorf("after the peer read %d bytes, a write of %d returned %d, %v", recvd, len(p), n, err)
			}
			sent += n
			writes++
			moved = n > 0
		}
		k := 1 + reads%13
		if reads > 20000 {
			k = 64 << 10
		}
		n, err := b.Read(got[recvd:min(recvd+k, total)])
		if err != nil {
			return false, false, err
		}
		recvd += n
		reads++
		return recvd == total, moved || n > 0, nil
	})
	if !bytes.Equal(got, src[:total]) {
		t.Fatal("the stream changed on the way")
	}
}

// A link with a descriptor: poll(2) says readable once the peer wrote,
// and writable when a write can move bytes.
func testFd(t *testing.T, f Factory) {
	j := f.open(t, 2)
	any := false
	for _, d := range [][2]int{{0, 1}, {1, 0}} {
		l, peer := j.links[d[0]][d[1]], j.links[d[1]][d[0]]
		fd := l.Fd()
		if fd < 0 {
			continue
		}
		any = true
		if f.Bounded && !ready(t, fd, unix.POLLOUT) {
			t.Errorf("link %d→%d: an empty link's descriptor is not writable", d[0], d[1])
		}
		ctx := deadline(t)
		writeAll(ctx, t, peer, []byte("ping"))
		if !ready(t, fd, unix.POLLIN) {
			t.Fatalf("link %d→%d: the descriptor is not readable after the peer wrote", d[0], d[1])
		}
		buf := make([]byte, 4)
		readFull(ctx, t, l, buf)
		if string(buf) != "ping" {
			t.Errorf("read %q", buf)
		}
	}
	if !any {
		t.Skip("the module's links have no descriptor")
	}
}

// ready waits up to 10 s for fd to be ready for events.
func ready(t testing.TB, fd int, events int16) bool {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(pfd, 100)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if n > 0 && pfd[0].Revents&events != 0 {
			return true
		}
	}
	return false
}

// Peek shows one small write in place, or nil; it consumes nothing
// until Consume; a Read after it takes the same bytes.
func testPeeker(t *testing.T, f Factory) {
	j := f.open(t, 2)
	w, r := j.links[0][1], j.links[1][0]
	pk, ok := r.(rpi.Peeker)
	if !ok {
		t.Skip("the module's links do not implement rpi.Peeker")
	}
	if p, ready, err := pk.Peek(); p != nil || ready || err != nil {
		t.Fatalf("Peek of an empty link: %d bytes, ready %v, %v", len(p), ready, err)
	}
	ctx := deadline(t)
	shown := 0
	for size := 1; size <= 300; size += 1 + size/8 {
		msg := make([]byte, size)
		pattern(msg, uint64(size))
		writeAll(ctx, t, w, msg)
		var p []byte
		await(ctx, t, "peek", func() (bool, bool, error) {
			var ready bool
			var err error
			p, ready, err = pk.Peek()
			if p != nil && !ready {
				return false, false, fmt.Errorf("Peek showed %d bytes but says nothing is ready", len(p))
			}
			return ready, false, err
		})
		switch {
		case p == nil:
			readFull(ctx, t, r, make([]byte, size))
			continue
		case !bytes.Equal(p, msg):
			t.Fatalf("a write of %d bytes alone on the link, Peek showed %d other bytes", size, len(p))
		}
		shown++
		switch size % 3 {
		case 0: // taken in place
			pk.Consume()
		case 1: // looked at, then read: the same bytes
			got := make([]byte, size)
			readFull(ctx, t, r, got)
			if !bytes.Equal(got, msg) {
				t.Fatal("a Read after Peek did not return what Peek showed")
			}
		case 2: // partly read, then shown again: the rest
			half := make([]byte, size/2)
			readFull(ctx, t, r, half)
			q, _, err := pk.Peek()
			if err != nil {
				t.Fatal(err)
			}
			if q != nil {
				if !bytes.Equal(q, msg[size/2:]) {
					t.Fatalf("after reading %d of %d bytes Peek showed %d other bytes", size/2, size, len(q))
				}
				pk.Consume()
			} else {
				readFull(ctx, t, r, make([]byte, size-size/2))
			}
		}
		if q, ready, err := pk.Peek(); q != nil || ready || err != nil {
			t.Fatalf("after the write of %d bytes was taken, Peek: %d bytes, ready %v, %v", size, len(q), ready, err)
		}
	}
	if shown == 0 {
		t.Error("Peek never showed a write in place")
	}
}

// exposeRemote exposes buf on rank 0's link to rank 1 where the link
// must (rpi.Exposer), then sends a byte after it and reads it on rank 1,
// as the core sends the address after the exposure.
func exposeRemote(ctx context.Context, t *testing.T, j *job, buf []byte) {
	t.Helper()
	ex, ok := j.links[0][1].(rpi.Exposer)
	if !ok {
		return
	}
	if !ex.Expose(buf) {
		t.Fatalf("Expose of %d bytes refused", len(buf))
	}
	writeAll(ctx, t, j.links[0][1], []byte{1})
	readFull(ctx, t, j.links[1][0], make([]byte, 1))
}

// ReadRemote and WriteRemote copy whole buffers from and to the peer's
// memory (here the peer is this process), and fail on a bad address.
func testRemote(t *testing.T, f Factory) {
	j := f.open(t, 2)
	ctx := deadline(t)
	l := j.links[1][0]
	rr, isReader := l.(rpi.RemoteReader)
	rw, isWriter := l.(rpi.RemoteWriter)
	if !isReader && !isWriter {
		t.Skip("the module's links copy nothing between processes' memories")
	}
	if isReader && rr.SingleCopy() <= 0 {
		t.Errorf("SingleCopy is %d", rr.SingleCopy())
	}
	for _, size := range []int{1, 4097, 3<<20 + 1} {
		src, dst := make([]byte, size), make([]byte, size)
		pattern(src, uint64(size))
		var pin runtime.Pinner
		pin.Pin(&src[0])
		pin.Pin(&dst[0])
		if isReader {
			exposeRemote(ctx, t, j, src)
			if err := rr.ReadRemote(dst, addr(src)); err != nil || !bytes.Equal(dst, src) {
				t.Errorf("ReadRemote of %d bytes: %v, same bytes %v", size, err, bytes.Equal(dst, src))
			}
			if ex, ok := j.links[0][1].(rpi.Exposer); ok {
				ex.Unexpose(src)
			}
			clear(dst)
		}
		if isWriter {
			if err := rw.WriteRemote(src, addr(dst)); err != nil || !bytes.Equal(dst, src) {
				t.Errorf("WriteRemote of %d bytes: %v, same bytes %v", size, err, bytes.Equal(dst, src))
			}
		}
		pin.Unpin()
	}
	// Page 0 is never mapped.
	buf := make([]byte, 64)
	if isReader {
		if err := rr.ReadRemote(buf, 8); err == nil {
			t.Error("ReadRemote from address 8 succeeded")
		}
	}
	if isWriter {
		if err := rw.WriteRemote(buf, 8); err == nil {
			t.Error("WriteRemote to address 8 succeeded")
		}
	}
}

// The transport's Waiter: a peer's write and a peer's read after Arm
// end Sleep early, a write between Arm and Sleep is not lost, and Wake
// ends Sleep from another goroutine.
func testWaiter(t *testing.T, f Factory) {
	j := f.open(t, 2)
	w, ok := j.ts[1].(rpi.Waiter)
	if !ok {
		t.Skip("the module's transport does not implement rpi.Waiter")
	}
	ctx := deadline(t)
	sleep := func(what string, during func()) {
		t.Helper()
		tok := w.Arm()
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(20 * time.Millisecond)
			during()
		}()
		start := time.Now()
		w.Sleep(tok, 10*time.Second)
		w.Disarm()
		<-done
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("%s did not end Sleep (slept %v)", what, d)
		}
	}
	var buf [1]byte
	sleep("a peer's write", func() { j.links[0][1].Write([]byte{1}) })
	readFull(ctx, t, j.links[1][0], buf[:])
	// Rank 1 waits for room; rank 0 reads.
	filled := 1
	if f.RoomWhenFull {
		filled = fillOneByte(ctx, t, j.links[1][0])
	} else {
		writeAll(ctx, t, j.links[1][0], []byte{2})
	}
	var got int
	sleep("a peer's read", func() {
		for got == 0 && ctx.Err() == nil {
			got, _ = j.links[0][1].Read(buf[:])
		}
	})
	if filled > 1 {
		readFull(ctx, t, j.links[0][1], make([]byte, filled-1))
	}
	sleep("Wake", w.Wake)
	tok := w.Arm()
	j.links[0][1].Write([]byte{3})
	start := time.Now()
	w.Sleep(tok, 10*time.Second)
	w.Disarm()
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("a write between Arm and Sleep was lost (slept %v)", d)
	}
	readFull(ctx, t, j.links[1][0], buf[:])
	if buf[0] != 3 {
		t.Errorf("read %d, want 3", buf[0])
	}
}

// fillOneByte writes one-byte messages to l until it takes no more (a
// refusal may be passing: three in a row, a millisecond apart), and
// returns how many it took.
func fillOneByte(ctx context.Context, t *testing.T, l rpi.Link) int {
	t.Helper()
	for n, refused := 0, 0; ctx.Err() == nil; {
		k, err := l.Write([]byte{byte(n)})
		if err != nil {
			t.Fatalf("write %d: %v", n, err)
		}
		if k == 0 {
			if refused++; refused < 3 {
				time.Sleep(time.Millisecond)
				continue
			}
			if n == 0 {
				t.Fatal("the link took no byte")
			}
			return n
		}
		n, refused = n+k, 0
		if n > 1<<20 {
			t.Fatal("the link took a million one-byte writes without its peer reading")
		}
	}
	t.Fatal(ctx.Err())
	return 0
}

// A closed link reads nothing and fails its writes (and never touches a
// descriptor it gave up); what was written before the close arrives; a peer that can
// tell (CloseSeen) then fails its reads, and its writes soon after.
func testClose(t *testing.T, f Factory) {
	j := f.open(t, 2)
	a, b := j.links[0][1], j.links[1][0]
	ctx := deadline(t)
	words := make([]byte, 1000)
	pattern(words, 9)
	writeAll(ctx, t, a, words)
	fd := a.Fd()
	if err := a.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// The descriptor's number goes to a pipe with bytes in it, which the
	// closed link must not read.
	p := pipeAt(t, fd)
	unix.Write(p[1], []byte("not yours"))
	buf := make([]byte, 64)
	if n, err := a.Read(buf); n != 0 {
		t.Errorf("a read of a closed link returned %d bytes (%q), %v", n, buf[:n], err)
	} else if err == nil {
		t.Log("a read of a closed link returns no error")
	}
	if n, err := a.Write([]byte("x")); err == nil || n != 0 {
		t.Errorf("a write to a closed link returned %d, %v", n, err)
	}
	if vw, ok := a.(rpi.VectorWriter); ok {
		if n, err := vw.Write2([]byte("x"), []byte("y")); err == nil || n != 0 {
			t.Errorf("Write2 to a closed link returned %d, %v", n, err)
		}
	}
	if pk, ok := a.(rpi.Peeker); ok {
		if q, _, _ := pk.Peek(); q != nil {
			t.Errorf("Peek of a closed link showed %d bytes", len(q))
		}
	}
	a.Close() // twice: no harm
	if n, _ := unix.Read(p[0], buf); n != len("not yours") {
		t.Errorf("the pipe holds %d bytes, not 9: the closed link used the descriptor it gave up", n)
	}

	got := make([]byte, len(words))
	readFull(ctx, t, b, got)
	if !bytes.Equal(got, words) {
		t.Fatal("what was written before the close did not arrive as written")
	}
	if !f.CloseSeen {
		return
	}
	bound := within(t, 10*time.Second)
	var readErr error
	await(bound, t, "the peer's read after the close", func() (bool, bool, error) {
		n, err := b.Read(buf)
		if n > 0 {
			return false, false, fmt.Errorf("read %d bytes nobody wrote", n)
		}
		readErr = err
		return err != nil, false, nil
	})
	t.Logf("the peer's read: %v", readErr)
	await(bound, t, "the peer's write after the close", func() (bool, bool, error) {
		_, err := b.Write([]byte("anyone?"))
		return err != nil, false, nil
	})
}

// pipeAt opens a pipe one of whose ends is descriptor fd, if that number
// is free (pipes take the lowest free numbers); its ends are closed when
// the test ends.
func pipeAt(t testing.TB, fd int) [2]int {
	t.Helper()
	var spare []int
	defer func() {
		for _, x := range spare {
			unix.Close(x)
		}
	}()
	for range 100 {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		if fd < 0 || p[0] == fd || p[1] == fd || p[0] > fd {
			t.Cleanup(func() {
				unix.Close(p[0])
				unix.Close(p[1])
			})
			if fd >= 0 && p[0] != fd && p[1] != fd {
				t.Logf("descriptor %d was taken meanwhile", fd)
			}
			return p
		}
		spare = append(spare, p[0], p[1])
	}
	t.Fatal("no pipe reached descriptor", fd)
	return [2]int{}
}
