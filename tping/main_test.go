package main

import (
	"testing"

	"github.com/lamgo/lam/shared/nodespec"
)

func TestDescribe(t *testing.T) {
	nodes := []nodespec.Node{{ID: 0, Origin: true, Local: true}, {ID: 1}, {ID: 2}}
	tests := []struct {
		ids   []int
		local bool
		want  string
	}{
		{[]int{0}, false, "n0 (o)"},
		{[]int{0}, true, "local"},
		{[]int{2}, false, "n2"},
		{[]int{0, 1, 2}, false, "2 remote nodes and 1 local node"},
		{[]int{1, 2}, false, "2 remote nodes"},
		{[]int{0, 1}, false, "1 remote node and 1 local node"},
	}
	for _, tt := range tests {
		if got := describe(tt.ids, 0, tt.local, nodes); got != tt.want {
			t.Errorf("describe(%v, local=%v) = %q, want %q", tt.ids, tt.local, got, tt.want)
		}
	}
	if got := unique([]int{0, 0, 3, 0, 3}); len(got) != 2 {
		t.Errorf("unique = %v", got)
	}
}
