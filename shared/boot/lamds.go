package boot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/wire"
)

// Lamds boots lamds: lamboot's whole universe, or lamgrow's one new node.
type Lamds struct {
	Module Module
	Nodes  []Node      // the nodes to boot
	Joined []wire.Node // lamgrow: the running universe's table
	Origin int32       // the origin's node id
	Secret linkauth.Secret
	// ListenAddr is the address the new lamds call back to: this host's
	// address as the other nodes reach it.
	ListenAddr    string
	Bindir        string // this installation's programs (for the local node)
	Prefix        string // -prefix: the installation on remote nodes (a node's prefix= wins)
	Conf          string // -c: the process schema hboot runs ("" = lam-conf.lamd)
	SessionPrefix string // local node only, as in LAM
	SessionSuffix string
	Debug         bool
	Heartbeat     time.Duration // fault-tolerant mode when > 0
	Options       Options
	// BeforeUniverse, if set, runs once every new lamd has called back and
	// before they get the node table (lamgrow adds the node to the
	// running universe here).
	BeforeUniverse func(ctx context.Context, u *wire.Universe) error
}

// Result is what a boot left running.
type Result struct {
	Universe *wire.Universe
	// Acked lists the nodes whose lamd serves its session. After a
	// failure Boot has stopped them, with every other lamd it started.
	Acked []Node
}

// Boot starts the lamds and hands each the universe's node table. If the
// boot fails, or ctx ends first, Boot aborts the lamds that called back and
// stops every lamd it started (Wipe) before it returns the error; an ended
// ctx gives an error that wraps its cause.
func (b *Lamds) Boot(ctx context.Context) (Result, error) {
	var (
		mu       sync.Mutex
		launched = map[int32]bool{} // nodes whose lamd was started
	)
	res, err := b.boot(ctx, func(ctx context.Context, n *Node, argv []string, stdin []byte) error {
		// A launch cut short is not wiped: if its lamd started all the
		// same, its callback finds the rendezvous closed and it exits.
		// Wiping it would make an interrupted boot wait on the same slow
		// remote shell.
		err := b.Module.Launch(ctx, n, argv, stdin)
		if err == nil {
			mu.Lock()
			launched[n.ID] = true
			mu.Unlock()
		}
		return err
	})
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("boot canceled: %w", context.Cause(ctx))
	}
	mu.Lock()
	var started []Node
	for _, n := range b.Nodes {
		if launched[n.ID] {
			started = append(started, n)
		}
	}
	mu.Unlock()
	if len(started) > 0 {
		// Cleaning up must outlive the cancellation that asked for it.
		timeout := b.Options.Timeout
		if timeout <= 0 {
			timeout = time.Minute
		}
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if werr := Wipe(wctx, b.Module, started, b.WipeArgv); werr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the lamds it started: %w", werr))
		}
	}
	return res, err
}

// boot is Boot without the clean-up after a failure.
func (b *Lamds) boot(ctx context.Context, launchFn func(context.Context, *Node, []string, []byte) error) (Result, error) {
	var res Result
	callback, srv, err := b.listen()
	if err != nil {
		return res, err
	}
	defer srv.Close()
	secret := []byte(b.Secret.String() + "\n")
	launch := func(ctx context.Context, n *Node) error {
		c := callback[linknet.IsVsock(n.Addr)]
		return launchFn(ctx, n, b.HbootArgv(n, c.host, c.port), secret)
	}
	cbs, err := Start(ctx, b.Nodes, srv, launch, b.Options)
	if err != nil {
		for _, cb := range cbs {
			cb.Abort(err.Error())
		}
		return res, err
	}

	u := &wire.Universe{ID: b.Secret.ID(), Nodes: append([]wire.Node(nil), b.Joined...), Join: len(b.Joined) > 0}
	if b.Heartbeat > 0 {
		u.HeartbeatMS = int32(max(b.Heartbeat/time.Millisecond, 1))
	}
	for i := range b.Nodes {
		n := &b.Nodes[i]
		h := cbs[n.ID].Hello
		wn := wire.Node{ID: n.ID, Host: n.Host, Addr: n.Addr, Link: h.Link, CPUs: n.CPUs}
		if h.CPUs > 0 {
			wn.CPUs = h.CPUs
		}
		if wn.CPUs < 1 {
			wn.CPUs = 1
		}
		if !n.Schedule {
			wn.Flags |= wire.NodeNoSchedule
		}
		if n.ID == b.Origin {
			wn.Flags |= wire.NodeOrigin
		}
		u.Nodes = append(u.Nodes, wn)
	}
	res.Universe = u
	if b.BeforeUniverse != nil {
		if err := b.BeforeUniverse(ctx, u); err != nil {
			for _, cb := range cbs {
				cb.Abort(err.Error())
			}
			return res, err
		}
	}

	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
	)
	for i := range b.Nodes {
		n := &b.Nodes[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, b.Options.Timeout)
			defer cancel()
			err := cbs[n.ID].Send(sctx, u)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = &NodeError{Node: n, Err: err}
				}
				return
			}
			res.Acked = append(res.Acked, *n)
		}()
	}
	wg.Wait()
	return res, first
}

// callback is where new lamds call back: a host and port.
type callback struct {
	host string
	port int
}

// listen opens the rendezvous on ListenAddr and, when nodes are reached
// over vsock from a host on TCP, on this machine's vsock context id too;
// it returns the callback address for TCP nodes (false) and vsock nodes
// (true).
func (b *Lamds) listen() (map[bool]callback, *Server, error) {
	vsockSelf := linknet.IsVsock(b.ListenAddr)
	spec := b.ListenAddr
	if !vsockSelf {
		spec = net.JoinHostPort(b.ListenAddr, "0")
	}
	srv, err := Listen(spec, b.Secret)
	if err != nil {
		return nil, nil, err
	}
	cb := map[bool]callback{vsockSelf: {b.ListenAddr, port(srv.Addr())}}
	for i := range b.Nodes {
		n := &b.Nodes[i]
		v := linknet.IsVsock(n.Addr)
		if n.Origin || v == vsockSelf {
			continue
		}
		if _, ok := cb[v]; ok {
			continue
		}
		if !v {
			srv.Close()
			return nil, nil, fmt.Errorf("%s is reached over TCP, but this host is named by a vsock address (%s): "+
				"name this host by its IP address or host name in the boot schema", n, b.ListenAddr)
		}
		cid, err := linknet.LocalCID()
		if err == nil {
			var a net.Addr
			if a, err = srv.Also(linknet.VsockHost(cid)); err == nil {
				cb[true] = callback{linknet.VsockHost(cid), port(a)}
				continue
			}
		}
		srv.Close()
		return nil, nil, fmt.Errorf("%s is reached over vsock: %w", n, err)
	}
	return cb, srv, nil
}

// port is a listener address's port.
func port(a net.Addr) int {
	switch v := a.(type) {
	case *net.TCPAddr:
		return v.Port
	case *linknet.Addr:
		return int(v.Port)
	}
	return 0
}

// HbootArgv is the command that starts node n's lamd, calling back
// host:port.
func (b *Lamds) HbootArgv(n *Node, host string, port int) []string {
	topo := []string{"-H", host, "-P", strconv.Itoa(port), "-n", strconv.Itoa(int(n.ID)), "-o", strconv.Itoa(int(b.Origin))}
	if b.Heartbeat > 0 {
		topo = append(topo, "-x")
	}
	argv := []string{b.hboot(n), "-t"}
	if b.Conf != "" {
		argv = append(argv, "-c", b.Conf)
	}
	if b.Debug {
		argv = append(argv, "-d")
	}
	argv = append(argv, "-I", strings.Join(topo, " "), "-k")
	return b.placeArgs(argv, n)
}

// placeArgs adds where the node's session and installation are: the
// session prefix (local node only, as in LAM), the suffix, the remote
// installation.
func (b *Lamds) placeArgs(argv []string, n *Node) []string {
	if n.Origin && b.SessionPrefix != "" {
		argv = append(argv, "-sessionprefix", b.SessionPrefix)
	}
	if b.SessionSuffix != "" {
		argv = append(argv, "-sessionsuffix", b.SessionSuffix)
	}
	if p := b.prefix(n); p != "" && !n.Origin {
		argv = append(argv, "-prefix", p)
	}
	return argv
}

func (b *Lamds) prefix(n *Node) string {
	if n.Prefix != "" {
		return n.Prefix
	}
	return b.Prefix
}

func (b *Lamds) hboot(n *Node) string {
	if n.Origin {
		return filepath.Join(b.Bindir, "hboot")
	}
	if p := b.prefix(n); p != "" {
		return filepath.Join(p, "bin", "hboot")
	}
	return "hboot"
}

// Wipe stops the lamds of nodes (hboot -t -N on each: stop the session's
// lamd, start nothing), in parallel, and returns the failures.
func Wipe(ctx context.Context, m Module, nodes []Node, argv func(*Node) []string) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for i := range nodes {
		n := &nodes[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Launch(ctx, n, argv(n), nil); err != nil {
				mu.Lock()
				errs = append(errs, &NodeError{Node: n, Err: err})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// WipeArgv is the command that stops a node's lamd for lamwipe and failed
// boots.
func (b *Lamds) WipeArgv(n *Node) []string {
	return b.placeArgs([]string{b.hboot(n), "-t", "-N"}, n)
}
