package mpi

import (
	"reflect"
	"testing"

	"github.com/lamgo/lam/libmpi/internal/topo"
)

func TestEncodeDist(t *testing.T) {
	for _, d := range []topo.Dist{
		{},
		{Sources: []int{1, 2}, Dests: []int{3}},
		{Sources: []int{1, 2}, SourceWeights: []int{5, 6}, Dests: []int{3}, Weighted: true},
		{Sources: []int{1}, Dests: []int{3, 4}, DestWeights: []int{7, 8}, Weighted: true},
		{Sources: []int{1}, SourceWeights: []int{0}, Dests: []int{2}, DestWeights: []int{9}, Weighted: true},
	} {
		got := decodeDist(encodeDist(d))
		if len(d.Sources) == 0 {
			d.Sources = []int{}
		}
		if len(d.Dests) == 0 {
			d.Dests = []int{}
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("%+v came back %+v", d, got)
		}
	}
}
