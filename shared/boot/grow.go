package boot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// Members is the running universe's membership, which lamgrow changes
// through the local lamd (a *lamclient.Client).
type Members interface {
	AddNode(ctx context.Context, n wire.Node) error
	RemoveNode(ctx context.Context, id int32, wait time.Duration) error
}

// GrowConfig is what Grow needs: plain values from lamgrow's command line
// and from the local lamd.
type GrowConfig struct {
	Settings *ssi.Settings
	Getenv   func(string) string
	Cwd      string
	Host     string // the host to add
	ID       int32  // its node id; negative: the highest plus one
	CPUs     int32
	Schedule bool
	Table    *wire.Nodes // the universe's node table, as the local lamd sees it
	Secret   string      // the universe's secret, from the local lamd
	Bindir   string      // this installation's programs
	Prefix   string      // LAM/Go's installation on the new host (-prefix)
	// SessionSuffix is the session's suffix, which the new lamd uses too.
	SessionSuffix string
	Debug         bool
	Progress      func(string) // lamgrow -v
}

// HostError is a host that does not resolve (lamgrow exits with LAM's
// EBADHOST).
type HostError struct {
	Host string
	Err  error
}

func (e *HostError) Error() string { return e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }

// NodeInUseError is a node id already in the universe (lamgrow -n; it
// exits with LAM's EBADNODE).
type NodeInUseError struct{ ID int32 }

func (e *NodeInUseError) Error() string { return fmt.Sprintf("n%d is already in use", e.ID) }

// Grow boots a lamd on one more host and adds it to the running universe
// u: the universe learns the new node before the new lamd gets the node
// table.
// On failure nothing is left: the node is removed from the universe and
// its lamd stopped.
func Grow(ctx context.Context, c GrowConfig, u Members) (*Node, error) {
	if c.CPUs < 1 || c.CPUs > wire.MaxCPUs {
		return nil, fmt.Errorf("cpu count %d out of range [1, %d]", c.CPUs, wire.MaxCPUs)
	}
	mod, err := Select(ctx, c.Settings)
	if err != nil {
		return nil, err
	}
	nodes, err := mod.Nodes(ctx, &Request{Host: c.Host, Getenv: c.Getenv, Cwd: c.Cwd, Settings: c.Settings})
	if err != nil {
		return nil, err
	}
	n := &nodes[0]
	if err := ResolveHost(ctx, n); err != nil {
		return nil, &HostError{Host: n.Host, Err: err}
	}
	self, origin, err := place(c.Table, n, c.ID)
	if err != nil {
		return nil, err
	}
	n.CPUs, n.Schedule = c.CPUs, c.Schedule
	secret, err := linkauth.ParseSecret(c.Secret)
	if err != nil {
		return nil, err
	}
	timeout, err := c.Settings.Duration(ParamTimeout)
	if err != nil {
		return nil, err
	}
	var added bool
	b := &Lamds{
		Module: mod, Nodes: nodes, Joined: c.Table.Nodes, Origin: origin, Secret: secret,
		ListenAddr: self.Addr, Bindir: c.Bindir, Prefix: c.Prefix, SessionSuffix: c.SessionSuffix, Debug: c.Debug,
		Heartbeat: time.Duration(c.Table.HeartbeatMS) * time.Millisecond,
		Options:   Options{Algorithm: Linear, Timeout: timeout, Progress: c.Progress},
		BeforeUniverse: func(ctx context.Context, t *wire.Universe) error {
			for _, wn := range t.Nodes {
				if wn.ID == n.ID {
					if err := u.AddNode(ctx, wn); err != nil {
						return fmt.Errorf("add n%d to the universe: %w", n.ID, err)
					}
					added = true
				}
			}
			return nil
		},
	}
	if _, err := b.Boot(ctx); err != nil {
		if added {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
			u.RemoveNode(rctx, n.ID, 0)
			cancel()
		}
		return nil, fmt.Errorf("cannot grow the universe with %s: %w", n, err)
	}
	return n, nil
}

// place checks that n may join the universe of table and gives it its id:
// it returns the local node (which the new lamd calls back) and the
// origin's id.
func place(table *wire.Nodes, n *Node, id int32) (self *wire.Node, origin int32, err error) {
	origin = -1
	maxID := int32(-1)
	for i := range table.Nodes {
		t := &table.Nodes[i]
		if t.ID == table.Self {
			self = t
		}
		if t.Flags&wire.NodeOrigin != 0 {
			origin = t.ID
		}
		maxID = max(maxID, t.ID)
		if t.Host == n.Host || t.Addr == n.Addr {
			return nil, 0, fmt.Errorf("%s is already in the universe as n%d", n.Host, t.ID)
		}
	}
	if self == nil {
		return nil, 0, errors.New("the local lamd is not in its own node table")
	}
	if len(table.Nodes) == 1 && net.ParseIP(self.Addr).IsLoopback() {
		return nil, 0, fmt.Errorf("this universe is a single node on %s (a loopback address), which the new host "+
			"cannot reach; lamboot it again with this host's real name or address, then lamgrow", self.Addr)
	}
	if IsLocal(n.Addr) {
		return nil, 0, fmt.Errorf("%s is this host: run lamgrow on a node of the universe, for another host", n.Host)
	}
	n.ID = id
	if n.ID < 0 {
		n.ID = maxID + 1
	}
	if n.ID >= wire.MaxNodes {
		return nil, 0, fmt.Errorf("node id n%d out of range: a universe's node ids are n0 to n%d", n.ID, wire.MaxNodes-1)
	}
	for _, t := range table.Nodes {
		if t.ID == n.ID {
			return nil, 0, &NodeInUseError{ID: n.ID}
		}
	}
	if origin < 0 {
		origin = self.ID
	}
	return self, origin, nil
}
