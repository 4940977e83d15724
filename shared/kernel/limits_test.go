package kernel_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/kernel"
	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/testenv"
	"github.com/lamgo/lam/shared/wire"
)

// The test binary runs a lone lamd in a child process (so that its
// descriptor limit is its own) when these are set; see lamdHelper.
const (
	lamdHelperPrefix = "KERNEL_TEST_LAMD_PREFIX"
	lamdHelperNofile = "KERNEL_TEST_LAMD_NOFILE"
)

// lamdHelper runs a lone lamd whose session lives under the prefix, with
// RLIMIT_NOFILE lowered once it listens, prints "ready" and serves until
// its standard input closes. It returns the exit code.
func lamdHelper(prefix string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	fail := func(err error) int { log.Error("lamd helper", "err", err); return 1 }
	secret, err := linkauth.NewSecret()
	if err != nil {
		return fail(err)
	}
	links, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	dir, err := helperSession(prefix)
	if err != nil {
		return fail(err)
	}
	u := &wire.Universe{ID: secret.ID(), Nodes: []wire.Node{{ID: 0, Host: "lone", Addr: "127.0.0.1", Link: links.Addr().String(), CPUs: 1}}}
	k, err := kernel.New(kernel.Config{Session: dir, Secret: secret, Universe: u, Self: 0, Links: links, Log: log, HaltTimeout: time.Second})
	if err != nil {
		return fail(err)
	}
	if n, err := strconv.ParseUint(os.Getenv(lamdHelperNofile), 10, 64); err == nil {
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fail(err)
		}
		lim.Cur = n
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fail(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- k.Run(ctx) }()
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	cancel()
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		return fail(err)
	}
	return 0
}

func helperSession(prefix string) (session.Dir, error) {
	return session.Resolve(session.Options{Prefix: prefix, Suffix: "lone", Getenv: func(string) string { return "" }})
}

// waitFor polls cond every 10ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// A lamd whose descriptors run out (EMFILE on accept) keeps its accept
// loop: once the clients that held them go, a tool is served again.
func TestAcceptSurvivesDescriptorExhaustion(t *testing.T) {
	prefix := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lamdHelperPrefix+"="+prefix, lamdHelperNofile+"=40")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testenv.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill() // the child this test started
			<-exited
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("lamd log:\n%s", stderr.String())
		}
	})
	dir, err := helperSession(prefix)
	if err != nil {
		t.Fatal(err)
	}
	// Listening, not just bound: the socket's file exists from bind(2),
	// before listen(2), and a dial between the two is refused.
	if !waitFor(5*time.Second, func() bool {
		c, err := net.Dial("unix", dir.Socket())
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatal("the lamd did not start")
	}

	var held []net.Conn
	for range 80 {
		c, err := net.Dial("unix", dir.Socket())
		if err != nil {
			t.Fatalf("connection %d: %v", len(held), err)
		}
		held = append(held, c)
	}
	if !waitFor(5*time.Second, func() bool { return strings.Contains(stderr.String(), "too many open files") }) {
		t.Fatal("the lamd never ran out of descriptors")
	}
	for _, c := range held {
		c.Close()
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := lamclient.Dial(ctx, dir, "limits", wire.RoleTool)
	if err != nil {
		t.Fatalf("after the clients left, a tool was not served: %v", err)
	}
	defer c.Close()
	if _, err := c.Nodes(ctx); err != nil {
		t.Fatalf("nodes after descriptor exhaustion: %v", err)
	}
	t.Logf("served again %v after the clients left", time.Since(start).Round(time.Millisecond))
	if n := strings.Count(stderr.String(), "too many open files"); n > 3 {
		t.Errorf("the accept failures were logged %d times, not once per burst", n)
	}
}

// MPI processes beyond boot_base_max_clients are refused at once, tools
// still get in (a few places are kept for them) until those are full too,
// and a client is served again once one of the others leaves.
func TestClientCap(t *testing.T) {
	const max, reserve = 8, 16
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, MaxClients: max})
	dial := func(role uint8) (*lamclient.Client, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return lamclient.Dial(ctx, u.Dir(0), "limits", role)
	}
	var held []*lamclient.Client
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	hold := func(role uint8, what string) {
		t.Helper()
		c, err := dial(role)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		held = append(held, c)
	}
	refused := func(role uint8, what string) {
		t.Helper()
		start := time.Now()
		c, err := dial(role)
		if err == nil {
			c.Close()
			t.Fatalf("%s was served", what)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s waited %v to be refused", what, d)
		}
		if lamclient.Code(err) != wire.CodeFull {
			// A client refused before it wrote its hello may see only
			// the closed connection.
			t.Logf("%s: refused without CodeFull: %v", what, err)
		} else if !strings.Contains(err.Error(), boot.ParamMaxClients) {
			t.Errorf("%s refused with %q, which does not name %s", what, err, boot.ParamMaxClients)
		}
	}
	// A refused client's place is free by the time it learns of the
	// refusal, so the count is exact after each.
	places := func(all, nonTools int) {
		t.Helper()
		if a, n := kernel.Places(u.Kernel(0)); a != all || n != nonTools {
			t.Errorf("places held: %d, %d of them not tools; want %d, %d", a, n, all, nonTools)
		}
	}
	for i := range max {
		hold(wire.RoleMPI, fmt.Sprintf("process %d of %d", i+1, max))
	}
	for i := range 4 {
		refused(wire.RoleMPI, fmt.Sprintf("process %d beyond the cap of %d", i+1, max))
		places(max, max)
	}
	for i := range reserve {
		hold(wire.RoleTool, fmt.Sprintf("tool %d beyond the cap of %d processes", i+1, max))
	}
	for i := range 4 {
		refused(wire.RoleTool, fmt.Sprintf("tool %d beyond the cap and the tools' places", i+1))
		places(max+reserve, max)
	}
	held[0].Close()
	held = held[1:]
	var c *lamclient.Client
	if !waitFor(3*time.Second, func() bool {
		var err error
		c, err = dial(wire.RoleMPI)
		return err == nil
	}) {
		t.Fatal("no process served after one left")
	}
	defer c.Close()
	if _, err := c.Nodes(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// Link connections that never authenticate are capped and dropped after
// the hello timeout.
func TestLinkAttemptCap(t *testing.T) {
	const max = 4
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, MaxLinkAttempts: max, HelloTimeout: 500 * time.Millisecond})
	addr := u.Table.Nodes[0].Link
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range max {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond) // let the lamd accept them
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if err := closedWithin(extra, time.Second); err != nil {
		t.Errorf("link attempt beyond the cap of %d: %v", max, err)
	}
	for i, c := range held {
		if err := closedWithin(c, 3*time.Second); err != nil {
			t.Errorf("silent link attempt %d: %v", i+1, err)
		}
	}
	// The slots are free again: a new attempt is held, not closed at once.
	again, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := closedWithin(again, 200*time.Millisecond); err == nil {
		t.Error("a link attempt after the others left was closed at once")
	}
}

// closedWithin reports nil if the peer closes c within d.
func closedWithin(c net.Conn, d time.Duration) error {
	c.SetReadDeadline(time.Now().Add(d))
	var b [64]byte
	for {
		_, err := c.Read(b[:])
		switch {
		case err == nil:
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("still open after %v", d)
		default:
			return nil // EOF or reset: closed
		}
	}
}

// A client that sends half a frame, before or after its hello, is dropped
// after the deadline; a client silent between frames is not.
func TestSlowClientsDropped(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, HelloTimeout: 500 * time.Millisecond, FrameTimeout: 300 * time.Millisecond})
	sock := u.Dir(0).Socket()
	hello := wire.AppendFrame(nil, 1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, PID: 1, Name: "slow"})

	t.Run("half a hello", func(t *testing.T) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(hello[:5])
		if err := closedWithin(c, 3*time.Second); err != nil {
			t.Error(err)
		}
	})
	// greeted dials the lamd and says hello in role.
	greeted := func(t *testing.T, role uint8) (net.Conn, *wire.Conn) {
		t.Helper()
		nc, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		c := wire.NewConn(nc)
		if err := c.Write(1, 0, &wire.Hello{Version: wire.Version, Role: role, PID: 1, Name: "slow"}, time.Second); err != nil {
			t.Fatal(err)
		}
		nc.SetReadDeadline(time.Now().Add(3 * time.Second))
		if f, err := c.Read(); err != nil || f.Kind != wire.KindWelcome {
			t.Fatalf("hello answered with %v, %v", f.Kind, err)
		}
		return nc, c
	}
	t.Run("half a frame", func(t *testing.T) {
		nc, _ := greeted(t, wire.RoleTool)
		echo := wire.AppendFrame(nil, 2, 0, &wire.Echo{Node: wire.LocalNode, Data: make([]byte, 100)})
		nc.Write(echo[:30])
		if err := closedWithin(nc, 3*time.Second); err != nil {
			t.Error(err)
		}
	})
	// A stream is served by the relay once attached: the same deadline
	// holds there, and a frame other than a post closes it. Each test
	// attaches an event of its own: the one before may still be
	// attached to its closed stream for a moment (an attach of an event
	// attached already is refused).
	stream := func(t *testing.T, event int32) net.Conn {
		t.Helper()
		nc, c := greeted(t, wire.RoleStream)
		if err := c.Write(2, 0, &wire.Attach{Event: event, Type: 16}, time.Second); err != nil {
			t.Fatal(err)
		}
		if f, err := c.Read(); err != nil || f.Kind != wire.KindOK {
			t.Fatalf("attach answered with %v, %v", f.Kind, err)
		}
		return nc
	}
	t.Run("half a post on a stream", func(t *testing.T) {
		nc := stream(t, -77)
		post := wire.AppendPost(nil, 0, wire.LocalNode, -78, 16, nil, make([]byte, 100))
		nc.Write(post[:30])
		if err := closedWithin(nc, 3*time.Second); err != nil {
			t.Error(err)
		}
	})
	t.Run("not a post on a stream", func(t *testing.T) {
		nc := stream(t, -79)
		nc.Write(wire.AppendFrame(nil, 3, 0, &wire.Echo{Node: wire.LocalNode, Data: []byte("x")}))
		if err := closedWithin(nc, 3*time.Second); err != nil {
			t.Error(err)
		}
	})
	t.Run("silent between frames", func(t *testing.T) {
		c := u.Client(t, 0)
		time.Sleep(time.Second)
		if _, err := c.Nodes(ctx(t)); err != nil {
			t.Errorf("a client silent for 1s between frames: %v", err)
		}
	})
}

// After a burst of connections the lamd holds no more goroutines or heap
// than before, and a connection that has not said hello costs no read
// buffer.
func TestBurstReturnsResources(t *testing.T) {
	const held, burst, workers = 1000, 5000, 40
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, MaxClients: 2 * held})
	sock := u.Dir(0).Socket()
	// Warm up what a first client allocates once.
	if _, err := u.Client(t, 0).Nodes(ctx(t)); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	baseG, baseHeap := runtime.NumGoroutine(), heap()

	// Connections that have not said hello yet.
	conns := make([]net.Conn, 0, held)
	for range held {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// (One goroutine per connection; others may have ended meanwhile.)
	if !waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() >= baseG+held-held/100 }) {
		t.Fatalf("the lamd accepted only %d of %d connections", runtime.NumGoroutine()-baseG, held)
	}
	heldHeap := heap()
	if per := (int64(heldHeap) - int64(baseHeap)) / held; per > 16<<10 {
		t.Errorf("a connection without a hello costs %d bytes of heap", per)
	}
	for _, c := range conns {
		c.Close()
	}

	// A burst of clients that say hello and go.
	hello := wire.AppendFrame(nil, 1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, PID: 1, Name: "burst"})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range burst / workers {
				if err := helloAndGo(sock, hello); err != nil {
					select {
					case errs <- fmt.Errorf("worker %d: %w", w, err):
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() <= baseG+2 }) {
		t.Errorf("goroutines: %d before, %d after the burst", baseG, runtime.NumGoroutine())
	}
	after := heap()
	t.Logf("heap in use: %d KiB before, %d KiB with %d connections held, %d KiB after", baseHeap>>10, heldHeap>>10, held, after>>10)
	if after > baseHeap+8<<20 {
		t.Errorf("heap in use grew from %d KiB to %d KiB after the burst", baseHeap>>10, after>>10)
	}
}

// helloAndGo connects, says hello, reads the welcome and closes.
func helloAndGo(sock string, hello []byte) error {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(hello); err != nil {
		return err
	}
	f, err := wire.ReadFrame(bufio.NewReader(c))
	if err != nil {
		return err
	}
	if f.Kind != wire.KindWelcome {
		return fmt.Errorf("hello answered with %v", f.Kind)
	}
	return nil
}
