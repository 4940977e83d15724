package wireup

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/lamgo/lam/shared/wire"
)

// ExitLostLamd is the status a process exits with when its lamd is gone:
// the lamds' code for a dead node (EDEADNODE), as mpirun uses it.
const ExitLostLamd = int(wire.CodeDeadNode)

// lamdConn is the connection to the local lamd as the watch sees it
// (a *lamclient.Client).
type lamdConn interface {
	Done() <-chan struct{}
	Err() error
}

// lamdWatch ends the process when its connection to the local lamd
// closes under it: a lamd killed outright (kill -9) normally takes its
// processes with it (the parent-death signal), but a process it did not
// start itself (a rank behind a wrapper script) would run on, blocked in
// a receive that nothing can complete now, under init. The watch is one
// goroutine blocked until the connection's reader ends; the message path
// never sees it.
type lamdWatch struct {
	mu      sync.Mutex
	stopped bool
	ended   chan struct{} // closed when the watch goroutine returns
}

// watchLamd starts the watch of process rank on node. When the
// connection closes before stop, it writes why to stderr and calls exit
// (os.Exit in a job; a test's hook).
func watchLamd(c lamdConn, rank int, node int32, stderr io.Writer, exit func(int)) *lamdWatch {
	w := &lamdWatch{ended: make(chan struct{})}
	go func() {
		defer close(w.ended)
		<-c.Done()
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.stopped {
			return
		}
		w.stopped = true
		fmt.Fprintf(stderr, "MPI: rank %d (pid %d) lost its lamd (n%d): %v; exiting\n", rank, os.Getpid(), node, c.Err())
		exit(ExitLostLamd)
	}()
	return w
}

// stop disarms the watch before the process closes the connection itself
// (Finalize, a failed wire-up). If the watch has already fired, the
// process is on its way out.
func (w *lamdWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}
