package shm

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// engines makes two MPI cores joined by a usysv link, in this process.
func engines(b *testing.B) [2]*core.Engine {
	ts, links, _ := job(b, New("usysv", 40, true), 2)
	var es [2]*core.Engine
	for i := range es {
		es[i] = core.New(core.Config{Rank: i, Links: links[i], Short: ts[i].Short(), Pace: ts[i].(rpi.Pacer).Pace(), Waiter: ts[i].(rpi.Waiter)})
	}
	b.Cleanup(func() {
		for _, e := range es {
			e.Close(context.Background())
		}
	})
	return es
}

// BenchmarkPingPong is a 1-byte ping-pong through the MPI core over a
// shared-memory link, between two goroutines of this process (each
// locked to a thread): the cost of the rings and the core together.
func BenchmarkPingPong(b *testing.B) {
	es := engines(b)
	ping, pong := make([]byte, 1), make([]byte, 1)
	s0 := es[0].NewSend(ping, 1, 1, 0, 1, 0, core.Standard)
	r0 := es[0].NewRecv(pong, 1, 1, 0)
	s1 := es[1].NewSend(pong, 0, 0, 1, 1, 0, core.Standard)
	r1 := es[1].NewRecv(ping, 0, 1, 0)
	c := context.Background()
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		for i := 0; i < b.N; i++ {
			es[1].Start(r1)
			es[1].Wait(c, r1)
			es[1].Start(s1)
			es[1].Wait(c, s1)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		es[0].Start(s0)
		es[0].Wait(c, s0)
		es[0].Start(r0)
		es[0].Wait(c, r0)
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N)/1000, "µs/one-way")
}

// BenchmarkRingPingPong is the floor under BenchmarkPingPong: 41 bytes
// (a frame header and one byte) each way through the rings alone.
func BenchmarkRingPingPong(b *testing.B) {
	_, links, _ := job(b, New("usysv", 40, true), 2)
	msg := make([]byte, 41)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		buf := make([]byte, 64<<10)
		for i := 0; i < b.N; i++ {
			for n := 0; n < len(msg); {
				k, _ := links[1][0].Read(buf)
				n += k
			}
			links[1][0].Write(msg)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, 64<<10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		links[0][1].Write(msg)
		for n := 0; n < len(msg); {
			k, _ := links[0][1].Read(buf)
			n += k
		}
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N)/1000, "µs/one-way")
}

// BenchmarkSendRecvCost is the software cost of one eager 1-byte message
// through the core and a ring, without another processor: one goroutine
// sends on one engine and receives on the other, as the blocking calls
// do, and through requests started and waited for.
func BenchmarkSendRecvCost(b *testing.B) {
	es := engines(b)
	ping, pong := make([]byte, 1), make([]byte, 1)
	c := context.Background()
	b.Run("blocking", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !es[0].SendNow(ping, 1, 0, 1, 0) {
				b.Fatal("not sent")
			}
			if _, _, n, err := es[1].RecvNow(c, pong, 0, 1, 0, nil); err != nil || n != 1 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("requests", func(b *testing.B) {
		s := es[0].NewSend(ping, 1, 1, 0, 1, 0, core.Standard)
		r := es[1].NewRecv(pong, 0, 1, 0)
		b.ReportAllocs()
		for b.Loop() {
			es[1].Start(r)
			es[0].Start(s)
			es[0].Wait(c, s)
			es[1].Wait(c, r)
		}
	})
}

// BenchmarkStridedCost is the software cost of moving strided float64
// data (every other one of a buffer: 8-byte pieces) through the core and
// a usysv ring, without another processor (one goroutine sends on one
// engine and receives on the other; the ring is made large enough to
// hold the message, sent eagerly): as layouts, gathered into the ring and
// scattered from it, against packing into a new buffer, sending that and
// unpacking the new buffer received, as derived-datatype sends did
// before layouts.
func BenchmarkStridedCost(b *testing.B) {
	settings := ssi.NewSettings([]ssi.Arg{{Key: "rpi_usysv_short", Value: "4194304"}, {Key: "rpi_usysv_maxalloc", Value: "16777216"}}, nil)
	ts, links, _ := jobWith(b, New("usysv", 40, true), settings, 2)
	var es [2]*core.Engine
	for i := range es {
		es[i] = core.New(core.Config{Rank: i, Links: links[i], Short: ts[i].Short(), Pace: ts[i].(rpi.Pacer).Pace(), Waiter: ts[i].(rpi.Waiter)})
	}
	b.Cleanup(func() {
		for _, e := range es {
			e.Close(context.Background())
		}
	})
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
		for _, packed := range []bool{false, true} {
			name := "layout"
			if packed {
				name = "packed"
			}
			b.Run(fmt.Sprintf("%dKiB/%s", size>>10, name), func(b *testing.B) { stridedCost(b, es, size, packed) })
		}
	}
}

func stridedCost(b *testing.B, es [2]*core.Engine, size int, packed bool) {
	n := size / 8
	lay := func() *rpi.Layout {
		return &rpi.Layout{Base: make([]byte, 16*n), Blocks: []rpi.Block{{Off: 0, Len: 8}}, Count: n, Extent: 16, Size: 8}
	}
	src, dst := lay(), lay()
	c := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		var sbuf, rbuf []byte
		if packed {
			sbuf, rbuf = make([]byte, size), make([]byte, size) // what Pack and the receive allocated
			cur := src.Cursor()
			cur.CopyOut(sbuf)
		}
		s := es[0].NewSend(sbuf, 1, 1, 0, 1, 0, core.Standard)
		r := es[1].NewRecv(rbuf, 0, 1, 0)
		if !packed {
			s.SetLayout(src)
			r.SetLayout(dst)
		}
		es[0].Start(s)
		es[1].Start(r)
		if err := es[1].Wait(c, r); err != nil || r.Status().Err != nil || r.Status().Count != size {
			b.Fatal(err, r.Status())
		}
		if err := es[0].Wait(c, s); err != nil {
			b.Fatal(err)
		}
		if packed {
			cur := dst.Cursor()
			cur.CopyIn(rbuf)
		}
	}
}
