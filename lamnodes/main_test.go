package main

import (
	"context"
	"testing"

	"github.com/lamgo/lam/shared/wire"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		n    wire.Node
		self int32
		want string
	}{
		{wire.Node{ID: 0, Flags: wire.NodeOrigin}, 0, "origin,this_node"},
		{wire.Node{ID: 1}, 0, ""},
		{wire.Node{ID: 2, Flags: wire.NodeNoSchedule | wire.NodeOrigin}, 2, "no_schedule,origin,this_node"},
		{wire.Node{ID: 3, Flags: wire.NodeDead}, 0, "dead"},
	}
	for _, tt := range tests {
		if got := flags(tt.n, tt.self); got != tt.want {
			t.Errorf("flags(%+v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestResolverIP(t *testing.T) {
	r := &resolver{ip: true, cache: map[string]string{}}
	if got := r.name(context.Background(), wire.Node{Host: "alpha", Addr: "10.0.0.1"}); got != "10.0.0.1" {
		t.Errorf("-i name = %q", got)
	}
	r.ip = false
	if got := r.name(context.Background(), wire.Node{Host: "alpha"}); got != "alpha" {
		t.Errorf("name without an address = %q", got)
	}
}
