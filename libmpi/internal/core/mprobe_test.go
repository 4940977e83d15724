package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"
)

// Four goroutines each take any message with Mprobe and receive it with
// Imrecv, while two peers send eager and rendezvous messages: every
// message is received exactly once, whole.
func TestMprobeConcurrent(t *testing.T) {
	const short, perSender = 4096, 200
	es := job(t, 3, short)
	sizes := []int{8, 100, short, short + 1, 3 * short, 70000}
	msg := func(from, i int) []byte {
		b := bytes.Repeat([]byte{byte(from*31 + i)}, sizes[(i+from)%len(sizes)])
		binary.LittleEndian.PutUint32(b, uint32(from<<16|i))
		return b
	}
	for from := 1; from <= 2; from++ {
		go func() {
			reqs := make([]*Request, 0, perSender)
			for i := range perSender {
				r := es[from].NewSend(msg(from, i), 0, 0, from, i%7, 0, Standard)
				es[from].Start(r)
				reqs = append(reqs, r)
			}
			for _, r := range reqs {
				if err := es[from].Wait(ctx(t), r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var mu sync.Mutex
	got := map[uint32]int{}
	var wg sync.WaitGroup
	const total = 2 * perSender
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				n := 0
				for _, c := range got {
					n += c
				}
				mu.Unlock()
				if n >= total {
					return
				}
				m, ok := es[0].Improbe(0, AnySource, AnyTag)
				if !ok {
					time.Sleep(10 * time.Microsecond)
					continue
				}
				s := m.Status()
				buf := make([]byte, s.Count)
				r := es[0].Imrecv(buf, m)
				if err := es[0].Wait(ctx(t), r); err != nil {
					t.Error(err)
					return
				}
				rs := r.Status()
				id := binary.LittleEndian.Uint32(buf)
				from, i := int(id>>16), int(id&0xffff)
				if rs.Err != nil || rs.Source != s.Source || rs.Tag != s.Tag || rs.Count != s.Count ||
					from != s.Source || s.Tag != i%7 || !bytes.Equal(buf, msg(from, i)) {
					t.Errorf("message %d from %d: probed %+v, received %+v", i, from, s, rs)
				}
				if es[0].Imrecv(buf, m) != nil {
					t.Error("a message received twice")
				}
				mu.Lock()
				got[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(got) != total {
		t.Errorf("%d distinct messages, want %d", len(got), total)
	}
	for id, c := range got {
		if c != 1 {
			t.Errorf("message %x received %d times", id, c)
		}
	}
}

// The same with the blocking Mprobe, four goroutines waiting at once.
func TestMprobeWaits(t *testing.T) {
	const short, n = 4096, 40
	es := job(t, 2, short)
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 4 {
				m, err := es[0].Mprobe(ctx(t), 0, AnySource, 3)
				if err != nil {
					t.Error(err)
					return
				}
				buf := make([]byte, m.Status().Count)
				r := es[0].Imrecv(buf, m)
				if err := es[0].Wait(ctx(t), r); err != nil || r.Status().Err != nil {
					t.Error(err, r.Status().Err)
					return
				}
				mu.Lock()
				got[int(buf[0])]++
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		send(t, es[1], bytes.Repeat([]byte{byte(i)}, 1+i%2*2*short), 0, 3, Standard)
	}
	wg.Wait()
	for i := range n {
		if got[i] != 1 {
			t.Errorf("message %d received %d times", i, got[i])
		}
	}
}

// A matched rendezvous message is no longer receivable by others, and
// its sender gets its clear-to-send only when Mrecv gives the buffer.
func TestMprobeRendezvous(t *testing.T) {
	const short = 4096
	es := job(t, 2, short)
	big := bytes.Repeat([]byte{7}, 3*short)
	s := es[1].NewSend(big, 0, 0, 1, 5, 0, Standard)
	es[1].Start(s)
	m, err := es[0].Mprobe(ctx(t), 0, 1, 5)
	if err != nil || m.Status().Count != len(big) {
		t.Fatalf("mprobe: %v %+v", err, m)
	}
	send(t, es[1], []byte{1, 2}, 0, 5, Standard)
	small := make([]byte, 2)
	if st := wait(t, es[0], irecv(es[0], small, 1, 5)); st.Count != 2 || small[1] != 2 {
		t.Errorf("the receive after the probe got %+v", st)
	}
	for range 100 {
		es[0].Progress()
		es[1].Progress()
	}
	if s.Done() {
		t.Fatal("the sender completed before Mrecv gave a buffer")
	}
	sent := make(chan Status)
	go func() {
		es[1].Wait(ctx(t), s)
		sent <- s.Status()
	}()
	buf := make([]byte, len(big))
	r := es[0].Imrecv(buf, m)
	if st := wait(t, es[0], r); st.Err != nil || !bytes.Equal(buf, big) {
		t.Errorf("mrecv: %+v", st)
	}
	if st := <-sent; st.Err != nil {
		t.Errorf("send: %+v", st)
	}
	if _, ok := es[0].Improbe(0, AnySource, AnyTag); ok {
		t.Error("a message left over")
	}
}

// A synchronous send to self completes when its matched message is
// received, and cannot be cancelled once matched.
func TestMprobeSelf(t *testing.T) {
	es := job(t, 1, 4096)
	e := es[0]
	s := e.NewSend([]byte{9, 8, 7}, 0, 0, 0, 4, 0, Sync)
	e.Start(s)
	m, ok := e.Improbe(0, 0, 4)
	if !ok {
		t.Fatal("no message")
	}
	e.Cancel(s)
	if s.Done() {
		t.Fatal("the synchronous send completed before its receive")
	}
	buf := make([]byte, 2)
	r := e.Imrecv(buf, m)
	if st := wait(t, e, r); !errors.Is(st.Err, ErrTruncate) || st.Count != 2 || buf[1] != 8 {
		t.Errorf("mrecv: %+v", st)
	}
	if st := wait(t, e, s); st.Cancelled || st.Err != nil {
		t.Errorf("send: %+v", st)
	}
}

// The sender of a matched rendezvous message dies before Mrecv: the
// receive fails instead of waiting for ever.
func TestMprobeDeadSender(t *testing.T) {
	es := job(t, 2, 4096)
	s := es[1].NewSend(make([]byte, 10000), 0, 0, 1, 5, 0, Standard)
	es[1].Start(s)
	m, err := es[0].Mprobe(ctx(t), 0, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	es[1].peers[0].link.Close()
	for range 10 {
		es[0].Progress()
	}
	r := es[0].Imrecv(make([]byte, 10000), m)
	if st := wait(t, es[0], r); !errors.Is(st.Err, ErrDeadPeer) {
		t.Errorf("mrecv: %+v", st)
	}
}
