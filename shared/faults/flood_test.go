package faults

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/wire"
)

// Flood sizes: above the lamd's default cap on local clients (about
// 1024) and, with RLIMIT_NOFILE at exhaustNofile, above its descriptors.
const (
	floodSize     = 2000
	exhaustNofile = 256
	exhaustSize   = 400
	// fdSlack is how many descriptors more than before an attack a lamd
	// may hold once it ended.
	fdSlack = 4
)

// helloFrame is a valid hello from a tool.
func helloFrame() []byte {
	return wire.AppendFrame(nil, 1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, PID: int32(os.Getpid()), Name: "faults"})
}

// conns is a set of held connections.
type conns []net.Conn

func (cs conns) close() {
	for _, c := range cs {
		c.Close()
	}
}

// dialMany opens up to n connections, writing prefix on each (when not
// nil). It stops early after 200 failures in a row (a full backlog, our
// own descriptors) and returns what it holds and how many failed.
func dialMany(t *testing.T, network, addr string, n int, prefix []byte) (conns, int) {
	t.Helper()
	d := net.Dialer{Timeout: time.Second}
	var cs conns
	failed, inRow := 0, 0
	for range n {
		c, err := d.Dial(network, addr)
		if err == nil && prefix != nil {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err = c.Write(prefix); err != nil {
				c.Close()
			}
		}
		if err != nil {
			failed++
			if inRow++; inRow >= 200 {
				break
			}
			continue
		}
		inRow = 0
		cs = append(cs, c)
	}
	t.Cleanup(cs.close)
	return cs, failed
}

// settle waits until the lamd's descriptor count stops moving (the
// accept loop caught up), at most 5 s, and returns the last usage.
func (u *universe) settle() *usage {
	u.t.Helper()
	var last usage
	stable := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && stable < 5; {
		us, err := measure(u.lamd)
		if err != nil {
			u.t.Errorf("measure lamd %d: %v", u.lamd, err)
			return nil
		}
		if us.FDs == last.FDs {
			stable++
		} else {
			stable = 0
		}
		last = us
		time.Sleep(100 * time.Millisecond)
	}
	return &last
}

// recovered waits (bounded) until the lamd holds no more descriptors than
// before+fdSlack and returns its usage then; it fails the test if it does
// not.
func (u *universe) recovered(before *usage, d time.Duration) *usage {
	u.t.Helper()
	deadline := time.Now().Add(d)
	for {
		us, err := measure(u.lamd)
		if err != nil {
			u.t.Errorf("the lamd %d is gone: %v", u.lamd, err)
			u.sc.note("lamd died")
			return nil
		}
		if before == nil || us.FDs <= before.FDs+fdSlack {
			return &us
		}
		if time.Now().After(deadline) {
			u.t.Errorf("the lamd holds %d descriptors %v after the attack ended (%d before)", us.FDs, d, before.FDs)
			u.sc.note("descriptors not returned")
			return &us
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// floodLocal floods the lamd's local socket with n held connections
// (each sending a valid hello when hello is set), releases them, and
// checks that the lamd recovers, answers and runs a job.
func floodLocal(t *testing.T, name string, nofile, n int, hello bool) {
	sc := record(t, name)
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, nofile)
	sc.Before = u.usage()
	var prefix []byte
	if hello {
		prefix = helloFrame()
	}
	cs, failed := dialMany(t, "unix", u.socket(), n, prefix)
	sc.Load = u.settle()
	sc.note("%d connections opened and held, %d refused at connect", len(cs), failed)
	t.Logf("%d connections held, %d failed; lamd before %v, loaded %v", len(cs), failed, sc.Before, sc.Load)
	if nofile > 0 && (sc.Load == nil || sc.Load.FDs < nofile-16) {
		// Otherwise this is one more flood, not an exhaustion.
		t.Errorf("the lamd never ran out of descriptors: %v under load, RLIMIT_NOFILE %d", sc.Load, nofile)
	}
	cs.close()
	sc.After = u.recovered(sc.Before, 10*time.Second)
	u.mustAnswer(ctx, "after the flood")
	u.hello(ctx, "after the flood")
	sc.After = u.usage()
	u.halt(ctx)
	u.noneLeft()
}

// A lamd out of descriptors keeps serving once clients let go (LAM/Go's
// local accept loop used to end at the first EMFILE).
func TestExhaustLocal(t *testing.T) {
	floodLocal(t, fmt.Sprintf("descriptor exhaustion, local socket (RLIMIT_NOFILE %d, %d hellos)", exhaustNofile, exhaustSize),
		exhaustNofile, exhaustSize, true)
}

func TestFloodLocalHello(t *testing.T) {
	floodLocal(t, fmt.Sprintf("local flood, %d connections with a hello", floodSize), 0, floodSize, true)
}

func TestFloodLocalSilent(t *testing.T) {
	floodLocal(t, fmt.Sprintf("local flood, %d connections without a hello", floodSize), 0, floodSize, false)
}

// linkAnswers checks that the lamd's link port serves a new connection:
// a TLS handshake gets an answer (a refusal is an answer; silence is
// not: the accept loop is gone).
func linkAnswers(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return fmt.Errorf("connect to the link port %s: %w", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(answerBound))
	tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
	err = tc.Handshake()
	if err == nil {
		// TLS 1.3: the server judges our (missing) certificate after
		// the client's side of the handshake; its verdict comes next.
		_, err = tc.Read(make([]byte, 1))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the link port %s accepts but does not answer: %w", addr, err)
	}
	return nil
}

// floodLink floods the lamd's link port with n TCP connections that never
// authenticate (each sending prefix, when not nil), releases them, and
// checks that the port and the lamd still serve.
func floodLink(t *testing.T, name string, nofile, n int, prefix []byte) {
	sc := record(t, name)
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, nofile)
	addr, err := linkAddr(u.lamd)
	if err != nil {
		t.Fatal(err)
	}
	sc.Before = u.usage()
	cs, failed := dialMany(t, "tcp", addr, n, prefix)
	sc.Load = u.settle()
	sc.note("%d connections opened and held, %d refused at connect", len(cs), failed)
	t.Logf("%d connections held, %d failed; lamd before %v, loaded %v", len(cs), failed, sc.Before, sc.Load)
	cs.close()
	sc.After = u.recovered(sc.Before, 15*time.Second)
	if err := linkAnswers(addr); err != nil {
		t.Errorf("after the flood: %v", err)
		sc.note("link port silent")
	}
	u.mustAnswer(ctx, "after the flood")
	u.hello(ctx, "after the flood")
	sc.After = u.usage()
	u.halt(ctx)
	u.noneLeft()
}

func TestExhaustLink(t *testing.T) {
	floodLink(t, fmt.Sprintf("descriptor exhaustion, link port (RLIMIT_NOFILE %d, %d connections)", exhaustNofile, exhaustSize),
		exhaustNofile, exhaustSize, nil)
}

func TestFloodLink(t *testing.T) {
	floodLink(t, fmt.Sprintf("link flood, %d TCP connections that never authenticate", floodSize), 0, floodSize, nil)
}

// closedBy waits until the peer closed every connection, at most until
// deadline, and returns how many it did not close.
func closedBy(cs conns, deadline time.Time) int {
	var open int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(deadline)
			buf := make([]byte, 512)
			for {
				_, err := c.Read(buf)
				if err == nil {
					continue // an error frame, an alert: read on to the close
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					mu.Lock()
					open++
					mu.Unlock()
				}
				return
			}
		}()
	}
	wg.Wait()
	return open
}

// Slowloris on the local socket: clients that stop in the middle of a
// frame, before and after their hello, must neither stop the lamd from
// serving others nor be held forever.
func TestSlowlorisLocal(t *testing.T) {
	sc := record(t, "slowloris, local socket (half frames held, before and after the hello)")
	ctx := testContext(t, 3*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	sc.Before = u.usage()
	hello := helloFrame()
	// Half a header, before any hello.
	pre, _ := dialMany(t, "unix", u.socket(), 200, hello[:wire.HeaderSize/2])
	// A hello, then half a header; a hello, then a header announcing 1 MiB
	// and 100 bytes of it.
	var post conns
	header := wire.AppendFrame(nil, 2, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, Name: "x"})[:wire.HeaderSize]
	big := append([]byte(nil), header...)
	big[0], big[1], big[2], big[3] = 0, 0x10, 0, 12 // 1 MiB + 12: the rest of the header
	for _, tail := range [][]byte{header[:wire.HeaderSize/2], append(big, make([]byte, 100)...)} {
		cs, _ := dialMany(t, "unix", u.socket(), 100, append(append([]byte(nil), hello...), tail...))
		post = append(post, cs...)
	}
	for _, c := range post {
		// Read the welcome, so the hello surely was taken.
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := wire.ReadFrame(c); err != nil && !errors.Is(err, io.EOF) {
			t.Logf("welcome: %v", err)
		}
	}
	sc.Load = u.settle()
	t.Logf("held %d before the hello, %d after; lamd before %v, loaded %v", len(pre), len(post), sc.Before, sc.Load)
	// The lamd serves others meanwhile.
	u.mustAnswer(ctx, "while half frames are held")
	u.hello(ctx, "while half frames are held")
	// And drops the laggards.
	deadline := time.Now().Add(45 * time.Second)
	if n := closedBy(pre, deadline); n > 0 {
		t.Errorf("%d of %d clients that sent half a hello were not dropped within 45 s", n, len(pre))
		sc.note("%d half hellos held", n)
	}
	if n := closedBy(post, deadline); n > 0 {
		t.Errorf("%d of %d clients that sent half a frame after their hello were not dropped within 45 s", n, len(post))
		sc.note("%d half frames held", n)
	}
	pre.close()
	post.close()
	sc.note("%d half hellos and %d half frames", len(pre), len(post))
	sc.After = u.recovered(sc.Before, 10*time.Second)
	u.mustAnswer(ctx, "after the slowloris")
	u.halt(ctx)
	u.noneLeft()
}

// Slowloris on the link port: connections that send half a TLS record
// and stall are dropped, and the port serves others meanwhile.
func TestSlowlorisLink(t *testing.T) {
	sc := record(t, "slowloris, link port (half a TLS record held)")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	addr, err := linkAddr(u.lamd)
	if err != nil {
		t.Fatal(err)
	}
	sc.Before = u.usage()
	// A TLS handshake record header announcing 512 bytes, and 10 of them.
	half := append([]byte{0x16, 0x03, 0x01, 0x02, 0x00}, make([]byte, 10)...)
	cs, _ := dialMany(t, "tcp", addr, 200, half)
	sc.Load = u.settle()
	if err := linkAnswers(addr); err != nil {
		t.Errorf("while half records are held: %v", err)
		sc.note("link port silent")
	}
	u.mustAnswer(ctx, "while half records are held")
	if n := closedBy(cs, time.Now().Add(30*time.Second)); n > 0 {
		t.Errorf("%d of %d link connections that sent half a record were not dropped within 30 s", n, len(cs))
		sc.note("%d held", n)
	}
	cs.close()
	sc.note("%d half records", len(cs))
	sc.After = u.recovered(sc.Before, 10*time.Second)
	u.mustAnswer(ctx, "after the slowloris")
	u.halt(ctx)
	u.noneLeft()
}
