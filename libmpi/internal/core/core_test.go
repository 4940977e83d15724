package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// sockLink is a non-blocking socketpair end.
type sockLink struct{ fd int }

func (l *sockLink) Fd() int { return l.fd }
func (l *sockLink) Read(p []byte) (int, error) {
	n, err := unix.Read(l.fd, p)
	if err == unix.EAGAIN {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}
func (l *sockLink) Write(p []byte) (int, error) {
	n, err := unix.Write(l.fd, p)
	if err == unix.EAGAIN {
		return 0, nil
	}
	return n, err
}
func (l *sockLink) Close() error { return unix.Close(l.fd) }

// job builds n engines joined by socketpairs.
func job(t testing.TB, n, short int) []*Engine {
	t.Helper()
	links := make([][]rpi.Link, n)
	for i := range links {
		links[i] = make([]rpi.Link, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			unix.SetNonblock(fds[0], true)
			unix.SetNonblock(fds[1], true)
			if (i+j)%2 == 0 {
				links[i][j], links[j][i] = &sockLink{fds[0]}, &sockLink{fds[1]}
			} else {
				links[i][j], links[j][i] = &vecLink{sockLink{fds[0]}}, &vecLink{sockLink{fds[1]}}
			}
		}
	}
	es := make([]*Engine, n)
	for i := range es {
		es[i] = New(Config{Rank: i, Links: links[i], Short: short, Pace: rpi.Pace{SpinPolls: 16, Spin: 50 * time.Microsecond, Yield: 100 * time.Microsecond}})
	}
	t.Cleanup(func() {
		for _, e := range es {
			e.Close(context.Background())
		}
	})
	return es
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// send and recv are the blocking forms, with world ranks as
// communicator ranks and context 0.
func send(t testing.TB, e *Engine, buf []byte, dest, tag int, mode SendMode) {
	t.Helper()
	r := e.NewSend(buf, dest, dest, e.Rank(), tag, 0, mode)
	e.Start(r)
	if err := e.Wait(ctx(t), r); err != nil || r.Status().Err != nil {
		t.Errorf("send: %v %v", err, r.Status().Err) // may run in a goroutine
	}
}

func irecv(e *Engine, buf []byte, src, tag int) *Request {
	r := e.NewRecv(buf, src, tag, 0)
	e.Start(r)
	return r
}

func wait(t testing.TB, e *Engine, r *Request) Status {
	t.Helper()
	if err := e.Wait(ctx(t), r); err != nil {
		t.Fatal(err)
	}
	return r.Status()
}

func TestEagerAndRendezvous(t *testing.T) {
	for _, size := range []int{0, 1, 100, 4096, 4097, 1 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			es := job(t, 2, 4096)
			msg := bytes.Repeat([]byte{byte(size)}, size)
			// Receive posted first, then unexpected.
			for _, early := range []bool{true, false} {
				buf := make([]byte, size)
				var r *Request
				if early {
					r = irecv(es[1], buf, 0, 7)
				}
				done := make(chan struct{})
				go func() { send(t, es[0], msg, 1, 7, Standard); close(done) }()
				if !early {
					time.Sleep(10 * time.Millisecond)
					r = irecv(es[1], buf, 0, 7)
				}
				st := wait(t, es[1], r)
				<-done
				if st.Err != nil || st.Source != 0 || st.Tag != 7 || st.Count != size || !bytes.Equal(buf, msg) {
					t.Fatalf("early=%v: status %+v", early, st)
				}
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	for _, size := range []int{100, 10000} {
		es := job(t, 2, 4096)
		buf := make([]byte, 50)
		r := irecv(es[1], buf, 0, 1)
		go send(t, es[0], bytes.Repeat([]byte{9}, size), 1, 1, Standard)
		st := wait(t, es[1], r)
		if !errors.Is(st.Err, ErrTruncate) || st.Count != 50 || buf[49] != 9 {
			t.Errorf("size %d: status %+v", size, st)
		}
		// The stream is still in step: another message gets through.
		r = irecv(es[1], make([]byte, 4), 0, 2)
		go send(t, es[0], []byte("next"), 1, 2, Standard)
		if st := wait(t, es[1], r); st.Err != nil || st.Count != 4 {
			t.Errorf("after truncation: %+v", st)
		}
	}
}

func TestOrderAndWildcards(t *testing.T) {
	es := job(t, 3, 64)
	const n = 50
	var wg sync.WaitGroup
	for src := 0; src < 2; src++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				size := 8
				if i%7 == 0 {
					size = 200 // mix in rendezvous messages
				}
				b := make([]byte, size)
				b[0], b[1] = byte(src), byte(i)
				send(t, es[src], b, 2, src*10+i%3, Standard)
			}
		}()
	}
	next := [2]int{}
	for k := 0; k < 2*n; k++ {
		buf := make([]byte, 256)
		st := wait(t, es[2], irecv(es[2], buf, AnySource, AnyTag))
		src, seq := int(buf[0]), int(buf[1])
		if st.Source != src || seq != next[src] || st.Tag != src*10+seq%3 {
			t.Fatalf("message %d from %d (tag %d): want seq %d", seq, src, st.Tag, next[src])
		}
		next[src]++
	}
	wg.Wait()
}

func TestSyncSend(t *testing.T) {
	es := job(t, 2, 4096)
	for _, size := range []int{10, 10000} {
		r := es[0].NewSend(make([]byte, size), 1, 1, 0, 3, 0, Sync)
		es[0].Start(r)
		time.Sleep(30 * time.Millisecond)
		es[0].Progress()
		if r.Done() {
			t.Fatalf("size %d: a synchronous send completed before its receive was posted", size)
		}
		rr := irecv(es[1], make([]byte, size), 0, 3)
		// Both sides progress, as two processes would.
		errc := make(chan error, 1)
		go func() { errc <- es[0].Wait(ctx(t), r) }()
		wait(t, es[1], rr)
		if err := <-errc; err != nil || r.Status().Err != nil {
			t.Fatal(err, r.Status().Err)
		}
	}
}

func TestSelfProbeCancel(t *testing.T) {
	es := job(t, 1, 4096)
	e := es[0]
	send(t, e, []byte("me"), 0, 4, Standard)
	st, ok := e.Iprobe(0, AnySource, 4)
	if !ok || st.Count != 2 || st.Source != 0 {
		t.Fatalf("Iprobe = %+v %v", st, ok)
	}
	buf := make([]byte, 2)
	if st := wait(t, e, irecv(e, buf, 0, 4)); st.Err != nil || string(buf) != "me" {
		t.Fatalf("self receive %+v %q", st, buf)
	}
	if _, ok := e.Iprobe(0, AnySource, AnyTag); ok {
		t.Error("probe found a message already received")
	}
	r := irecv(e, buf, 0, 99)
	e.Cancel(r)
	if !r.Done() || !r.Status().Cancelled {
		t.Error("cancel of an unmatched receive")
	}
	// A synchronous send to self completes when its receive comes.
	s := e.NewSend([]byte("x"), 0, 0, 0, 5, 0, Sync)
	e.Start(s)
	if s.Done() {
		t.Error("ssend to self done before its receive")
	}
	wait(t, e, irecv(e, make([]byte, 1), 0, 5))
	if !s.Done() {
		t.Error("ssend to self not done after its receive")
	}
}

func TestProcNullAndDeadPeer(t *testing.T) {
	es := job(t, 2, 4096)
	r := es[0].NewRecv(nil, ProcNull, 0, 0)
	es[0].Start(r)
	if !r.Done() || r.Status().Source != ProcNull {
		t.Errorf("receive from ProcNull: %+v", r.Status())
	}
	es[1].Close(context.Background())
	// A send to a dead peer fails.
	s := es[0].NewSend([]byte("x"), 1, 1, 0, 0, 0, Standard)
	es[0].Start(s)
	deadline := time.Now().Add(5 * time.Second)
	for !s.Done() && time.Now().Before(deadline) {
		es[0].Progress()
		time.Sleep(time.Millisecond)
	}
	if !s.Done() || !errors.Is(s.Status().Err, ErrDeadPeer) {
		t.Errorf("send to a dead peer: %+v", s.Status())
	}
	// The error names the dead rank, for the abort it may cause.
	if r := DeadRank(fmt.Errorf("a call: %w", s.Status().Err)); r != 1 {
		t.Errorf("DeadRank of %v = %d, want 1", s.Status().Err, r)
	}
	if r := DeadRank(ErrTruncate); r != -1 {
		t.Errorf("DeadRank of %v = %d, want -1", ErrTruncate, r)
	}
}

func TestHugeMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB")
	}
	es := job(t, 2, 65536)
	msg := make([]byte, 64<<20)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	buf := make([]byte, len(msg))
	r := irecv(es[1], buf, 0, 0)
	go send(t, es[0], msg, 1, 0, Standard)
	if st := wait(t, es[1], r); st.Err != nil || !bytes.Equal(buf, msg) {
		t.Fatalf("64 MiB: %+v", st)
	}
}

// BenchmarkEagerPingPong measures the eager path, which must not
// allocate.
func BenchmarkEagerPingPong(b *testing.B) {
	es := job(b, 2, 65536)
	ping, pong := make([]byte, 8), make([]byte, 8)
	s0 := es[0].NewSend(ping, 1, 1, 0, 1, 0, Standard)
	r0 := es[0].NewRecv(pong, 1, 1, 0)
	s1 := es[1].NewSend(pong, 0, 0, 1, 1, 0, Standard)
	r1 := es[1].NewRecv(ping, 0, 1, 0)
	c := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < b.N; i++ {
			es[1].Start(r1)
			es[1].Wait(c, r1)
			es[1].Start(s1)
			es[1].Wait(c, s1)
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		es[0].Start(s0)
		es[0].Wait(c, s0)
		es[0].Start(r0)
		es[0].Wait(c, r0)
	}
	<-done
}

// vecLink adds the vectored write, so tests cover both paths.
type vecLink struct{ sockLink }

func (l *vecLink) Write2(a, b []byte) (int, error) {
	n, err := unix.Writev(l.fd, [][]byte{a, b})
	if err == unix.EAGAIN {
		return 0, nil
	}
	return n, err
}

func TestCancelSend(t *testing.T) {
	es := job(t, 2, 64)
	for _, size := range []int{8, 1000} { // synchronous eager, rendezvous
		s := es[0].NewSend(make([]byte, size), 1, 1, 0, 5, 0, Sync)
		if size > 64 {
			s = es[0].NewSend(make([]byte, size), 1, 1, 0, 5, 0, Standard)
		}
		es[0].Start(s)
		// Let the message reach the receiver's unexpected queue.
		deadline := time.Now().Add(5 * time.Second)
		for {
			es[1].Progress()
			if _, ok := es[1].Iprobe(0, 0, 5); ok || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		es[0].Cancel(s)
		errc := make(chan error, 1)
		go func() {
			for !s.Done() {
				es[1].Progress()
				time.Sleep(100 * time.Microsecond)
			}
			errc <- nil
		}()
		if err := es[0].Wait(ctx(t), s); err != nil {
			t.Fatal(err)
		}
		<-errc
		if !s.Status().Cancelled {
			t.Errorf("size %d: send not cancelled: %+v", size, s.Status())
		}
		if _, ok := es[1].Iprobe(0, 0, 5); ok {
			t.Errorf("size %d: the withdrawn message is still there", size)
		}
	}
	// A send already matched is not cancelled.
	rr := irecv(es[1], make([]byte, 8), 0, 6)
	s := es[0].NewSend(make([]byte, 8), 1, 1, 0, 6, 0, Sync)
	es[0].Start(s)
	go es[1].Wait(ctx(t), rr)
	wait(t, es[0], s)
	es[0].Cancel(s)
	if s.Status().Cancelled {
		t.Error("a matched send reported cancelled")
	}
}

// idleLink is a link polled by calls that never carries anything.
type idleLink struct{}

func (idleLink) Fd() int                     { return -1 }
func (idleLink) Read([]byte) (int, error)    { return 0, nil }
func (idleLink) Write(p []byte) (int, error) { return len(p), nil }
func (idleLink) Close() error                { return nil }

// wakeWaiter sleeps until Wake, ignoring Sleep's timeout (up to 5 s).
type wakeWaiter struct {
	wake  chan struct{}
	woken int
}

func (w *wakeWaiter) Arm() uint32 { return 0 }
func (w *wakeWaiter) Disarm()     {}
func (w *wakeWaiter) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
func (w *wakeWaiter) Sleep(uint32, time.Duration) {
	select {
	case <-w.wake:
		w.woken++
	case <-time.After(5 * time.Second):
	}
}

// A process with peers on its node (links polled by calls, a Waiter) and
// on other nodes (descriptors) sleeps on the Waiter and is woken by a
// descriptor that becomes readable.
func TestSleepWakesForDescriptors(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fds[0], true)
	unix.SetNonblock(fds[1], true)
	w := &wakeWaiter{wake: make(chan struct{}, 1)}
	sleepy := rpi.Pace{SpinPolls: 1}
	e0 := New(Config{Rank: 0, Links: []rpi.Link{nil, &sockLink{fds[0]}, idleLink{}}, Pace: sleepy, Waiter: w})
	e1 := New(Config{Rank: 1, Links: []rpi.Link{&sockLink{fds[1]}, nil, nil}})
	defer e0.Close(context.Background())
	defer e1.Close(context.Background())
	buf := make([]byte, 5)
	r := irecv(e0, buf, 1, 7)
	go func() {
		time.Sleep(50 * time.Millisecond)
		send(t, e1, []byte("hello"), 0, 7, Standard)
	}()
	start := time.Now()
	wait(t, e0, r)
	if string(buf) != "hello" {
		t.Fatalf("got %q", buf)
	}
	if w.woken == 0 || time.Since(start) > 4*time.Second {
		t.Fatalf("the descriptor did not wake the sleeper (woken %d times, %v)", w.woken, time.Since(start))
	}
}

// A Probe that waits (its condition takes the progress lock) sees a
// message that comes later.
func TestProbeWaits(t *testing.T) {
	es := job(t, 2, 1024)
	go func() {
		time.Sleep(20 * time.Millisecond)
		send(t, es[0], []byte("later"), 1, 9, Standard)
	}()
	st, err := es[1].Probe(ctx(t), 0, AnySource, AnyTag)
	if err != nil || st.Source != 0 || st.Tag != 9 || st.Count != 5 {
		t.Fatalf("probe: %+v %v", st, err)
	}
	buf := make([]byte, 5)
	wait(t, es[1], irecv(es[1], buf, 0, 9))
}

// closeWaiter is a Waiter that records whether it was used after the
// engine closed it (the transport's Close unmaps a shared Waiter).
type closeWaiter struct {
	wakeWaiter
	gone  atomic.Bool
	after atomic.Int32 // Arm, Sleep or Disarm calls after gone
	armed atomic.Int32
}

func (w *closeWaiter) use() {
	if w.gone.Load() {
		w.after.Add(1)
	}
}
func (w *closeWaiter) Arm() uint32 { w.use(); w.armed.Add(1); return 0 }
func (w *closeWaiter) Disarm()     { w.use() }
func (w *closeWaiter) Sleep(tok uint32, d time.Duration) {
	w.use()
	w.wakeWaiter.Sleep(tok, d)
	w.use()
}

// Close waits for a goroutine asleep behind the program (a nonblocking
// collective's progress, WaitBehind) to leave the Waiter before it
// returns, and lets none in afterwards: the transport closed next may
// unmap the Waiter (a nonblocking collective's progress goroutine in
// the shared-memory rpi's Disarm after MPI_Finalize crashed a C program).
func TestCloseWaitsForSleepers(t *testing.T) {
	w := &closeWaiter{wakeWaiter: wakeWaiter{wake: make(chan struct{}, 1)}}
	e := New(Config{Rank: 0, Links: []rpi.Link{nil, idleLink{}}, Pace: rpi.Pace{SpinPolls: 1}, Waiter: w})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.WaitBehind(context.Background(), func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		})
	}()
	for w.armed.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.gone.Store(true) // the transport closes here
	time.Sleep(50 * time.Millisecond)
	close(stop)
	<-done
	if n := w.after.Load(); n > 0 {
		t.Errorf("the Waiter was used %d times after Close returned", n)
	}
}

// BenchmarkUnexpected: three small messages that arrive before their
// receives are posted, as a Gather's root at coll_base_check=1 gets its
// senders' blocks: the unexpected path, whose records and bodies the
// engine keeps for the next ones (allocs/op is what it measures).
func BenchmarkUnexpected(b *testing.B) {
	const k = 3
	es := job(b, 2, 65536)
	msg := make([]byte, 168)
	var sends, recvs [k]*Request
	for j := range k {
		sends[j] = es[0].NewSend(msg, 1, 1, 0, j, 0, Standard)
		recvs[j] = es[1].NewRecv(make([]byte, len(msg)), 0, j, 0)
	}
	c := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for j := range k {
			es[0].Start(sends[j])
		}
		for j := range k {
			if err := es[0].Wait(c, sends[j]); err != nil {
				b.Fatal(err)
			}
		}
		for { // every message queued before its receive is posted
			es[1].Progress()
			if _, ok := es[1].Iprobe(0, 0, k-1); ok {
				break
			}
		}
		for j := range k {
			es[1].Start(recvs[j])
			if err := es[1].Wait(c, recvs[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
