package shmem

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pace is how a test's area waits: spinning, yielding then sleeping (a
// node with processors to spare), yielding then sleeping
// (oversubscribed), or sleeping at once.
var paces = []struct {
	name              string
	spinPolls         int
	spinFor, yieldFor time.Duration
}{
	{"spin", 10, 50 * time.Microsecond, time.Millisecond},
	{"yield", 16, 0, time.Millisecond},
	{"sleep", 16, 0, 0},
}

// A process waiting for a peer that died gets an error, not a hang; one
// waiting for a live peer that raises the flag late gets it.
func TestAwait(t *testing.T) {
	for _, p := range paces {
		t.Run(p.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "60")
			if err := cmd.Start(); err != nil {
				t.Skip("no sleep(1):", err)
			}
			fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Skip("no pidfd:", err)
			}
			defer unix.Close(fd)
			g := geometry{n: 2, chunk: line, segs: 1}
			mem := make([]byte, g.size())
			a := &area{geometry: g, mem: mem, pidfds: []int{-1, fd},
				spinPolls: p.spinPolls, spinFor: p.spinFor, yieldFor: p.yieldFor, siblings: true, name: "test"}
			flag := a.flagAt(a.postAt(1), a.postAt(1)+offSleep)
			a.syncFlags()

			// Late but alive: the writer wakes a sleeper.
			go func() {
				time.Sleep(30 * time.Millisecond)
				a.publish(flag, 1)
			}()
			if err := a.await(flag, 1, 1); err != nil {
				t.Fatalf("a live peer: %v", err)
			}
			if n := flag.sleepers.Load(); n != 0 {
				t.Fatalf("%d sleepers left counted", n)
			}

			cmd.Process.Kill()
			cmd.Wait()
			done := make(chan error, 1)
			go func() { done <- a.await(flag, 2, 1) }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrPeerGone) {
					t.Fatalf("a dead peer: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("waiting for a dead peer hangs")
			}
			// A synchronising round notices any dead peer.
			go func() { _, err := a.sync(); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrPeerGone) {
					t.Fatalf("a dead peer in a synchronising round: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a synchronising round with a dead peer hangs")
			}
		})
	}
}

// No process leaves a synchronising round before every process arrived
// at it, whether the others are late (sleepers) or not; and the digests
// of the argument check are those of the same round.
func TestSync(t *testing.T) {
	for _, p := range paces {
		for _, n := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("%s/n=%d", p.name, n), func(t *testing.T) {
				g := geometry{n: n, chunk: line, segs: 1}
				mem := make([]byte, g.size())
				const rounds = 300
				var arrived [rounds + 1]atomic.Int32
				errs := make([]error, n)
				var wg sync.WaitGroup
				for me := range n {
					a := &area{geometry: g, mem: mem, me: me, pidfds: make([]int, n), name: "test",
						spinPolls: p.spinPolls, spinFor: p.spinFor, yieldFor: p.yieldFor, siblings: true}
					for q := range n {
						a.pidfds[q] = -1
					}
					a.syncFlags()
					wg.Add(1)
					go func() {
						defer wg.Done()
						for k := 1; k <= rounds; k++ {
							if (k+me)%7 == 0 {
								time.Sleep(time.Duration(me*50) * time.Microsecond)
							}
							arrived[k].Add(1)
							d := uint64(k*1000 + k%3)
							if me == k%n && k%11 == 0 {
								d++ // this process disagrees in this round
							}
							same, err := a.arrive(d)
							if err != nil {
								errs[me] = err
								return
							}
							if got := arrived[k].Load(); got != int32(n) {
								errs[me] = fmt.Errorf("round %d: left with %d of %d arrived", k, got, n)
								return
							}
							if want := k%11 != 0; same != want {
								errs[me] = fmt.Errorf("round %d: agreement %v, want %v", k, same, want)
								return
							}
						}
					}()
				}
				finished := make(chan struct{})
				go func() { wg.Wait(); close(finished) }()
				select {
				case <-finished:
				case <-time.After(time.Minute):
					t.Fatalf("synchronising rounds hang (errors so far: %v)", errs)
				}
				for r, err := range errs {
					if err != nil {
						t.Errorf("process %d: %v", r, err)
					}
				}
			})
		}
	}
}

// TestSyncLines checks the sync lines' layout: the two lines (one per
// parity of the round's number) apart, each holding its count, sleepers,
// every process's digest and, where they fit, input slot, apart from each
// other; a round's count, digests and inputs in the line's first 64 bytes
// wherever there are inputs; the post lines after both.
func TestSyncLines(t *testing.T) {
	for _, tt := range []struct{ n, slot int }{{2, 16}, {3, 8}, {4, 0}, {5, 0}, {12, 0}, {13, 0}, {40, 0}} {
		g := geometry{n: tt.n, chunk: line, segs: 1}
		if got := g.syncSlot(); got != tt.slot {
			t.Errorf("n=%d: slot of %d bytes, want %d", tt.n, got, tt.slot)
		}
		a := &area{geometry: g, mem: make([]byte, g.size())}
		at := func(p unsafe.Pointer) int { return int(uintptr(p) - uintptr(unsafe.Pointer(&a.mem[0]))) }
		for k := uint64(1); k <= 2; k++ {
			base := g.syncAt(k)
			if other := g.syncAt(k + 1); base%line != 0 || (other-base != g.syncStride() && base-other != g.syncStride()) {
				t.Fatalf("n=%d: sync lines at %d and %d, stride %d", tt.n, base, other, g.syncStride())
			}
			used := map[int]string{}
			mark := func(what string, from, to int) {
				if from < base || to > base+g.syncStride() {
					t.Fatalf("n=%d round %d: %s [%d, %d) outside its sync line [%d, %d)", tt.n, k, what, from, to, base, base+g.syncStride())
				}
				for b := from; b < to; b++ {
					if u, ok := used[b]; ok {
						t.Fatalf("n=%d round %d: %s overlaps %s at %d", tt.n, k, what, u, b)
					}
					used[b] = what
				}
			}
			mark("count and sleepers", base, base+16)
			for i := range tt.n {
				d := at(unsafe.Pointer(a.digest(i, k)))
				mark(fmt.Sprintf("digest %d", i), d, d+8)
				if tt.slot > 0 {
					in := a.syncData(i, k, tt.slot)
					from := at(unsafe.Pointer(&in[0]))
					mark(fmt.Sprintf("input %d", i), from, from+tt.slot)
					if from+tt.slot > base+syncHalf {
						t.Errorf("n=%d round %d: input %d ends at %d, past the line's first %d bytes", tt.n, k, i, from+tt.slot-base, syncHalf)
					}
				}
			}
		}
		if g.posts() != offSync+2*g.syncStride() {
			t.Errorf("n=%d: posts at %d, the sync lines end at %d", tt.n, g.posts(), offSync+2*g.syncStride())
		}
	}
}

// TestGeometry checks that no two parts of an area overlap, whatever the
// number of buffers: each process's lane lines, digests, calls and
// buffers lie apart from each other and from every other process's.
func TestGeometry(t *testing.T) {
	for _, tt := range []struct{ n, pool, segs int }{
		{2, 131072, 8}, {3, 4096, 2}, {4, 131072, 1}, {2, 16384 * 16, 16}, {3, 16384 * 17, 17}, {4, 40960, 40}, {5, 1 << 22, maxSegs},
	} {
		t.Run(fmt.Sprintf("n=%d/pool=%d/segs=%d", tt.n, tt.pool, tt.segs), func(t *testing.T) {
			g := newGeometry(tt.n, config{pool: tt.pool, segs: tt.segs})
			a := &area{geometry: g, mem: make([]byte, g.size())}
			type part struct {
				name     string
				from, to int
			}
			var parts []part
			at := func(b []byte) int { return int(uintptr(unsafe.Pointer(&b[0])) - uintptr(unsafe.Pointer(&a.mem[0]))) }
			for i := range tt.n {
				parts = append(parts, part{fmt.Sprintf("post %d", i), g.postAt(i), g.postAt(i) + line},
					part{fmt.Sprintf("done %d", i), g.doneAt(i), g.doneAt(i) + line})
				for s := range uint64(laneSlots) {
					d := int(uintptr(unsafe.Pointer(a.callDigest(i, s))) - uintptr(unsafe.Pointer(&a.mem[0])))
					l := a.lane(i, s)
					if ld := at(a.laneData(i, s)); ld != l+laneData || ld+laneBytes != l+line {
						t.Fatalf("lane %d/%d: data at [%d, %d), the line at [%d, %d)", i, s, ld, ld+laneBytes, l, l+line)
					}
					parts = append(parts, part{fmt.Sprintf("lane %d/%d", i, s), l, l + line},
						part{fmt.Sprintf("digest %d/%d", i, s), d, d + 8},
						part{fmt.Sprintf("call %d/%d", i, s), at(a.call(i, s)), at(a.call(i, s)) + len(a.call(i, s))})
				}
				for s := range uint64(tt.segs) {
					parts = append(parts, part{fmt.Sprintf("in %d/%d", i, s), at(a.in(i, s)), at(a.in(i, s)) + g.chunk},
						part{fmt.Sprintf("out %d/%d", i, s), at(a.out(i, s)), at(a.out(i, s)) + g.chunk})
				}
			}
			for x, p := range parts {
				if p.from < g.posts() || p.to > g.size() {
					t.Fatalf("%s [%d, %d) outside [%d, %d)", p.name, p.from, p.to, g.posts(), g.size())
				}
				for _, q := range parts[x+1:] {
					if p.from < q.to && q.from < p.to {
						t.Fatalf("%s [%d, %d) overlaps %s [%d, %d)", p.name, p.from, p.to, q.name, q.from, q.to)
					}
				}
			}
		})
	}
}

// TestLargeReduce checks which reductions are lam_basic's: above the
// reduce size on two processes, above the copy size on more.
func TestLargeReduce(t *testing.T) {
	for _, tt := range []struct {
		n, large, copy, reduce, size int
		want                         bool
	}{
		{2, 1 << 20, 1 << 20, 64 << 10, 64 << 10, false},
		{2, 1 << 20, 1 << 20, 64 << 10, 64<<10 + 1, true},
		{3, 1 << 20, 1 << 20, 64 << 10, 64<<10 + 1, false},
		{8, 1 << 20, 1 << 20, 64 << 10, 1 << 20, false},
		{8, 1 << 20, 1 << 20, 64 << 10, 1<<20 + 1, true},
		{2, 32 << 10, 32 << 10, 64 << 10, 32<<10 + 1, true}, // the copy size is less
		{2, 0, 1 << 20, 64 << 10, 1 << 30, false},           // large size 0: never
		{4, 0, 1 << 20, 64 << 10, 1 << 30, false},
	} {
		a := &area{geometry: geometry{n: tt.n}, largeSize: tt.large, copySize: tt.copy, reduceSz: tt.reduce}
		if got := a.largeReduce(tt.size); got != tt.want {
			t.Errorf("n=%d large=%d copy=%d reduce=%d: largeReduce(%d) = %v, want %v", tt.n, tt.large, tt.copy, tt.reduce, tt.size, got, tt.want)
		}
	}
}

// TestLargeOne checks which Bcasts and Gathers are lam_basic's: above the large
// size on two processes (one message, which the rpi copies once), above
// the copy size on more.
func TestLargeOne(t *testing.T) {
	for _, tt := range []struct {
		n, large, copy, size int
		crowded              bool
		want, wantLarge      bool // largeOne's, and large's (Scatter's and Alltoall's)
	}{
		{2, 64 << 10, 1 << 20, 64 << 10, false, false, false},
		{2, 64 << 10, 1 << 20, 64<<10 + 1, false, true, true},
		{3, 64 << 10, 1 << 20, 64<<10 + 1, false, false, true},
		{3, 64 << 10, 1 << 20, 1<<20 + 1, false, true, true},
		{8, 64 << 10, 1 << 20, 1 << 20, false, false, true},
		{8, 2 << 20, 1 << 20, 2<<20 + 1, false, true, true}, // the copy size is less: the large size
		{8, 2 << 20, 1 << 20, 2 << 20, false, false, false},
		{2, 0, 1 << 20, 1 << 30, false, false, false}, // large size 0: never
		{4, 0, 1 << 20, 1 << 30, false, false, false},
		// Two processes among more than the processors: the copy size.
		{2, 64 << 10, 1 << 20, 64<<10 + 1, true, false, false},
		{2, 64 << 10, 1 << 20, 1 << 20, true, false, false},
		{2, 64 << 10, 1 << 20, 1<<20 + 1, true, true, true},
		{2, 0, 1 << 20, 1 << 30, true, false, false},
	} {
		a := &area{geometry: geometry{n: tt.n}, largeSize: tt.large, copySize: tt.copy, oversubscribed: tt.crowded}
		if got := a.largeOne(tt.size); got != tt.want {
			t.Errorf("n=%d large=%d copy=%d crowded=%v: largeOne(%d) = %v, want %v", tt.n, tt.large, tt.copy, tt.crowded, tt.size, got, tt.want)
		}
		if got := a.large(tt.size); got != tt.wantLarge {
			t.Errorf("n=%d large=%d copy=%d crowded=%v: large(%d) = %v, want %v", tt.n, tt.large, tt.copy, tt.crowded, tt.size, got, tt.wantLarge)
		}
	}
}

// TestBufsFor checks the buffers a rooted collective's round takes (a
// span sized to the call, at most an eighth of the pool), and that spans
// of mixed sizes in a row number their rounds as they must: each span's
// buffers adjacent and inside the pool, its first round after the last
// one taken, none of the pool's buffers skipped but at its end.
func TestBufsFor(t *testing.T) {
	for _, tt := range []struct{ pool, segs, size, want int }{
		{1 << 20, 64, 0, 1}, {1 << 20, 64, 8, 1}, {1 << 20, 64, 16384, 1}, {1 << 20, 64, 16385, 2},
		{1 << 20, 64, 65536, 4}, {1 << 20, 64, 131072, 8}, {1 << 20, 64, 131073, 8}, {1 << 20, 64, 1 << 20, 8},
		{1 << 20, 16, 65536, 1}, {1 << 20, 16, 65537, 2}, {1 << 20, 16, 1 << 20, 2},
		{1 << 20, 32, 65536, 2}, {1 << 20, 32, 98304, 3}, {1 << 20, 32, 98305, 4},
		{4096, 2, 4096, 1}, {4096, 2, 8192, 1}, // fewer than 8 buffers: spans of one
	} {
		g := newGeometry(3, config{pool: tt.pool, segs: tt.segs})
		if got := g.bufsFor(tt.size); got != tt.want {
			t.Errorf("%d x %d bytes: bufsFor(%d) = %d, want %d", tt.segs, g.chunk, tt.size, got, tt.want)
		}
	}
	for _, segs := range []int{8, 20, 64} {
		g := newGeometry(3, config{pool: segs * 1024, segs: segs})
		a := &area{geometry: g}
		seq := []int{1, 2, g.spanBufs(), 1, g.spanBufs() - 1, 3, 1, 1, g.spanBufs(), 2}
		for i := range 200 {
			k := min(seq[i%len(seq)], g.spanBufs())
			before := a.step
			first, last := a.nextSpan(k)
			b := a.buf(first)
			switch {
			case last != first+uint64(k)-1 || last != a.step:
				t.Fatalf("segs %d, span %d of %d: rounds %d to %d, step %d", segs, i, k, first, last, a.step)
			case b+k > segs:
				t.Fatalf("segs %d, span %d of %d: buffers %d to %d past the pool's %d", segs, i, k, b, b+k-1, segs)
			case first <= before:
				t.Fatalf("segs %d, span %d: first round %d not after %d", segs, i, first, before)
			case first != before+1 && a.buf(before+1) == 0:
				t.Fatalf("segs %d, span %d of %d: skipped from buffer 0", segs, i, k)
			}
		}
	}
}
