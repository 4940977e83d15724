package smp_test

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	_ "github.com/lamgo/lam/libmpi/coll/smp"
)

// Layouts: node of each rank.
var layouts = [][]int32{
	{0, 0, 1, 1},          // 2 nodes × 2, by block
	{0, 1, 0, 1},          // interleaved
	{0, 0, 0, 1},          // uneven
	{0, 0, 1, 1, 2},       // 3 nodes, one alone
	{2, 1, 0, 2, 1, 0, 2}, // interleaved over 3 nodes, ids not in rank order
	{0, 0, 0, 0, 1, 1, 1, 1, 1},
	{5, 5, 9, 9, 9, 5, 7, 7},
}

func TestChosen(t *testing.T) {
	for _, tt := range []struct {
		nodes []int32
		want  string
	}{
		{[]int32{0, 0, 1, 1}, "smp"},
		{[]int32{0, 1, 2}, "lam_basic"},    // one process per node
		{[]int32{3, 3, 3}, "lam_basic"},    // one node
		{[]int32{0, 0, 1, 1}, "lam_basic"}, // the user asks for lam_basic
		{[]int32{4}, "lam_basic"},
	} {
		var params []string
		if tt.want == "lam_basic" && len(tt.nodes) == 4 {
			params = []string{"coll", "lam_basic"}
		}
		w := colltest.NewWorld(tt.nodes, 5*time.Second, params...)
		if got := w.Comm(0).Module(); got != tt.want {
			t.Errorf("%v %v: chose %s, want %s", tt.nodes, params, got, tt.want)
		}
		w.Close()
	}
	// -ssi coll smp on a communicator smp cannot serve falls back to
	// lam_basic rather than leaving it without collectives.
	w := colltest.NewWorld([]int32{0, 1}, 5*time.Second, "coll", "smp")
	defer w.Close()
	if got := w.Comm(0).Module(); got != "lam_basic" {
		t.Errorf("coll smp on one process per node: chose %s", got)
	}
}

func TestSuite(t *testing.T) {
	for _, nodes := range layouts {
		for _, params := range [][]string{nil, {"coll_base_associative", "1"}, {"coll_base_crossover", "1"}} {
			for _, k := range []int{1, 70} {
				roots := []int{0, len(nodes) - 1, 1}
				for _, root := range roots {
					if t.Failed() {
						return
					}
					t.Run(fmt.Sprintf("%v/%v/k=%d/root=%d", nodes, params, k, root), func(t *testing.T) {
						w := colltest.NewWorld(nodes, 10*time.Second, params...)
						defer w.Close()
						errs := w.Each(func(r int) error {
							c := w.Comm(r)
							if m := c.Module(); m != "smp" {
								return fmt.Errorf("module %s", m)
							}
							return colltest.Suite(c, k, root)
						})
						for r, err := range errs {
							if err != nil {
								t.Errorf("rank %d: %v", r, err)
							}
						}
						if left := w.Leftover(); left != 0 {
							t.Errorf("%d messages nobody received", left)
						}
					})
				}
			}
		}
	}
}

func allreduceFloats(t *testing.T, nodes []int32, k int, params ...string) []byte {
	t.Helper()
	w := colltest.NewWorld(nodes, 10*time.Second, params...)
	defer w.Close()
	return allreduceOn(t, w, nodes, k)
}

// allreduceOn sums k floats per process on w and returns the result,
// the same on every process.
func allreduceOn(t *testing.T, w *colltest.World, nodes []int32, k int) []byte {
	t.Helper()
	out := make([][]byte, len(nodes))
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		out[r] = coll.Buffer(8 * k)
		return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 3}, func(a *coll.Actions) error {
			return a.Allreduce(c, colltest.Floats(r, k), out[r], &colltest.FSum)
		})
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("%v rank %d: %v", nodes, r, err)
		}
		if !slices.Equal(out[r], out[0]) {
			t.Fatalf("%v: ranks 0 and %d differ", nodes, r)
		}
	}
	return out[0]
}

// With coll_base_associative=0 a float sum is not regrouped by node: the
// result is the one lam_basic gives on one node, bit for bit, whatever
// the layout. With 1 it may differ in the last bits only.
func TestAssociativity(t *testing.T) {
	for _, k := range []int{3, 200} {
		ref := allreduceFloats(t, []int32{0, 0, 0, 0, 0, 0, 0}, k)
		for _, nodes := range [][]int32{{0, 0, 1, 1, 1, 2, 2}, {0, 1, 0, 1, 0, 1, 0}} {
			if got := allreduceFloats(t, nodes, k); !slices.Equal(got, ref) {
				t.Errorf("%v k=%d: associativity off, but the result depends on the layout", nodes, k)
			}
			got := allreduceFloats(t, nodes, k, "coll_base_associative", "1")
			g, f := colltest.F64(got), colltest.F64(ref)
			for i := range g {
				if math.Abs(g[i]-f[i]) > 1e-12*math.Abs(f[i]) {
					t.Fatalf("%v k=%d: associative sum %v far from %v", nodes, k, g[i], f[i])
				}
			}
		}
	}
}
