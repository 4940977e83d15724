package main

import (
	"bytes"
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The derived-datatype transfer suite:
//
//	dtmove   every datatype constructor sent from rank 0 to rank 1 (others
//	         idle) at eager, rendezvous and single-copy sizes, with each
//	         send form, received with the same type, as bytes, and with
//	         another type of the same signature, and the packed bytes sent
//	         as bytes received with the type; the receiver's memory is
//	         compared with Pack/Unpack of the same data, and a receive too
//	         small must report a truncation; prints "dtmove ok"
func init() { suites["dtmove"] = dtmoveSuite }

// dtCase is a datatype to send, with a receive type of the same
// signature (per element) laid out differently.
type dtCase struct {
	name      string
	send      *mpi.Datatype
	other     *mpi.Datatype // one element of other has send's signature
	recvSame  bool          // the send type may be received into (no overlapping blocks)
	otherPerS int           // elements of other per element of send
}

func dtCases() []dtCase {
	// A vector with a negative stride, placed at a positive displacement
	// so that its blocks start inside the buffer.
	neg := mustV(mpi.TypeVector(5, 2, -3, mpi.Float64))
	negAt := mustV(mpi.TypeHindexed([]int{1}, []int{-neg.TrueLB()}, neg))
	over := mustV(mpi.TypeIndexed([]int{3, 2, 4}, []int{0, 1, 5}, mpi.Int32)) // blocks overlap: send only
	rec := mustV(mpi.TypeOf[dtRec]())
	sub := mustV(mpi.TypeCreateSubarray([]int{6, 5}, []int{3, 2}, []int{2, 1}, mpi.OrderC, mpi.Int16))
	res := mustV(mpi.TypeCreateResized(mustV(mpi.TypeVector(2, 1, 3, mpi.Int32)), -4, 40))
	resAt := mustV(mpi.TypeHindexed([]int{1}, []int{4}, res))
	marks := mustV(mpi.TypeStruct([]int{1, 2, 1, 1}, []int{-8, 4, 16, 48}, []*mpi.Datatype{mpi.LB, mpi.Int32, mpi.Float64, mpi.UB}))
	marksAt := mustV(mpi.TypeHindexed([]int{1}, []int{8}, marks))
	blk := mustV(mpi.TypeIndexedBlock(3, []int{7, 0, 12}, mpi.Uint8))
	hv := mustV(mpi.TypeHvector(4, 3, 40, mpi.Complex64))
	strided := mustV(mpi.TypeVector(64, 1, 2, mpi.Float64))
	return []dtCase{
		{"vector(-3)", negAt, mustV(mpi.TypeContiguous(10, mpi.Float64)), true, 1},
		{"indexed-overlap", over, mustV(mpi.TypeContiguous(9, mpi.Int32)), false, 1},
		{"struct", rec, mustV(mpi.TypeStruct([]int{1, 1, 1, 2, 1}, []int{40, 0, 8, 12, 20}, []*mpi.Datatype{mpi.Int8, mpi.Float64, mpi.Int32, mpi.Float32, mpi.Bool})), true, 1},
		{"subarray", sub, mustV(mpi.TypeContiguous(6, mpi.Int16)), true, 1},
		{"resized", resAt, mustV(mpi.TypeVector(2, 1, 5, mpi.Int32)), true, 1},
		{"lb-ub", marksAt, mustV(mpi.TypeStruct([]int{2, 1}, []int{8, 0}, []*mpi.Datatype{mpi.Int32, mpi.Float64})), true, 1},
		{"indexed-block", blk, mpi.Uint8, true, 9},
		{"hvector", hv, mustV(mpi.TypeVector(3, 4, 5, mpi.Complex64)), true, 1},
		{"strided", strided, mustV(mpi.TypeContiguous(16, mpi.Float64)), true, 4},
	}
}

// dtSpan is the bytes count elements of d cover from buf[0].
func dtSpan(d *mpi.Datatype, count int) int {
	if count == 0 {
		return 0
	}
	lo, ext := d.TrueLB(), d.TrueExtent()
	last := (count - 1) * d.Extent()
	return max(lo+ext, last+lo+ext)
}

// dtFill is a buffer of n bytes: a pattern of seed, or all seed.
func dtFill(n int, seed byte, pattern bool) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed
		if pattern {
			b[i] = seed + byte(i*13+i/256)
		}
	}
	return b
}

func dtmoveSuite(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	if size < 2 {
		fmt.Println("dtmove ok")
		return
	}
	tag := 0
	for _, c := range dtCases() {
		for _, target := range []int{0, 2000, 40000, 200000, 1200000} {
			count := 0
			if c.send.Size() > 0 {
				count = target / c.send.Size()
			}
			if target > 0 && count == 0 {
				count = 1
			}
			src := dtFill(dtSpan(c.send, count), byte(tag), true)
			packed := make([]byte, mpi.PackSize(count, c.send))
			mustOK("pack", mpi.Pack(src, count, c.send, packed, new(int)))
			for form := range 4 {
				if target > 40000 && form%2 == 0 {
					continue // long messages: the nonblocking and the synchronous persistent forms only
				}
				tag++
				name := fmt.Sprintf("%s count %d form %d", c.name, count, form)
				switch rank {
				case 0:
					dtSendForm(w, form, src, count, c.send, tag)
					// Contiguous data into the receiver's type (a long one
					// read in one copy straight into its blocks).
					mustOK("Send", mpi.Send(w, packed, 1, tag))
				case 1:
					dtRecvForm(w, form, c, count, packed, tag, name)
				}
			}
		}
	}
	mustOK("barrier", mpi.Barrier(w))
	if rank == 0 {
		fmt.Println("dtmove ok")
	}
}

// dtSendForm sends the same data four times, one send form after another
// (blocking, nonblocking, persistent started twice, synchronous
// persistent); the receiver takes them with as many receive forms.
func dtSendForm(w *mpi.Comm, form int, src []byte, count int, d *mpi.Datatype, tag int) {
	switch form {
	case 0:
		mustOK("SendType", mpi.SendType(w, src, count, d, 1, tag))
		mustOK("SendType", mpi.SendType(w, src, count, d, 1, tag))
		mustOK("SendType", mpi.SendType(w, src, count, d, 1, tag))
	case 1:
		for range 3 {
			r := mustV(mpi.IsendType(w, src, count, d, 1, tag))
			mustV(r.Wait())
		}
	case 2, 3:
		init := mpi.SendTypeInit
		if form == 3 {
			init = mpi.SsendTypeInit
		}
		r := mustV(init(w, src, count, d, 1, tag))
		for range 3 {
			mustOK("Start", r.Start())
			mustV(r.Wait())
		}
		r.Free()
	}
	// And once more, for the truncated receive.
	mustOK("SendType", mpi.SendType(w, src, count, d, 1, tag))
}

// dtRecvForm receives the form's three messages with the send's type (or
// the other type, if the send's overlaps), as bytes, and with the other
// type, then a fourth into too little room.
func dtRecvForm(w *mpi.Comm, form int, c dtCase, count int, packed []byte, tag int, name string) {
	recv := func(buf []byte, n int, d *mpi.Datatype) mpi.Status {
		switch form {
		case 1:
			r := mustV(mpi.IrecvType(w, buf, n, d, 0, tag))
			return mustV(r.Wait())
		case 2, 3:
			r := mustV(mpi.RecvTypeInit(w, buf, n, d, 0, tag))
			mustOK("Start", r.Start())
			st := mustV(r.Wait())
			r.Free()
			return st
		}
		return mustV(mpi.RecvType(w, buf, n, d, 0, tag))
	}
	check := func(what string, d *mpi.Datatype, n int) {
		dst := dtFill(dtSpan(d, n), 0xA5, false)
		want := bytes.Clone(dst)
		mustOK("unpack", mpi.Unpack(packed, new(int), want, n, d))
		st := recv(dst, n, d)
		if st.Bytes != len(packed) || !bytes.Equal(dst, want) {
			fail("%s, received %s: %d bytes (want %d), memory differs from Unpack: %v", name, what, st.Bytes, len(packed), !bytes.Equal(dst, want))
		}
	}
	same := c.send
	if !c.recvSame {
		same = c.other
	}
	sameN := count
	if !c.recvSame {
		sameN = count * c.otherPerS
	}
	check("with the same type", same, sameN)
	check("as bytes", mpi.Byte, len(packed))
	check("with another type", c.other, count*c.otherPerS)
	// Too little room: one element less.
	n := count*c.otherPerS - 1
	if n < 0 {
		n = 0
	}
	dst := dtFill(dtSpan(c.other, n), 0x5A, false)
	st, err := mpi.RecvType(w, dst, n, c.other, 0, tag)
	room := mpi.PackSize(n, c.other)
	switch {
	case len(packed) > room && mpi.Class(err) != mpi.ErrTruncate:
		fail("%s: a receive of %d bytes for %d: %v, want a truncation", name, room, len(packed), err)
	case len(packed) <= room && err != nil:
		fail("%s: %v", name, err)
	case len(packed) > room && st.Bytes != room:
		fail("%s: truncated receive reports %d bytes, want %d", name, st.Bytes, room)
	}
	want := dtFill(len(dst), 0x5A, false)
	mustOK("unpack", mpi.Unpack(packed[:room], new(int), want, n, c.other))
	if len(packed) > room && !bytes.Equal(dst, want) {
		fail("%s: the truncated receive's memory differs from Unpack", name)
	}
	check("sent as bytes", same, sameN)
}
