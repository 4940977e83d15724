package boot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The boot algorithms. Linear boots one node at a time (LAM's default);
// windowed keeps up to a window of nodes booting at once (LAM's
// linear-windowed); parallel starts every node at once, which is the
// fastest and the default here.
const (
	Linear   = "linear"
	Windowed = "windowed"
	Parallel = "parallel"
)

// maxParallel bounds how many remote shells the parallel algorithm runs at
// once, to stay clear of process and listen-backlog limits.
const maxParallel = 64

// NodeError says which node failed to boot and why.
type NodeError struct {
	Node *Node
	Err  error
}

func (e *NodeError) Error() string { return fmt.Sprintf("%s: %v", e.Node, e.Err) }
func (e *NodeError) Unwrap() error { return e.Err }

// Launcher starts a node's lamd (through the boot module).
type Launcher func(ctx context.Context, n *Node) error

// Options tune Start.
type Options struct {
	Algorithm string
	Window    int
	Timeout   time.Duration // per node, from its launch to its callback
	// Progress, if set, receives one line per event (lamboot -v).
	Progress func(string)
}

// Start launches every node with launch and collects each one's callback
// through srv. On the first failure it stops launching and returns a
// *NodeError; the callbacks already received are returned too, so the
// caller can abort them.
func Start(ctx context.Context, nodes []Node, srv *Server, launch Launcher, o Options) (map[int32]*Callback, error) {
	width := 1
	switch o.Algorithm {
	case Linear, "":
	case Windowed:
		width = max(o.Window, 1)
	case Parallel:
		width = min(max(len(nodes), 1), maxParallel)
	default:
		return nil, fmt.Errorf("unknown boot algorithm %q (want %s, %s or %s)", o.Algorithm, Parallel, Windowed, Linear)
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	byID := map[int32]*Node{}
	for i := range nodes {
		byID[nodes[i].ID] = &nodes[i]
	}
	var (
		mu       sync.Mutex
		got      = map[int32]*Callback{}
		launched = map[int32]time.Time{}
		waiting  = map[int32]chan struct{}{} // closed when the node calls back
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel(err)
	}
	for i := range nodes {
		waiting[nodes[i].ID] = make(chan struct{})
	}

	// Collect callbacks.
	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		for {
			mu.Lock()
			complete := len(got) == len(nodes)
			mu.Unlock()
			if complete {
				return
			}
			cb, err := srv.Accept(ctx)
			if err != nil {
				if ctx.Err() == nil {
					fail(fmt.Errorf("rendezvous: %w", err))
				}
				return
			}
			mu.Lock()
			n := byID[cb.Hello.Node]
			_, dup := got[cb.Hello.Node]
			_, started := launched[cb.Hello.Node]
			if n == nil || dup || !started {
				mu.Unlock()
				cb.Abort(fmt.Sprintf("n%d is not a node being booted", cb.Hello.Node))
				continue
			}
			got[n.ID] = cb
			close(waiting[n.ID])
			mu.Unlock()
			progress("%s called back (pid %d, link %s)", n, cb.Hello.PID, cb.Hello.Link)
		}
	}()

	// Launch, at most width nodes between launch and callback at once.
	slots := make(chan struct{}, width)
	var wg sync.WaitGroup
launching:
	for i := range nodes {
		n := &nodes[i]
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break launching
		}
		mu.Lock()
		launched[n.ID] = time.Now()
		mu.Unlock()
		progress("booting %s", n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			lctx, lcancel := context.WithTimeout(ctx, o.Timeout)
			defer lcancel()
			if err := launch(lctx, n); err != nil {
				if ctx.Err() == nil {
					fail(&NodeError{Node: n, Err: err})
				}
				return
			}
			select {
			case <-waiting[n.ID]:
				<-slots
			case <-lctx.Done():
				if ctx.Err() == nil {
					fail(&NodeError{Node: n, Err: fmt.Errorf("its lamd did not call back within %v", o.Timeout)})
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	err := firstErr
	mu.Unlock()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	cancel(errors.New("boot over"))
	srv.Close()
	<-acceptDone
	mu.Lock()
	defer mu.Unlock()
	if err == nil && len(got) != len(nodes) {
		err = errors.New("not every node called back")
	}
	return got, err
}
