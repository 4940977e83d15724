package boot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/lamgo/lam/shared/bhost"
	"github.com/lamgo/lam/shared/linknet"
)

// ErrNoOrigin means no node of the schema is this host.
var ErrNoOrigin = errors.New("none of the hosts is this host")

// ErrLoopbackOrigin means a multi-node universe would be booted from a
// loopback address, which the other nodes cannot reach.
var ErrLoopbackOrigin = errors.New("this host is named by a loopback address in a multi-host boot schema")

// Resolve fills in every node's address and marks the origin: the first
// node whose address belongs to this host. With names false, a universe of
// several nodes whose origin resolves to a loopback address is refused
// (lamboot -l lifts that, as in LAM).
func Resolve(ctx context.Context, nodes []Node, names bool) error {
	local, err := localAddrs()
	if err != nil {
		return err
	}
	origin := -1
	for i := range nodes {
		n := &nodes[i]
		if linknet.IsVsock(n.Host) {
			if err := resolveVsock(n); err != nil {
				return err
			}
			if origin < 0 && IsLocal(n.Addr) {
				origin = i
			}
			continue
		}
		addr, err := lookupNode(ctx, n)
		if err != nil {
			return err
		}
		n.Addr = addr.String()
		if origin < 0 && (addr.IsLoopback() || local[addr]) {
			origin = i
		}
	}
	if origin < 0 {
		return ErrNoOrigin
	}
	nodes[origin].Origin = true
	if len(nodes) > 1 && !names {
		if a, _ := netip.ParseAddr(nodes[origin].Addr); a.IsLoopback() {
			return fmt.Errorf("%s: %w", &nodes[origin], ErrLoopbackOrigin)
		}
	}
	return nil
}

// lookup resolves a host name or address, preferring IPv4. Only what
// bhost.CheckHost accepts is handed to the resolver.
func lookup(ctx context.Context, host string) (netip.Addr, error) {
	if err := bhost.CheckHost(host); err != nil {
		return netip.Addr{}, err
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	if len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("no address for %s", host)
	}
	for _, a := range addrs {
		if a.Unmap().Is4() {
			return a.Unmap(), nil
		}
	}
	return addrs[0], nil
}

func localAddrs() (map[netip.Addr]bool, error) {
	out := map[netip.Addr]bool{}
	ifs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("local addresses: %w", err)
	}
	for _, a := range ifs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out[p.Addr().Unmap()] = true
		}
	}
	return out, nil
}

// ResolveHost fills in one node's address (lamgrow's new host).
func ResolveHost(ctx context.Context, n *Node) error {
	if linknet.IsVsock(n.Host) {
		return resolveVsock(n)
	}
	addr, err := lookupNode(ctx, n)
	if err != nil {
		return err
	}
	n.Addr = addr.String()
	return nil
}

// lookupNode resolves n's host. An invalid host name is reported by node
// id alone: the error quotes the name, which may hold any bytes.
func lookupNode(ctx context.Context, n *Node) (netip.Addr, error) {
	addr, err := lookup(ctx, n.Host)
	switch {
	case errors.Is(err, bhost.ErrHostName):
		return addr, fmt.Errorf("n%d: %w", n.ID, err)
	case err != nil:
		return addr, fmt.Errorf("%s: cannot resolve the host name: %w", n, err)
	}
	return addr, nil
}

// IsLocal reports whether addr (an IP address or vsock:CID) belongs to
// this host.
func IsLocal(addr string) bool {
	if linknet.IsVsock(addr) {
		cid, _, err := linknet.ParseVsock(addr)
		self, serr := linknet.LocalCID()
		return err == nil && serr == nil && cid == self
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	local, err := localAddrs()
	return err == nil && (a.IsLoopback() || local[a.Unmap()])
}

// resolveVsock sets the address of a node named vsock:CID[:port]:
// vsock:CID (the port is the remote shell's, not the node's).
func resolveVsock(n *Node) error {
	cid, _, err := linknet.ParseVsock(n.Host)
	if err != nil {
		return fmt.Errorf("n%d: %w", n.ID, err)
	}
	n.Addr = linknet.VsockHost(cid)
	return nil
}
