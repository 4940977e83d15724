package main

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/lamgo/lam/shared/wire"
)

// flags lists a node's flags in LAM's order: no_schedule, origin,
// this_node; then dead, which LAM did not have.
func flags(n wire.Node, self int32) string {
	var f []string
	if n.Flags&wire.NodeNoSchedule != 0 {
		f = append(f, "no_schedule")
	}
	if n.Flags&wire.NodeOrigin != 0 {
		f = append(f, "origin")
	}
	if n.ID == self {
		f = append(f, "this_node")
	}
	if n.Flags&wire.NodeDead != 0 {
		f = append(f, "dead")
	}
	return strings.Join(f, ",")
}

// resolver names nodes as LAM did: the address's name (reverse lookup),
// or the address when that fails or -i is given.
type resolver struct {
	ip    bool
	cache map[string]string
}

func (r *resolver) name(ctx context.Context, n wire.Node) string {
	if r.ip || n.Addr == "" {
		if n.Addr == "" {
			return n.Host
		}
		return n.Addr
	}
	if v, ok := r.cache[n.Addr]; ok {
		return v
	}
	name := n.Addr
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if names, err := net.DefaultResolver.LookupAddr(ctx, n.Addr); err == nil && len(names) > 0 {
		name = strings.TrimSuffix(names[0], ".")
	}
	r.cache[n.Addr] = name
	return name
}
