package shm

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	_ "github.com/lamgo/lam/libmpi/rpi/tcp" // tcp's parameters, for the off-node half
	"github.com/lamgo/lam/shared/ssi"
)

// testRing is a ring's two ends over ordinary memory.
func testRing(dataSize int) (w, r *ring) {
	var slotTail, tail atomic.Uint64
	slots := make([]uint64, slotsSize/8) // aligned for the stamps
	sb := unsafe.Slice((*byte)(unsafe.Pointer(&slots[0])), slotsSize)
	data := make([]byte, dataSize)
	return newRing(&slotTail, &tail, sb, data, true), newRing(&slotTail, &tail, sb, data, false)
}

// TestRingWrapsAndSplits writes and reads (by copy and in place) at
// random and checks the stream comes out as it went in.
func TestRingWrapsAndSplits(t *testing.T) {
	w, r := testRing(64)
	rng := rand.New(rand.NewPCG(1, 2))
	var sent, got []byte
	buf := make([]byte, 100)
	for i := 0; i < 5000; i++ {
		// Writes that fit in a slot and writes through the data ring;
		// reads that take part of a slot, or several.
		a := make([]byte, rng.IntN(50))
		b := make([]byte, rng.IntN(50))
		for j := range a {
			a[j] = byte(rng.Uint32())
		}
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if rng.IntN(3) > 0 {
			n := w.write(a, b)
			if n > max(64, slotData) {
				t.Fatalf("wrote %d at once into a ring of %d", n, 64)
			}
			all := append(append([]byte(nil), a...), b...)
			sent = append(sent, all[:n]...)
		}
		if rng.IntN(4) == 0 {
			// Read in place what sits in one slot.
			if v, _ := r.peek(); v != nil {
				if len(v) > slotData {
					t.Fatalf("peek showed %d bytes", len(v))
				}
				got = append(got, v...)
				r.consume()
			}
			continue
		}
		k := r.read(buf[:rng.IntN(len(buf))])
		got = append(got, buf[:k]...)
	}
	for {
		k := r.read(buf)
		if k == 0 {
			break
		}
		got = append(got, buf[:k]...)
	}
	if !bytes.Equal(sent, got) {
		t.Fatalf("the ring changed the stream (%d bytes sent, %d read)", len(sent), len(got))
	}
	if len(sent) < 10000 {
		t.Fatalf("only %d bytes went through", len(sent))
	}
}

func TestRingFull(t *testing.T) {
	w, r := testRing(64)
	if n := w.write(make([]byte, 65), nil); n != 64 {
		t.Fatalf("a write of 65 bytes into a 64-byte data ring moved %d", n)
	}
	if n := w.write(make([]byte, slotData+1), nil); n != 0 {
		t.Fatalf("a full data ring took %d more bytes", n)
	}
	for i := 1; i < nSlots; i++ { // one slot is taken
		if w.write([]byte{byte(i)}, nil) != 1 {
			t.Fatalf("slot %d refused a byte", i)
		}
	}
	if n := w.write([]byte{1}, nil); n != 0 {
		t.Fatalf("a write with every slot taken moved %d bytes", n)
	}
	buf := make([]byte, 64+nSlots)
	if n := r.read(buf); n != 64+nSlots-1 {
		t.Fatalf("read %d bytes, want %d", n, 64+nSlots-1)
	}
	if n := w.write(make([]byte, slotData+1), nil); n != slotData+1 {
		t.Fatalf("after the reader emptied it, the ring took %d bytes", n)
	}
}

func TestRingSize(t *testing.T) {
	c := settings{short: 8192, poolsize: 16 << 20, maxalloc: 1 << 20}
	for _, tc := range []struct{ n, want int }{{1, 1 << 20}, {2, 1 << 20}, {8, 256 << 10}, {64, 16 << 10}} {
		if got := c.ringSize(tc.n); got != tc.want {
			t.Errorf("ringSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// job connects n transports of one job in this process, all on node 0
// except the ranks listed in other (node 1: reached through tcp).
func job(t testing.TB, mod Module, n int, other ...int) ([]rpi.Transport, [][]rpi.Link, string) {
	t.Helper()
	return jobWith(t, mod, ssi.NewSettings(nil, nil), n, other...)
}

// jobWith is job with the given settings.
func jobWith(t testing.TB, mod Module, settings *ssi.Settings, n int, other ...int) ([]rpi.Transport, [][]rpi.Link, string) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "lam-test-")
	ts := make([]rpi.Transport, n)
	peers := make([]rpi.Peer, n)
	for i := range ts {
		node := int32(0)
		for _, o := range other {
			if o == i {
				node = 1
			}
		}
		tr, err := mod.Open(context.Background(), &rpi.Job{Rank: i, Size: n, Node: node, Host: "127.0.0.1",
			Settings: settings, Timeout: 10 * time.Second, Shared: prefix, PID: os.Getpid()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		ts[i] = tr
		peers[i] = rpi.Peer{Rank: i, Node: node, Addr: tr.Addr()}
	}
	links := make([][]rpi.Link, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	secret := []byte("0123456789abcdef0123456789abcdef")
	for i := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			links[i], errs[i] = ts[i].Connect(context.Background(), peers, secret)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
	return ts, links, prefix
}

func TestLinksOnAndOffNode(t *testing.T) {
	ts, links, prefix := job(t, New("usysv", 40, true), 4, 3)
	// The segment's name is gone once the node's three processes mapped it.
	if m, _ := filepath.Glob(prefix + "*"); len(m) != 0 {
		t.Errorf("segment left behind: %v", m)
	}
	msg := make([]byte, 3<<20) // more than a ring holds
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	for _, pair := range [][2]int{{0, 1}, {2, 0}, {1, 2}, {0, 3}, {3, 2}} {
		a, b := pair[0], pair[1]
		rpitest.Exchange(t, links[a][b], links[b][a], msg)
		_, shmLink := links[a][b].(*link)
		if onNode := a != 3 && b != 3; shmLink != onNode {
			t.Errorf("link %d→%d: shared memory %v, want %v", a, b, shmLink, onNode)
		}
	}
	if links[0][1].(rpi.Shorter).Short() != 8192 {
		t.Error("the shared-memory eager limit is not rpi_usysv_short")
	}
	if p := ts[0].(rpi.Pacer).Pace(); p.SpinPolls != 10000 || !p.YieldOS {
		t.Errorf("usysv pace %+v", p)
	}
}

func TestRemoteRead(t *testing.T) {
	_, links, _ := job(t, New("sysv", 30, false), 2)
	src := bytes.Repeat([]byte("single copy "), 100000)
	dst := make([]byte, len(src))
	addr := uint64(uintptrOf(src))
	if err := links[1][0].(rpi.RemoteReader).ReadRemote(dst, addr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("remote read changed the bytes")
	}
}

func TestRemoteWrite(t *testing.T) {
	_, links, _ := job(t, New("usysv", 40, true), 2)
	src := bytes.Repeat([]byte("split copy "), 100000)
	dst := make([]byte, len(src))
	if err := links[1][0].(rpi.RemoteWriter).WriteRemote(src, uint64(uintptrOf(dst))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("remote write changed the bytes")
	}
}

func TestDoorbellWakes(t *testing.T) {
	ts, links, _ := job(t, New("sysv", 30, false), 2)
	w := ts[1].(rpi.Waiter)
	tok := w.Arm()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		time.Sleep(20 * time.Millisecond)
		links[0][1].Write([]byte("x"))
	}()
	start := time.Now()
	w.Sleep(tok, 5*time.Second)
	w.Disarm()
	<-wrote
	if time.Since(start) > 4*time.Second {
		t.Fatal("a write did not wake the sleeper")
	}
	// Armed after the write: the token is stale, no sleep.
	tok = w.Arm()
	links[0][1].Write([]byte("y"))
	start = time.Now()
	w.Sleep(tok, 5*time.Second)
	w.Disarm()
	if time.Since(start) > 4*time.Second {
		t.Fatal("a write between Arm and Sleep was lost")
	}
}

func TestSegmentRefusals(t *testing.T) {
	dir := t.TempDir()
	l := layout{n: 2, ringSize: 16 << 10}
	path := filepath.Join(dir, "seg")
	s, err := create(path, l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.unmap()
	if _, err := create(path, l); err == nil {
		t.Error("created a segment over an existing one")
	}
	if _, err := tryOpen(path, layout{n: 3, ringSize: 16 << 10}); err == nil {
		t.Error("opened a segment made for another layout")
	}
	os.Chmod(path, 0o644)
	if _, err := tryOpen(path, l); err == nil {
		t.Error("opened a segment others can read")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := open(ctx, filepath.Join(dir, "never"), l); err == nil {
		t.Error("waited for a segment nobody makes and got one")
	}
	link := filepath.Join(dir, "link")
	os.Symlink(path, link)
	if _, err := tryOpen(link, l); err == nil {
		t.Error("followed a symbolic link")
	}
}

// TestSingleCopySize: a link copies straight between the processes'
// buffers above rpi_*_single_copy, never above its ring's size.
func TestSingleCopySize(t *testing.T) {
	for _, tc := range []struct {
		args []ssi.Arg
		want int
	}{
		{nil, 64 << 10},
		{[]ssi.Arg{{Key: "rpi_usysv_single_copy", Value: "262144"}}, 256 << 10},
		{[]ssi.Arg{{Key: "rpi_usysv_single_copy", Value: "0"}}, 0},
		// Above the ring (maxalloc): the ring's size.
		{[]ssi.Arg{{Key: "rpi_usysv_single_copy", Value: "8388608"}}, 1 << 20},
		{[]ssi.Arg{{Key: "rpi_usysv_single_copy", Value: "8388608"}, {Key: "rpi_usysv_maxalloc", Value: "131072"}}, 128 << 10},
	} {
		_, links, _ := jobWith(t, New("usysv", 40, true), ssi.NewSettings(tc.args, nil), 2)
		if got := links[0][1].(rpi.RemoteReader).SingleCopy(); got != tc.want {
			t.Errorf("%v: single copy above %d, want %d", tc.args, got, tc.want)
		}
	}
}

func TestBadSettings(t *testing.T) {
	for _, env := range [][]string{
		{"LAM_MPI_SSI_rpi_usysv_short=-1"},
		{"LAM_MPI_SSI_rpi_usysv_poolsize=0"},
		{"LAM_MPI_SSI_rpi_usysv_readlockpoll=lots"},
		{"LAM_MPI_SSI_rpi_usysv_pollyield=maybe"},
		{"LAM_MPI_SSI_rpi_usysv_single_copy=-1"},
		{"LAM_MPI_SSI_rpi_usysv_single_copy=lots"},
	} {
		_, err := New("usysv", 40, true).Open(context.Background(), &rpi.Job{Settings: ssi.NewSettings(nil, env), Host: "127.0.0.1"})
		if err == nil {
			t.Errorf("%v accepted", env)
		}
	}
}

func TestMain(m *testing.M) {
	// What the usysv and sysv packages do (importing them here would be a
	// cycle).
	rpi.Register(New("usysv", 40, true))
	rpi.Register(New("sysv", 30, false))
	os.Exit(m.Run())
}

// A writer and a reader on two goroutines: the stream arrives whole and
// in order through slots and the data ring, both wrapping many times.
func TestRingConcurrent(t *testing.T) {
	w, r := testRing(256)
	const total = 1 << 20
	src := make([]byte, total)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	go func() {
		wr := rand.New(rand.NewPCG(5, 6))
		for sent := 0; sent < total; {
			n := min(1+wr.IntN(300), total-sent)
			k := min(wr.IntN(n+1), n)
			sent += w.write(src[sent:sent+k], src[sent+k:sent+n])
		}
	}()
	got := make([]byte, 0, total)
	buf := make([]byte, 512)
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < total {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d bytes arrived", len(got), total)
		}
		k := r.read(buf[:1+rng.IntN(len(buf))])
		got = append(got, buf[:k]...)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("the stream changed on the way")
	}
}
