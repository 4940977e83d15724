package task

import (
	"sync"
	"testing"
)

func TestEnterLeave(t *testing.T) {
	if _, ok := Current(); ok {
		t.Fatal("a call before any Enter")
	}
	m := Enter(Recv, CommWorld, 7, 3, 5, 201, 4, TypeOf[int32]())
	c, ok := Current()
	want := Call{Fn: Recv, CommKind: CommWorld, Type: TypeInt, Peer: 3, PeerW: 5, Tag: 201, Context: 7, Count: 4}
	if !ok || c != want {
		t.Fatalf("Current = %+v %v, want %+v", c, ok, want)
	}
	if c.Fn.Name() != "Recv" || c.Type.String() != "INT" {
		t.Errorf("names %q %q", c.Fn.Name(), c.Type)
	}
	m.Leave()
	if _, ok := Current(); ok {
		t.Fatal("a call after Leave")
	}
}

func TestNegativeFields(t *testing.T) {
	m := Enter(Probe, CommOther, 1<<31, AnyPeer, -1, NoTag, 0, TypeNone)
	defer m.Leave()
	c, _ := Current()
	if c.Peer != AnyPeer || c.Tag != NoTag || c.Context != 1<<31 || c.PeerW != -1 {
		t.Fatalf("got %+v", c)
	}
}

func TestLeaveKeepsOtherCall(t *testing.T) {
	a := Enter(Recv, CommWorld, 1, 0, 0, 1, 1, TypeByte)
	b := Enter(Barrier(), CommWorld, 1, NoPeer, -1, NoTag, 0, TypeNone)
	a.Leave() // a's call was replaced by b's: b stays
	if c, ok := Current(); !ok || c.Fn != Barrier() {
		t.Fatalf("got %+v %v", c, ok)
	}
	b.Leave()
}

func Barrier() Fn { return FnColl + 1 }

func TestTypeOf(t *testing.T) {
	type myInt int32
	for _, tc := range []struct {
		got, want Type
	}{
		{TypeOf[byte](), TypeByte}, {TypeOf[int32](), TypeInt}, {TypeOf[myInt](), TypeInt},
		{TypeOf[float64](), TypeDouble}, {TypeOf[complex128](), TypeDComplex}, {TypeOf[struct{}](), TypeDerived},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
}

// TestConsistent checks that a reader never sees a mix of two calls.
func TestConsistent(t *testing.T) {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int32(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			Enter(Send, CommWorld, uint32(i), i, i, i, int(i), TypeInt).Leave()
		}
	}()
	for range 100000 {
		if c, ok := Current(); ok && (c.Peer != c.Tag || c.Peer != int32(c.Context) || c.Count != c.Peer) {
			t.Fatalf("torn read %+v", c)
		}
	}
	close(stop)
	wg.Wait()
}

func BenchmarkEnterLeave(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Enter(Recv, CommWorld, 1, 2, 2, 3, 4, TypeInt).Leave()
	}
}

func TestTrace(t *testing.T) {
	Enter(Recv, CommWorld, 0, 1, 1, 5, 1, TypeInt).Leave() // off: nothing recorded
	if ev, _ := Events(); len(ev) != 0 {
		t.Fatalf("recorded while off: %+v", ev)
	}
	SetTracing(true) // not enabled: stays off
	if Tracing() {
		t.Fatal("SetTracing turned on tracing that was never enabled")
	}
	EnableTracing(true)
	defer EnableTracing(false)
	TraceSend(Send, 0, 2, 7, 3).End()
	Enter(Recv, CommWorld, 0, 1, 1, 5, 4, TypeInt).Leave()
	Enter(Send, CommWorld, 0, 2, 2, 7, 3, TypeInt).Leave() // the blocking part of a send: TraceSend has it
	SetTracing(false)
	TraceSend(Send, 0, 2, 7, 3).End()
	ev, dropped := Events()
	if dropped != 0 || len(ev) != 4 {
		t.Fatalf("events %+v dropped %d", ev, dropped)
	}
	want := []Event{{Fn: Send, Begin: true, Peer: 2, Tag: 7, Count: 3}, {Fn: Send, Peer: -1},
		{Fn: Recv, Begin: true, Peer: 1, Tag: 5, Count: 4}, {Fn: Recv, Peer: -1}}
	for i := range want {
		got := ev[i]
		if got.T == 0 || (i > 0 && got.T < ev[i-1].T) {
			t.Errorf("event %d time %d", i, got.T)
		}
		got.T = 0
		if got != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got, want[i])
		}
	}
}
