// Package kernel is the LAM daemon, lamd: one per node and session. It
// serves the local tools and MPI processes over the session's Unix socket
// (only the daemon's own uid may connect), links to every other lamd of the
// universe over mutually authenticated TLS, and provides the universe's
// services: the node table, routing of out-of-band messages, process
// management with forwarded standard streams, echo, clean and halt.
//
// Requests that name another node are forwarded over the link to that
// node's lamd, and its replies come back the same way, so a tool talks to
// the whole universe through its local lamd.
//
// A lamd started by a booting tool joins its universe with Join, which
// calls the booter back for the node table and then serves; New and Run
// serve a node table given directly (in-process universes, kerneltest).
package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// Config is what a lamd needs to run.
type Config struct {
	Session  session.Dir
	Secret   linkauth.Secret
	Universe *wire.Universe // the node table from the boot
	Self     int32          // this node's id
	// Links is the listener peers connect to (opened before the boot
	// callback, which reported its address).
	Links net.Listener
	// Joining means this lamd was added to a running universe (lamgrow):
	// it dials every other node rather than only the lower ids.
	Joining bool
	// Log receives the daemon's log; nil discards it.
	Log *slog.Logger
	// HaltTimeout bounds how long a halt waits for each node.
	HaltTimeout time.Duration
	// KillGrace is how long a process has between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// OOBLimit bounds the bytes of undelivered out-of-band messages.
	OOBLimit int64
	// MaxClients bounds the local clients connected at once: MPI
	// processes are refused after their hello beyond it, and tools
	// (lamnodes, lamhalt, mpirun) have a few more places, beyond which any
	// connection is refused at once. Default 1024 (boot_base_max_clients).
	MaxClients int
	// MaxLinkAttempts bounds the link connections accepted but not yet
	// authenticated and linked; one more is closed at once. Default 64
	// (boot_base_max_link_attempts).
	MaxLinkAttempts int
	// HelloTimeout bounds how long a new connection, local or link, may
	// take to authenticate and say hello. Default 10s.
	HelloTimeout time.Duration
	// FrameTimeout bounds how long a frame that has begun may take to
	// arrive in full; a peer may stay silent between frames as long as it
	// likes. Default 30s.
	FrameTimeout time.Duration
}

// Kernel is a running lamd.
type Kernel struct {
	cfg   Config
	log   *slog.Logger
	uid   int
	local *localsock.Listener

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	nodes    map[int32]*wire.Node
	changing map[int32]bool // nodes a tool is adding or removing (claimNode)
	links    map[int32]*link
	calls    map[uint64]*call // requests this lamd forwarded, by forwarded id
	clients  map[*client]struct{}
	places   int      // clients holding a place (release gives it back)
	nonTools int      // of them, those attached with a role other than RoleTool
	full     burstLog // local clients refused for lack of room
	halting  bool
	frozen   bool // FreezeLinksForTest

	nextID atomic.Uint64
	procs  procTable
	oob    oobQueue
	// streams are the attached streams by event (stream.go).
	streamsMu sync.RWMutex
	streams   map[int32]*stream
	// relayer serves the streams (relay.go), from the first attach on.
	relayOnce sync.Once
	relayer   *relay
	relayErr  error

	stopWatch func()
	wg        sync.WaitGroup
	done      chan struct{}
	stopOnce  sync.Once
	stopErr   error
}

// New prepares a lamd: it creates the session directory, listens on the
// session socket and writes the kill file. Run starts serving.
func New(cfg Config) (*Kernel, error) {
	if cfg.Universe == nil {
		return nil, errors.New("kernel: no universe")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.HaltTimeout <= 0 {
		cfg.HaltTimeout = 15 * time.Second
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 2 * time.Second
	}
	if cfg.OOBLimit <= 0 {
		cfg.OOBLimit = 256 << 20
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.MaxLinkAttempts <= 0 {
		cfg.MaxLinkAttempts = DefaultMaxLinkAttempts
	}
	if cfg.HelloTimeout <= 0 {
		cfg.HelloTimeout = DefaultHelloTimeout
	}
	if cfg.FrameTimeout <= 0 {
		cfg.FrameTimeout = DefaultFrameTimeout
	}
	k := &Kernel{
		cfg:      cfg,
		log:      cfg.Log,
		uid:      os.Geteuid(),
		nodes:    map[int32]*wire.Node{},
		changing: map[int32]bool{},
		links:    map[int32]*link{},
		calls:    map[uint64]*call{},
		clients:  map[*client]struct{}{},
		streams:  map[int32]*stream{},
		done:     make(chan struct{}),
	}
	k.full.log = cfg.Log
	for i := range cfg.Universe.Nodes {
		n := cfg.Universe.Nodes[i]
		k.nodes[n.ID] = &n
	}
	if _, ok := k.nodes[cfg.Self]; !ok {
		return nil, fmt.Errorf("kernel: node n%d is not in the universe", cfg.Self)
	}
	k.oob.init(cfg.OOBLimit)
	k.procs.init()
	k.ctx, k.cancel = context.WithCancel(context.Background())
	if err := cfg.Session.Create(); err != nil {
		return nil, err
	}
	l, err := localsock.Listen(cfg.Session.Socket())
	if err != nil {
		return nil, err
	}
	k.local = l
	// Run's token: Stop (the session watcher may call it before Run
	// begins) waits for Run's goroutines, so Run must have added them
	// before that wait can see none; Run gives the token back once it has.
	k.wg.Add(1)
	// Watch before anything else can happen to the directory.
	if k.stopWatch, err = k.watchSession(); err != nil {
		l.Close()
		return nil, fmt.Errorf("watch the session directory: %w", err)
	}
	if err := os.WriteFile(cfg.Session.KillFile(), fmt.Appendf(nil, "%d\n", os.Getpid()), 0o600); err != nil {
		k.stopWatch()
		l.Close()
		return nil, fmt.Errorf("kill file: %w", err)
	}
	return k, nil
}

// Done is closed when the lamd has stopped.
func (k *Kernel) Done() <-chan struct{} { return k.done }

// Self returns this node's id.
func (k *Kernel) Self() int32 { return k.cfg.Self }

// Run serves until the lamd halts, the context ends, or the session
// directory disappears, then cleans up: it kills the processes it started,
// closes its links, and removes the session directory.
func (k *Kernel) Run(ctx context.Context) error {
	k.log.Info("lamd running", "node", k.cfg.Self, "session", k.cfg.Session.Path, "universe", k.cfg.Universe.ID)
	k.wg.Add(2)
	go func() { defer k.wg.Done(); k.acceptLocal() }()
	go func() { defer k.wg.Done(); k.acceptLinks() }()
	k.dialLinks()
	if hb := k.cfg.Universe.HeartbeatMS; hb > 0 {
		k.wg.Add(1)
		go func() { defer k.wg.Done(); k.heartbeats(time.Duration(hb) * time.Millisecond) }()
	}
	k.wg.Done() // the token New took: every goroutine of Run's is counted now
	select {
	case <-ctx.Done():
		k.Stop(fmt.Errorf("stopped: %w", context.Cause(ctx)))
	case <-k.ctx.Done():
	}
	if k.stopWatch != nil {
		k.stopWatch()
	}
	<-k.done
	return k.stopErr
}

// Stop halts this lamd alone: kill its processes, close everything, remove
// the session directory. It is safe to call more than once.
func (k *Kernel) Stop(reason error) {
	k.stopOnce.Do(func() {
		k.log.Info("lamd stopping", "reason", reason)
		k.mu.Lock()
		k.halting = true
		links := make([]*link, 0, len(k.links))
		for _, l := range k.links {
			links = append(links, l)
		}
		clients := make([]*client, 0, len(k.clients))
		for c := range k.clients {
			clients = append(clients, c)
		}
		k.mu.Unlock()
		k.procs.killAll(k.cfg.KillGrace)
		for _, c := range clients {
			c.uc.Close()
		}
		k.cancel()
		k.local.Close()
		k.cfg.Links.Close()
		for _, l := range links {
			l.close(errHalting)
		}
		k.oob.close()
		if err := k.cfg.Session.Remove(); err != nil {
			k.log.Warn("cannot remove the session directory", "err", err)
		}
		if reason != nil && !errors.Is(reason, errHalted) {
			k.stopErr = reason
		}
		go func() {
			k.wg.Wait()
			close(k.done)
		}()
	})
}

var (
	errHalting = errors.New("lamd is halting")
	errHalted  = errors.New("halted")
)

// nodeTable returns the node table sorted by id.
func (k *Kernel) nodeTable() []wire.Node {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]wire.Node, 0, len(k.nodes))
	for _, n := range k.nodes {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// target resolves a request's node: LocalNode means this one.
func (k *Kernel) target(n int32) int32 {
	if n == wire.LocalNode {
		return k.cfg.Self
	}
	return n
}

// Linked returns the ids of the nodes this lamd has a live link to.
func (k *Kernel) Linked() []int32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]int32, 0, len(k.links))
	for id := range k.links {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// FreezeLinksForTest stops this lamd's heartbeats and link reads without
// closing anything, so that peers see a silent node. Tests only.
func (k *Kernel) FreezeLinksForTest() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.frozen = true
}

// WaitLinked waits until this lamd has a link to every other node of its
// table (bounded by ctx), so that a universe is fully connected when the
// boot reports success.
func (k *Kernel) WaitLinked(ctx context.Context) error {
	for {
		k.mu.Lock()
		var missing []int32
		for id := range k.nodes {
			if id != k.cfg.Self && k.links[id] == nil {
				missing = append(missing, id)
			}
		}
		k.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
			return fmt.Errorf("n%d could not link to %v: %w", k.cfg.Self, missing, context.Cause(ctx))
		case <-k.ctx.Done():
			return errHalting
		case <-time.After(5 * time.Millisecond):
		}
	}
}
