package release

import (
	"sync/atomic"
	"testing"
)

func TestStores(t *testing.T) {
	for _, v := range []uint64{0, 1, 1<<32 + 5, ^uint64(0)} {
		var w uint64 = 0xdead
		Store64(&w, v)
		if w != v {
			t.Errorf("Store64(%#x) left %#x", v, w)
		}
		var h uint32 = 0xdead
		Store32(&h, uint32(v))
		if h != uint32(v) {
			t.Errorf("Store32(%#x) left %#x", uint32(v), h)
		}
	}
}

// TestPublish: a reader that sees the flag sees the data stored before
// it.
func TestPublish(t *testing.T) {
	const n = 100000
	var data, flag uint64
	var small uint32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := uint64(0); f < n; {
			f = atomic.LoadUint64(&flag)
			if d := atomic.LoadUint64(&data); d < f {
				t.Errorf("flag %d published before data %d", f, d)
				return
			}
			if s := atomic.LoadUint32(&small); uint64(s) < f {
				t.Errorf("flag %d published before the 32-bit store %d", f, s)
				return
			}
		}
	}()
	for i := uint64(1); i <= n; i++ {
		atomic.StoreUint64(&data, i)
		Store32(&small, uint32(i))
		Store64(&flag, i)
	}
	<-done
}
