package core

import (
	"testing"
)

func TestPersistent(t *testing.T) {
	es := job(t, 2, 4096)
	sbuf, rbuf := make([]byte, 4), make([]byte, 4)
	s := es[1].NewSend(sbuf, 0, 0, 1, 80, 0, Standard)
	s.Persistent = true
	r := es[0].NewRecv(rbuf, 1, 80, 0)
	r.Persistent = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			sbuf[0] = byte(i)
			es[1].Start(s)
			es[1].Wait(ctx(t), s)
		}
	}()
	for i := 0; i < 50; i++ {
		es[0].Start(r)
		wait(t, es[0], r)
		if rbuf[0] != byte(i) {
			t.Fatalf("iteration %d got %d", i, rbuf[0])
		}
	}
	<-done
}
