package core

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/rpi"
)

// drainAll checkpoints every engine at once, as the ranks of a job do: each
// quiesces, drains with the counters the others announce to it, and waits
// until every one has drained; then check runs with all of them still
// quiesced, and they resume. It returns how many rounds each link took
// (rounds[i][j]: the counters i told j).
func drainAll(t *testing.T, es []*Engine, check func()) (rounds [][]int) {
	t.Helper()
	n := len(es)
	rounds = make([][]int, n)
	for i := range rounds {
		rounds[i] = make([]int, n)
	}
	inbox := make([]chan Announcement, n)
	for i := range inbox {
		inbox[i] = make(chan Announcement, 8*n)
	}
	resumes := make([]func(), n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resumes[i] = e.Quiesce()
			announce := func(as []Announcement) error {
				for _, a := range as {
					j := a.Rank
					a.Rank = i
					rounds[i][j]++ // only this goroutine writes row i
					inbox[j] <- a
				}
				return nil
			}
			errs[i] = e.Drain(ctx(t), announce, inbox[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("rank %d: drain: %v", i, err)
		}
	}
	// Nothing is in flight: every byte written has been read.
	for i, e := range es {
		for j, p := range e.peers {
			if p != nil && p.sent != es[j].peers[i].recvd {
				t.Errorf("link %d→%d: %d bytes written, %d read", i, j, p.sent, es[j].peers[i].recvd)
			}
		}
	}
	check()
	for _, r := range resumes {
		r()
	}
	return rounds
}

// TestDrainRounds: what a checkpoint costs in exchanges, whatever the
// load: a link with nothing on its way drains in one round (one message
// each way through the lamds, as before the drain pulled long messages);
// a long message announced and not received takes three on its link (two
// if the timing is lucky), and one on the others.
func TestDrainRounds(t *testing.T) {
	es := job(t, 3, 4096)
	if got := drainAll(t, es, func() {}); !reflect.DeepEqual(got, [][]int{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}) {
		t.Errorf("idle: rounds %v", got)
	}
	long := es[0].NewSend(make([]byte, 1<<20), 1, 1, 0, 3, 0, Standard)
	es[0].Start(long)
	deadline := time.Now().Add(5 * time.Second)
	for es[1].peers[0].recvd == 0 && time.Now().Before(deadline) {
		es[1].Progress()
	}
	got := drainAll(t, es, func() {
		if msgs, rts := es[1].Unmatched(); len(msgs) != 1 || rts != 0 || !long.Done() {
			t.Errorf("pulled %d, %d left, send done %v", len(msgs), rts, long.Done())
		}
	})
	// Two when the sender happens to read the clear-to-send before it
	// tells its first counters.
	if r := got[0][1]; r < 2 || r > 3 || got[1][0] != r || got[0][2] != 1 || got[2][0] != 1 || got[1][2] != 1 || got[2][1] != 1 {
		t.Errorf("a long message in flight: rounds %v", got)
	}
	wait(t, es[1], irecv(es[1], make([]byte, 1<<20), 0, 3))
}

// TestDrain: eager messages, a synchronous send and rendezvous messages
// (one matched, whose body is under way, one not) are in flight when
// three engines drain; nothing is lost, unmatched messages are what a
// checkpoint saves — the unmatched rendezvous message too, pulled into
// the library by the drain, whose sender's request completes in it —
// and everything completes after the resume.
func TestDrain(t *testing.T) {
	const short = 4096
	es := job(t, 3, short)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: rendezvous
	for k := 0; k < 3; k++ {
		r := es[0].NewSend([]byte{byte(k), 1, 2}, 1, 1, 0, 7, 0, Standard)
		es[0].Start(r)
	}
	ssend := es[2].NewSend([]byte("sync"), 0, 0, 2, 9, 0, Sync)
	es[2].Start(ssend)
	long := es[1].NewSend(big, 2, 2, 1, 3, 0, Standard)
	es[1].Start(long)
	got := make([]byte, len(big))
	posted := irecv(es[2], got, 1, 3)
	unmatched := es[0].NewSend(big[:100000], 2, 2, 0, 4, 0, Standard)
	es[0].Start(unmatched)
	time.Sleep(10 * time.Millisecond) // let some of it move
	drainAll(t, es, func() {
		msgs, rts := es[1].Unmatched()
		if len(msgs) != 3 || rts != 0 {
			t.Fatalf("rank 1 unmatched: %d messages, %d rendezvous", len(msgs), rts)
		}
		for k, m := range msgs {
			if m.From != 0 || m.Tag != 7 || !bytes.Equal(m.Body, []byte{byte(k), 1, 2}) {
				t.Errorf("rank 1 message %d: %+v", k, m)
			}
		}
		if msgs, _ := es[0].Unmatched(); len(msgs) != 1 || string(msgs[0].Body) != "sync" || msgs[0].From != 2 {
			t.Errorf("rank 0 unmatched: %+v", msgs)
		}
		if msgs, rts := es[2].Unmatched(); rts != 0 || len(msgs) != 1 || msgs[0].From != 0 || msgs[0].Tag != 4 || !bytes.Equal(msgs[0].Body, big[:100000]) {
			t.Errorf("rank 2: %d rendezvous messages waiting, unmatched %d, want the pulled one", rts, len(msgs))
		}
		if !unmatched.Done() || unmatched.Status().Err != nil {
			t.Errorf("the pulled message's send: done %v, %v", unmatched.Done(), unmatched.Status())
		}
	})
	for k := 0; k < 3; k++ {
		buf := make([]byte, 3)
		if st := wait(t, es[1], irecv(es[1], buf, 0, 7)); st.Count != 3 || buf[0] != byte(k) {
			t.Errorf("message %d after the drain: %v %v", k, st, buf)
		}
	}
	// Each engine makes progress only while a goroutine waits on it.
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); es[1].Wait(ctx(t), long) }()
	go func() { defer wg.Done(); es[2].Wait(ctx(t), ssend) }()
	go func() { defer wg.Done(); es[0].Wait(ctx(t), unmatched) }()
	if st := wait(t, es[2], posted); st.Count != len(big) || !bytes.Equal(got, big) {
		t.Errorf("the long message: %+v", st)
	}
	buf := make([]byte, 4)
	wait(t, es[0], irecv(es[0], buf, 2, 9))
	rest := make([]byte, 100000)
	wait(t, es[2], irecv(es[2], rest, 0, 4))
	wg.Wait()
	if !long.Done() || !ssend.Done() || !unmatched.Done() || !bytes.Equal(rest, big[:100000]) || string(buf) != "sync" {
		t.Error("the sends after the drain")
	}
}

// TestDrainErrors: a peer that says it wrote less than was read is a
// protocol error; a peer that never says is waited for until ctx ends,
// and named.
func TestDrainErrors(t *testing.T) {
	es := job(t, 2, 4096)
	r := es[0].NewSend([]byte("x"), 1, 1, 0, 1, 0, Standard)
	es[0].Start(r)
	wait(t, es[0], r)
	for _, c := range []struct {
		name string
		ann  []Announcement
		want string
	}{
		{"short", []Announcement{{Rank: 0, Round: 1, Sent: 0}, {Rank: 0, Round: 2, Sent: 0}}, "says it wrote 0"},
		{"silent", nil, "rank 0's counters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := make(chan Announcement, 2)
			for _, a := range c.ann {
				in <- a
			}
			resume := es[1].Quiesce()
			defer resume()
			dctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			deadline := time.Now().Add(2 * time.Second)
			for es[1].peers[0].recvd == 0 && time.Now().Before(deadline) {
				es[1].progress()
			}
			err := es[1].Drain(dctx, func([]Announcement) error { return nil }, in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("drain: %v, want %q", err, c.want)
			}
			if c.name == "short" && !errors.Is(err, ErrProtocol) {
				t.Errorf("drain: %v, want ErrProtocol", err)
			}
		})
	}
}

// TestRestore: saved messages come back in order, before later ones, to
// receives posted before or after.
func TestRestore(t *testing.T) {
	es := job(t, 2, 4096)
	early := irecv(es[1], make([]byte, 8), 0, 5)
	es[1].Restore([]SavedMessage{
		{From: 0, Context: 0, Source: 0, Tag: 5, Body: []byte("first")},
		{From: 0, Context: 0, Source: 0, Tag: 5, Body: []byte("second")},
	})
	if st := wait(t, es[1], early); st.Count != 5 || string(early.Buffer()[:5]) != "first" {
		t.Errorf("receive posted before: %+v %q", st, early.Buffer())
	}
	send(t, es[0], []byte("third"), 1, 5, Standard)
	for _, want := range []string{"second", "third"} {
		buf := make([]byte, 8)
		st := wait(t, es[1], irecv(es[1], buf, 0, 5))
		if string(buf[:st.Count]) != want {
			t.Errorf("got %q, want %q", buf[:st.Count], want)
		}
	}
}

// beginLink is a link that may have taken part of a write it reported as
// none (as the lamd rpi's does).
type beginLink struct {
	nopLink
	begun bool
}

func (l *beginLink) WriteBegun() bool { return l.begun }

// nopLink moves nothing.
type nopLink struct{}

func (nopLink) Read([]byte) (int, error)  { return 0, nil }
func (nopLink) Write([]byte) (int, error) { return 0, nil }
func (nopLink) Fd() int                   { return -1 }
func (nopLink) Close() error              { return nil }

// TestHeld: a checkpoint holds a frame not begun, but not one the link
// took part of while reporting nothing (its bytes reach the peer and must
// be counted before the counters are told).
func TestHeld(t *testing.T) {
	for _, c := range []struct {
		name string
		hold bool
		hdrN int
		link rpi.Link
		want bool
	}{
		{"no checkpoint", false, 0, nopLink{}, false},
		{"not begun", true, 0, nopLink{}, true},
		{"begun by the core", true, 3, nopLink{}, false},
		{"link took none", true, 0, &beginLink{}, true},
		{"link took part", true, 0, &beginLink{begun: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Engine{hold: c.hold}
			p := &peer{link: c.link}
			if got := e.held(p, &outFrame{hdrN: c.hdrN}); got != c.want {
				t.Errorf("held = %v, want %v", got, c.want)
			}
		})
	}
}

// TestPullMatchedMeanwhile: a rendezvous message a drain pulled, matched
// by a receive before its body is in (a drain that failed, resumed), goes
// to that receive, and one sent after it still comes after it.
func TestPullMatchedMeanwhile(t *testing.T) {
	es := job(t, 2, 4096)
	big := bytes.Repeat([]byte("pull"), 1<<16)
	long := es[0].NewSend(big, 1, 1, 0, 3, 0, Standard)
	es[0].Start(long)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		es[1].Progress()
		es[1].mu.Lock()
		n := 0
		es[1].match.Each(func(*match.Message) bool { n++; return true })
		es[1].mu.Unlock()
		if n == 1 {
			break
		}
	}
	es[1].mu.Lock()
	if !es[1].pull(es[1].peers[0]) {
		t.Fatal("nothing to pull")
	}
	es[1].mu.Unlock()
	first := make([]byte, len(big))
	r := irecv(es[1], first, 0, 3) // matches the message being pulled
	after := es[0].NewSend([]byte("after"), 1, 1, 0, 3, 0, Standard)
	es[0].Start(after)
	go es[0].Wait(ctx(t), long)
	if st := wait(t, es[1], r); st.Count != len(big) || st.Err != nil || !bytes.Equal(first, big) {
		t.Errorf("the pulled message: %+v", st)
	}
	buf := make([]byte, 8)
	if st := wait(t, es[1], irecv(es[1], buf, 0, 3)); string(buf[:st.Count]) != "after" {
		t.Errorf("then %q", buf[:st.Count])
	}
	wait(t, es[0], long)
}

// TestDrainTaken: messages matched probes took and no Mrecv received (an
// eager one, and a rendezvous one whose body the drain pulls, its send
// completing) are saved by a checkpoint before the waiting ones, in the
// order taken; restored, they match as the next ones of their source and
// tag. In the job that goes on, the probes' messages are received as
// usual.
func TestDrainTaken(t *testing.T) {
	es := job(t, 2, 4096)
	big := bytes.Repeat([]byte("taken!"), 20000) // rendezvous
	for _, m := range []struct {
		body []byte
		tag  int
	}{{[]byte("a1"), 1}, {[]byte("b1"), 2}, {big, 1}, {[]byte("a2"), 1}} {
		es[0].Start(es[0].NewSend(m.body, 1, 1, 0, m.tag, 0, Standard))
	}
	var taken []*Message
	for _, tag := range []int{2, 1, 1} { // b1, a1, big
		m, err := es[1].Mprobe(ctx(t), 0, 0, tag)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, m)
	}
	// a2 is waiting, not taken.
	deadline := time.Now().Add(5 * time.Second)
	for es[1].match.Probe(match.Key{Source: 0, Tag: 1}) == nil && time.Now().Before(deadline) {
		es[1].Progress()
	}
	var saved []SavedMessage
	drainAll(t, es, func() {
		msgs, rts := es[1].Unmatched()
		if rts != 0 {
			t.Errorf("%d rendezvous messages not pulled", rts)
		}
		saved = msgs
	})
	var got []string
	for _, m := range saved {
		got = append(got, string(m.Body[:min(2, len(m.Body))]))
	}
	if want := []string{"b1", "a1", "ta", "a2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("saved %q, want %q", got, want)
	}
	if !bytes.Equal(saved[2].Body, big) {
		t.Errorf("the rendezvous message taken by a probe: %d bytes saved, want %d", len(saved[2].Body), len(big))
	}
	// The job goes on: Mrecv gets the taken messages.
	for i, want := range [][]byte{[]byte("b1"), []byte("a1"), big} {
		buf := make([]byte, len(big))
		r := es[1].Imrecv(buf, taken[i])
		if r == nil {
			t.Fatalf("message %d: received already", i)
		}
		if st := wait(t, es[1], r); !bytes.Equal(buf[:st.Count], want) {
			t.Errorf("Mrecv %d: %d bytes %q...", i, st.Count, buf[:min(st.Count, 4)])
		}
	}
	if len(es[1].taken) != 0 {
		t.Errorf("%d taken messages left after their Mrecv", len(es[1].taken))
	}
	// A restarted process gets them back in the saved order: tag 1 gives
	// a1, big, a2.
	re := job(t, 2, 4096)
	re[1].Restore(saved)
	for _, want := range [][]byte{[]byte("a1"), big, []byte("a2")} {
		buf := make([]byte, len(big))
		if st := wait(t, re[1], irecv(re[1], buf, 0, 1)); !bytes.Equal(buf[:st.Count], want) {
			t.Errorf("restored tag 1: %d bytes %q..., want %q...", st.Count, buf[:min(st.Count, 4)], want[:2])
		}
	}
}

// TestRestoreSync: a synchronous send whose message was delivered and not
// matched at the checkpoint completes, after the restart, only when the
// receiver matches the message, whether the sender gets its request
// back before or after that acknowledgement comes; a discarded message
// is acknowledged too.
func TestRestoreSync(t *testing.T) {
	es := job(t, 2, 4096)
	ss := es[0].NewSend([]byte("sync"), 1, 1, 0, 6, 0, Sync)
	es[0].Start(ss)
	deadline := time.Now().Add(5 * time.Second)
	for es[1].match.Probe(match.Key{Source: 0, Tag: 6}) == nil && time.Now().Before(deadline) {
		es[1].Progress()
	}
	var saved []SavedMessage
	var op RequestOp
	drainAll(t, es, func() {
		saved, _ = es[1].Unmatched()
		op = ss.Op()
	})
	if len(saved) != 1 || saved[0].Ack == 0 || !op.Delivered || op.Ack != saved[0].Ack || ss.Done() {
		t.Fatalf("saved %+v, the send %+v (done %v)", saved, op, ss.Done())
	}
	for _, c := range []struct {
		name    string
		early   bool // the receiver matches before the sender awaits
		discard bool
	}{{"awaited first", false, false}, {"acknowledged first", true, false}, {"discarded", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			re := job(t, 2, 4096)
			again := re[0].NewSend([]byte("sync"), 1, 1, 0, 6, 0, Sync)
			if !c.early {
				re[0].AwaitAck(again, op.Ack)
			}
			if c.discard {
				re[1].Discard(saved)
			} else {
				re[1].Restore(saved)
				time.Sleep(5 * time.Millisecond)
				re[0].Progress()
				if again.Done() {
					t.Fatal("the send is done before its message is matched")
				}
				buf := make([]byte, 8)
				if st := wait(t, re[1], irecv(re[1], buf, 0, 6)); string(buf[:st.Count]) != "sync" {
					t.Fatalf("restored: %q", buf[:st.Count])
				}
			}
			if c.early {
				for len(re[0].acked) == 0 && time.Now().Before(deadline.Add(10*time.Second)) {
					re[0].Progress()
				}
				re[0].AwaitAck(again, op.Ack)
			}
			wait(t, re[0], again)
		})
	}
	wait(t, es[1], irecv(es[1], make([]byte, 8), 0, 6))
	wait(t, es[0], ss)
}

// TestDrainPulledSync: a synchronous send of a long message whose
// receiver has not posted the receive is not completed by the drain that
// pulls its body (the pull is not a match): a checkpoint sees it
// delivered and waiting for the acknowledgement, and it completes when
// the receiver matches the message — in the job that goes on, or after a
// restart through the saved message (TestRestoreSync).
func TestDrainPulledSync(t *testing.T) {
	es := job(t, 2, 4096)
	big := bytes.Repeat([]byte("sync!"), 30000)
	ss := es[0].NewSend(big, 1, 1, 0, 4, 0, Sync)
	es[0].Start(ss)
	deadline := time.Now().Add(5 * time.Second)
	for es[1].match.Probe(match.Key{Source: 0, Tag: 4}) == nil && time.Now().Before(deadline) {
		es[1].Progress()
	}
	var saved []SavedMessage
	var op RequestOp
	drainAll(t, es, func() {
		var rts int
		saved, rts = es[1].Unmatched()
		op = ss.Op()
		if rts != 0 || len(saved) != 1 || !bytes.Equal(saved[0].Body, big) || saved[0].Ack == 0 {
			t.Errorf("saved %d messages (%d not pulled), ack %v", len(saved), rts, len(saved) == 1 && saved[0].Ack != 0)
		}
	})
	if !op.Delivered || op.Ack == 0 || len(saved) == 1 && op.Ack != saved[0].Ack {
		t.Errorf("the send at the checkpoint: %+v", op)
	}
	for range 50 {
		es[0].Progress()
		es[1].Progress()
	}
	if ss.Done() {
		t.Fatal("the synchronous send completed at the pull, before any match")
	}
	buf := make([]byte, len(big))
	if st := wait(t, es[1], irecv(es[1], buf, 0, 4)); !bytes.Equal(buf[:st.Count], big) {
		t.Errorf("received %d bytes", st.Count)
	}
	wait(t, es[0], ss)
}

// TestDrainStats: the counts of a drain's waits (DrainStats). Rank 1's
// counters reach rank 0 late, so rank 0's drain waits for them: it polls,
// yields, then sleeps — each counted — and completes its one round; rank
// 1, whose peer's counters come at once, waits little. Rank 0's yields
// take longer on a busy machine (each gives the processor away), so when
// its wait ended before it slept, the test waits longer next time.
func TestDrainStats(t *testing.T) {
	for _, delay := range []time.Duration{40 * time.Millisecond, 300 * time.Millisecond, 3 * time.Second} {
		stats := drainWithDelay(t, delay)
		s := stats[0]
		if s.Polls != drainPolls+s.Yields+s.Sleeps-1 && s.Polls != drainPolls+s.Yields+s.Sleeps {
			t.Errorf("rank 0, waiting %v: polls are not the yields and sleeps after %d: %+v", delay, drainPolls, s)
		}
		if s.Rounds != 1 || s.Yields > drainYields-drainPolls || s.Sleeps > 0 && s.Yields != drainYields-drainPolls {
			t.Errorf("rank 0, waiting %v: %+v", delay, s)
		}
		if s := stats[1]; s.Rounds != 1 || s.Polls > stats[0].Polls {
			t.Errorf("rank 1: %+v (rank 0: %+v)", s, stats[0])
		}
		if t.Failed() || s.Sleeps >= 1 {
			return
		}
		t.Logf("rank 0's wait of %v ended before it slept (%+v): waiting longer", delay, s)
	}
	t.Errorf("rank 0 never slept, also when its peer's counters came 3 s late")
}

// drainWithDelay drains a job of two engines where rank 1's announcement
// reaches rank 0 after delay, and returns their drains' counts.
func drainWithDelay(t *testing.T, delay time.Duration) [2]DrainStats {
	t.Helper()
	es := job(t, 2, 4096)
	inbox := []chan Announcement{make(chan Announcement, 8), make(chan Announcement, 8)}
	var wg sync.WaitGroup
	resumes := make([]func(), 2)
	errs := make([]error, 2)
	var stats [2]DrainStats
	for i, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resumes[i] = e.Quiesce()
			announce := func(as []Announcement) error {
				for _, a := range as {
					j := a.Rank
					a.Rank = i
					if j == 0 {
						time.AfterFunc(delay, func() { inbox[j] <- a })
						continue
					}
					inbox[j] <- a
				}
				return nil
			}
			errs[i] = e.Drain(ctx(t), announce, inbox[i])
			stats[i] = e.LastDrain()
		}()
	}
	wg.Wait()
	for _, r := range resumes {
		r()
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: drain: %v", i, err)
		}
	}
	return stats
}

// TestDrainPullLimit: a drain pulls rendezvous bodies up to maxPulled in
// all (lowered here to 300 000 bytes): of three unmatched 200 000-byte
// messages from two peers, the first announced is pulled, the others stay
// with their senders (Unmatched counts them); a later drain pulls them,
// one at a time, and every message arrives intact after the resume.
func TestDrainPullLimit(t *testing.T) {
	defer func(m uint64) { maxPulled = m }(maxPulled)
	maxPulled = 300000
	es := job(t, 3, 4096)
	body := func(k int) []byte { return bytes.Repeat([]byte{byte(k)}, 200000) }
	var sends []*Request
	for k, from := range []int{0, 0, 2} {
		s := es[from].NewSend(body(k), 1, 1, from, 5+k, 0, Standard)
		es[from].Start(s)
		sends = append(sends, s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for (es[1].peers[0].recvd == 0 || es[1].peers[2].recvd == 0) && time.Now().Before(deadline) {
		es[1].Progress()
	}
	pulled := 0
	drainAll(t, es, func() {
		msgs, rts := es[1].Unmatched()
		if len(msgs) != 1 || rts != 2 || len(msgs[0].Body) != 200000 {
			t.Errorf("first drain: %d pulled, %d left with their senders", len(msgs), rts)
		}
		pulled = len(msgs)
	})
	drainAll(t, es, func() {
		if msgs, rts := es[1].Unmatched(); len(msgs) != pulled+1 || rts != 1 {
			t.Errorf("second drain: %d pulled, %d left", len(msgs), rts)
		}
	})
	// The senders answer the clear-to-send of the messages not pulled.
	var wg sync.WaitGroup
	errs := make([]error, len(sends))
	for k, from := range []int{0, 0, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = es[from].Wait(ctx(t), sends[k])
		}()
	}
	for k, from := range []int{0, 0, 2} {
		got := make([]byte, 200000)
		wait(t, es[1], irecv(es[1], got, from, 5+k))
		if !bytes.Equal(got, body(k)) {
			t.Errorf("message %d: body differs", k)
		}
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Errorf("send %d: %v", k, err)
		}
	}
}
