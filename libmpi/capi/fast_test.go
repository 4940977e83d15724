package main

import (
	"testing"
	"unsafe"

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
