package kernel

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// startLone starts a lamd that is alone in its universe; it is stopped
// when the test ends.
func startLone(t *testing.T) *Kernel {
	t.Helper()
	secret, err := linkauth.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	links, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := session.Resolve(session.Options{Prefix: t.TempDir(), Suffix: "lone", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	u := &wire.Universe{ID: secret.ID(), Nodes: []wire.Node{{ID: 0, Host: "lone", Addr: "127.0.0.1", Link: links.Addr().String(), CPUs: 1}}}
	k, err := New(Config{Session: dir, Secret: secret, Universe: u, Self: 0, Links: links, HaltTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- k.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Error("lamd did not stop")
		}
	})
	return k
}

// recorder is a replier that keeps what it is sent and takes its time
// over each frame, as a slow client does.
type recorder struct {
	delay time.Duration
	mu    sync.Mutex
	got   []wire.Message
	final chan wire.Message // each final reply, if not nil
}

func (r *recorder) reply(_ uint64, flags uint16, m wire.Message) error {
	time.Sleep(r.delay)
	r.mu.Lock()
	r.got = append(r.got, m)
	r.mu.Unlock()
	if flags&wire.FlagMore == 0 && r.final != nil {
		r.final <- m
	}
	return nil
}

// serve has the lamd serve m as a request from a local tool and returns
// its final reply.
func serve(t *testing.T, k *Kernel, src *source, id uint64, m wire.Message) wire.Message {
	t.Helper()
	rec := &recorder{final: make(chan wire.Message, 1)}
	k.dispatch(src, rec, wire.Frame{Header: wire.Header{ID: id}, Msg: m}, nil)
	select {
	case m := <-rec.final:
		return m
	case <-time.After(10 * time.Second):
		t.Errorf("no answer to %T", m)
		return nil
	}
}

// A lamd that halts while lamgrow and lamshrink change its node table
// reads the table only under its lock (haltUniverse runs in its own
// goroutine and used to look its own node up in the map without it).
func TestHaltWhileTableChanges(t *testing.T) {
	k := startLone(t)
	stop := make(chan struct{})
	changed := make(chan int)
	go func() {
		var src source
		src.init()
		n := 0
		for id := uint64(1); ; id += 2 {
			select {
			case <-stop:
				changed <- n
				return
			default:
			}
			serve(t, k, &src, id, &wire.AddNode{Node: wire.Node{ID: 7, Host: "grown", CPUs: 1}})
			serve(t, k, &src, id+1, &wire.RemoveNode{ID: 7})
			n++
		}
	}()
	time.Sleep(10 * time.Millisecond) // let the changes start

	var src source
	src.init()
	ctx, _, err := src.start(k.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{delay: 2 * time.Millisecond}
	halt := &wire.Halt{TimeoutMS: 1000}
	k.haltUniverse(&request{id: 1, msg: halt, to: rec, src: &src, ctx: ctx}, halt)
	close(stop)
	if n := <-changed; n == 0 {
		t.Error("the node table did not change during the test")
	}
	select {
	case <-k.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("lamd still running after halt")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var self bool
	for _, m := range rec.got {
		if p, ok := m.(*wire.HaltProgress); ok && p.Node == 0 {
			self = p.Acked && p.Host == "lone"
		}
	}
	if _, ok := rec.got[len(rec.got)-1].(*wire.OK); !ok || !self {
		t.Errorf("halt answered %v", rec.got)
	}
}
