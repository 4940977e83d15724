package match

import (
	"math/rand/v2"
	"testing"
)

func recv(ctx uint32, src, tag int32) *Recv { return &Recv{Key: Key{ctx, src, tag}} }
func msg(ctx uint32, src, tag int32) *Message {
	return &Message{Key: Key{ctx, src, tag}}
}

func TestUnexpectedThenPost(t *testing.T) {
	e := New()
	m1, m2, m3 := msg(1, 0, 5), msg(1, 0, 6), msg(1, 2, 5)
	for _, m := range []*Message{m1, m2, m3} {
		if r := e.Arrive(m.Key); r != nil {
			t.Fatal("matched with nothing posted")
		}
		e.Enqueue(m)
	}
	tests := []struct {
		r    *Recv
		want *Message
	}{
		{recv(1, 0, 6), m2},         // exact
		{recv(1, AnySource, 5), m1}, // oldest of two
		{recv(1, AnySource, AnyTag), m3},
		{recv(1, 0, AnyTag), nil}, // nothing left: queued
	}
	for i, tt := range tests {
		if got := e.Post(tt.r); got != tt.want {
			t.Errorf("%d: Post(%+v) = %+v, want %+v", i, tt.r.Key, got, tt.want)
		}
	}
	if !tests[3].r.Queued() {
		t.Error("unmatched receive not queued")
	}
}

func TestPostedThenArrive(t *testing.T) {
	e := New()
	rAny := recv(7, AnySource, 3)
	rExact := recv(7, 1, 3)
	e.Post(rAny)
	e.Post(rExact)
	// The oldest matching receive wins, even if a later one is more exact.
	if got := e.Arrive(Key{7, 1, 3}); got != rAny {
		t.Errorf("Arrive matched %+v, want the wildcard posted first", got)
	}
	if got := e.Arrive(Key{7, 1, 3}); got != rExact {
		t.Errorf("second Arrive matched %+v", got)
	}
	if got := e.Arrive(Key{7, 1, 3}); got != nil {
		t.Errorf("third Arrive matched %+v", got)
	}
	// Contexts are apart.
	e.Post(recv(8, AnySource, AnyTag))
	if got := e.Arrive(Key{7, 0, 0}); got != nil {
		t.Error("a receive on another context matched")
	}
}

func TestProbeTakeCancelDrop(t *testing.T) {
	e := New()
	m := msg(2, 4, 9)
	e.Enqueue(m)
	if e.Probe(Key{2, AnySource, 9}) != m || !m.Queued() {
		t.Fatal("probe did not find, or removed, the message")
	}
	if e.Probe(Key{2, 3, 9}) != nil || e.Probe(Key{3, 4, 9}) != nil {
		t.Error("probe matched the wrong source or context")
	}
	e.Take(m)
	if m.Queued() || e.Probe(Key{2, AnySource, AnyTag}) != nil {
		t.Error("Take did not remove the message")
	}
	r := recv(2, 0, 0)
	e.Post(r)
	if !e.Cancel(r) || r.Queued() || e.Cancel(r) {
		t.Error("cancel of a queued receive")
	}
	if e.Arrive(Key{2, 0, 0}) != nil {
		t.Error("a cancelled receive matched")
	}
	e.Post(recv(5, 0, 0))
	e.Enqueue(msg(5, 1, 1))
	if rs, ms := e.Drop(5); rs != 1 || ms != 1 {
		t.Errorf("Drop = %d, %d", rs, ms)
	}
}

// Unexpected counts the queued messages through Enqueue, Post, Take and
// Drop, and keeps the most.
func TestUnexpectedCount(t *testing.T) {
	e := New()
	check := func(what string, now, most int) {
		t.Helper()
		if n, m := e.Unexpected(); n != now || m != most {
			t.Errorf("%s: Unexpected() = %d, %d, want %d, %d", what, n, m, now, most)
		}
	}
	check("empty", 0, 0)
	a, b := msg(1, 0, 1), msg(1, 0, 2)
	e.Enqueue(a)
	e.Enqueue(b)
	e.Enqueue(msg(2, 0, 1))
	check("three", 3, 3)
	e.Post(recv(1, 0, 2))
	check("posted", 2, 3)
	e.Take(a)
	e.Take(a) // no longer queued
	check("taken", 1, 3)
	e.Enqueue(msg(2, 0, 3))
	if _, ms := e.Drop(2); ms != 2 {
		t.Fatalf("Drop: %d messages", ms)
	}
	check("dropped", 0, 3)
}

// TestNonOvertaking checks MPI's ordering against a simple model, with
// random posts and arrivals.
func TestNonOvertaking(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		e := New()
		type sent struct {
			key Key
			seq int
		}
		seqs := map[Key]int{}
		var posted []*Recv
		matchedSeq := map[*Recv]int{}
		matchedKey := map[*Recv]Key{}
		seqOf := map[*Message]int{}
		for step := 0; step < 60; step++ {
			if rng.IntN(2) == 0 {
				k := Key{1, int32(rng.IntN(3)), int32(rng.IntN(2))}
				s := sent{k, seqs[k]}
				seqs[k]++
				if r := e.Arrive(k); r != nil {
					matchedSeq[r], matchedKey[r] = s.seq, k
					continue
				}
				m := &Message{Key: k}
				seqOf[m] = s.seq
				e.Enqueue(m)
			} else {
				src, tag := int32(rng.IntN(4)-1), int32(rng.IntN(3)-1)
				r := recv(1, src, tag)
				posted = append(posted, r)
				if m := e.Post(r); m != nil {
					matchedSeq[r], matchedKey[r] = seqOf[m], m.Key
				}
			}
		}
		// For every (source, tag) pair, the receives that matched it got
		// increasing sequence numbers in posting order.
		// Receives posted earlier that could take a message get it first.
		last := map[Key]int{}
		for _, r := range posted {
			seq, ok := matchedSeq[r]
			if !ok {
				continue
			}
			k := matchedKey[r]
			if prev, seen := last[k]; seen && seq <= prev {
				t.Fatalf("round %d: messages from %+v matched out of order (%d after %d)", round, k, seq, prev)
			}
			last[k] = seq
		}
	}
}

func BenchmarkPostArrive(b *testing.B) {
	e := New()
	r := recv(1, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		e.Post(r)
		if e.Arrive(Key{1, 0, 1}) != r {
			b.Fatal("no match")
		}
	}
}

func BenchmarkUnexpected(b *testing.B) {
	e := New()
	m := msg(1, 0, 1)
	r := recv(1, AnySource, AnyTag)
	b.ReportAllocs()
	for b.Loop() {
		e.Enqueue(m)
		if e.Post(r) != m {
			b.Fatal("no match")
		}
	}
}

// A dropped context used again starts empty and is found again (the
// engine remembers the last context it looked up).
func TestDropThenReuse(t *testing.T) {
	e := New()
	old := recv(7, 0, 1)
	e.Post(old)
	if n, _ := e.Drop(7); n != 1 {
		t.Fatalf("Drop forgot %d receives, want 1", n)
	}
	if r := e.Arrive(Key{7, 0, 1}); r != nil {
		t.Fatal("a receive of a dropped context matched")
	}
	m := msg(7, 0, 1)
	e.Enqueue(m)
	e.Post(recv(8, 0, 1)) // another context in between
	if got := e.Probe(Key{7, 0, 1}); got != m {
		t.Fatalf("Probe after reuse = %v, want the new message", got)
	}
	if got := e.Post(recv(7, 0, 1)); got != m {
		t.Fatalf("Post after reuse = %v, want the new message", got)
	}
}

// Matching allocates nothing per message once a context has its bucket.
func TestNoAllocs(t *testing.T) {
	e := New()
	r, m := recv(1, AnySource, AnyTag), msg(1, 0, 1)
	e.Post(recv(1, 9, 9))
	allocs := testing.AllocsPerRun(100, func() {
		e.Post(r)
		if e.Arrive(Key{1, 0, 1}) != r {
			t.Fatal("no match")
		}
		e.Enqueue(m)
		if e.Probe(Key{1, 0, 1}) != m {
			t.Fatal("probe found nothing")
		}
		e.Take(m)
		e.Post(r)
		e.Cancel(r)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message", allocs)
	}
}
