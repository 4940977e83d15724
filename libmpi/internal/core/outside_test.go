package core

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
)

// TestOutsideLock checks what Outside says of the progress lock: taking
// it is a compare-and-swap of its word from 0 to 1, which excludes Go's
// own Lock, and giving it back the swap from 1 to 0.
func TestOutsideLock(t *testing.T) {
	e := New(Config{Rank: 0, Links: make([]rpi.Link, 1)})
	o := e.Outside(5)
	if !atomic.CompareAndSwapInt32(o.Lock, 0, 1) {
		t.Fatal("the lock word of an unlocked engine is not 0")
	}
	if e.mu.TryLock() {
		t.Fatal("TryLock succeeded with the lock taken through its word")
	}
	if !atomic.CompareAndSwapInt32(o.Lock, 1, 0) {
		t.Fatal("the word of a lock taken with no waiter is not 1")
	}
	if !e.mu.TryLock() {
		t.Fatal("TryLock failed after the word was given back")
	}
	if atomic.CompareAndSwapInt32(o.Lock, 0, 1) {
		t.Fatal("the word was taken while Go holds the lock")
	}
	o.Unlock()
	if !atomic.CompareAndSwapInt32(o.Lock, 0, 1) {
		t.Fatal("Outside's Unlock did not give the lock back")
	}
	o.Unlock() // the lock taken through the word, given back by Go
	if !e.mu.TryLock() {
		t.Fatal("TryLock failed after Unlock of a lock taken through its word")
	}
	e.mu.Unlock()
}

// TestOutsideState checks that the addresses Outside gives read the
// engine's state: the queue heads, a peer's queued frames and death.
func TestOutsideState(t *testing.T) {
	e := New(Config{Rank: 0, Links: []rpi.Link{nil, idleLink{}}})
	const ctx = 9
	o := e.Outside(ctx)
	p := o.Peers[1]
	if *o.Recvs != nil || *o.Msgs != nil {
		t.Fatal("the queues of a new context are not empty")
	}
	r := e.NewRecv(make([]byte, 1), 1, 3, ctx)
	e.Start(r)
	if *o.Recvs == nil {
		t.Error("a posted receive leaves the receive queue's head nil")
	}
	e.Cancel(r)
	if *o.Recvs != nil {
		t.Error("the receive queue's head is not nil once its receive is cancelled")
	}
	if *p.OutHead != *p.OutLen || *p.Dead != 0 || *p.InBody || *p.Rpos != *p.Rend {
		t.Fatal("a fresh peer shows queued frames, death, or bytes read")
	}
	e.mu.Lock()
	h := header{typ: frameSAck}
	e.peers[1].queue(&h, nil, nil)
	if *p.OutHead == *p.OutLen {
		t.Error("a queued frame does not show in OutHead < OutLen")
	}
	e.peerDied(e.peers[1], errors.New("gone"))
	if *p.Dead == 0 {
		t.Error("a dead peer's Dead word is 0")
	}
	e.mu.Unlock()
}
