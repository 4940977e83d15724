package release

import (
	"sync/atomic"
	"testing"
)

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
