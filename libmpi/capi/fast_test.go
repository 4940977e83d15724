package main

import (
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll/shmem"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

// TestFastMirror checks fast.h's copy of the ring geometry and the frame
// protocol against the Go originals, so that the C fast path cannot drift
// from them.
func TestFastMirror(t *testing.T) {
	want := map[string]uint64{
		"SlotSize":   shm.SlotSize,
		"SlotData":   shm.SlotData,
		"NSlots":     shm.NSlots,
		"StampData":  shm.StampData,
		"HeaderSize": core.HeaderSize,
		"FrameEager": core.FrameEager,
		"intptr_t":   uint64(unsafe.Sizeof(int(0))),
	}
	got := fastMirror()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("fast.h's %s is %d, Go's %d", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("fast.h mirrors %d values, the test checks %d", len(got), len(want))
	}
	for _, h := range []struct {
		context     uint32
		source, tag int32
		length      uint64
	}{
		{0, 0, 0, 0},
		{1, 1, 1, 1},
		{0xfedcba98, 1<<31 - 1, 1<<31 - 1, 16},
		{7, -2, -1, 1 << 40},
	} {
		c, g := fastHeader(h.context, h.source, h.tag, h.length), core.EagerHeader(h.context, h.source, h.tag, h.length)
		if c != g {
			t.Errorf("header %+v: fast.c writes %x, the core %x", h, c, g)
		}
	}
}

// TestFastCollMirror checks fastcoll.h's copy of the shmem area's layout
// against the Go original.
func TestFastCollMirror(t *testing.T) {
	want := shmem.Mirror()
	got := fastCollMirror()
	for k, v := range got {
		if want[k] != v {
			t.Errorf("fastcoll.h's %s is %d, shmem's %d", k, v, want[k])
		}
	}
	if want["offDigest"] != want["offSync"]+16 || got["offDigest"] != got["offSync"]+16 {
		t.Errorf("the digests no longer follow the arrivals' flag: %v", want)
	}
}

// TestFastCollKernels checks the C path's reduction kernels against the
// Go ones for every kernel fcKernel gives, on values that overflow.
func TestFastCollKernels(t *testing.T) {
	kernels := 0
	for h := 1; h < len(reds); h++ {
		for op := 1; op <= 10; op++ { // MPI_MAX .. MPI_BXOR
			k := fcKernel(_Ctype_int(h), _Ctype_int(op))
			if k == 0 {
				continue
			}
			kernels++
			n := 8 // elements
			in, inout := fcTestBytes(reds[h].stride*n, 1), fcTestBytes(reds[h].stride*n, 2)
			want := append([]byte(nil), inout...)
			if rc := capi_Reduce_local(unsafe.Pointer(&in[0]), unsafe.Pointer(&want[0]), _Ctype_int(n), _Ctype_int(h), _Ctype_int(op)); rc != 0 {
				t.Fatalf("type %d op %d: MPI_Reduce_local = %d", h, op, rc)
			}
			if rc := fastCollReduce(k, in, inout); rc != 0 {
				t.Fatalf("type %d op %d: lamgo_fcoll_reduce(%d) = %d", h, op, k, rc)
			}
			if string(inout) != string(want) {
				t.Errorf("type %d op %d: C gives %x, Go %x", h, op, inout, want)
			}
		}
	}
	if kernels < 8*10+2*2 {
		t.Errorf("%d kernels: fewer than 8 integer types' 10 ops and float's and double's 2", kernels)
	}
}

// fcTestBytes is n bytes of values that overflow in sums and products,
// with zeros among them (for the logical ops), varied by seed.
func fcTestBytes(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*37+int(seed)*101) ^ 0x5a
		if i%7 == int(seed) {
			b[i] = 0
		}
	}
	return b
}
