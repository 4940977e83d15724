package basic_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

func oneNode(n int) []int32 { return make([]int32, n) }

// checkAll is coll_base_check=2: every process learns of every mismatch.
var checkAll = []string{"coll_base_check", "2"}

// Every collective against its serial reference: sizes around the
// crossover and powers of two, linear and binomial algorithms forced both
// ways, roots at both ends and inside, blocks small and large enough for
// reduce-scatter.
func TestSuite(t *testing.T) {
	type cfg struct {
		n      int
		params []string
	}
	var cfgs []cfg
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17} {
		cfgs = append(cfgs, cfg{n, nil})
	}
	for _, n := range []int{2, 3, 5} {
		cfgs = append(cfgs, cfg{n, []string{"coll_base_crossover", "1"}})
	}
	cfgs = append(cfgs, cfg{9, []string{"coll_base_crossover", "100"}}, cfg{6, []string{"coll_base_check", "0"}}, cfg{2, []string{"coll_base_check", "0"}})
	for _, cf := range cfgs {
		for _, k := range []int{1, 3, 70} {
			roots := []int{0}
			if cf.n > 1 {
				roots = append(roots, cf.n-1, cf.n/2)
			}
			for _, root := range roots {
				name := fmt.Sprintf("n=%d/%v/k=%d/root=%d", cf.n, cf.params, k, root)
				if t.Failed() {
					return // one failure is enough: each waits out the time limit
				}
				t.Run(name, func(t *testing.T) {
					w := colltest.NewWorld(oneNode(cf.n), 20*time.Second, cf.params...)
					defer w.Close()
					errs := w.Each(func(r int) error { return colltest.Suite(w.Comm(r), k, root) })
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

// A float reduction gives the same bits every time for a given number of
// processes, whatever the timing.
func TestDeterministic(t *testing.T) {
	for _, n := range []int{3, 5, 8} {
		for _, k := range []int{4, 200} {
			var first []byte
			for try := 0; try < 5; try++ {
				w := colltest.NewWorld(oneNode(n), 20*time.Second)
				results := make([][]byte, n)
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					recv := coll.Buffer(8 * k)
					results[r] = recv
					return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 3}, func(a *coll.Actions) error {
						return a.Allreduce(c, colltest.Floats(r, k), recv, &colltest.FSum)
					})
				})
				w.Close()
				for r, err := range errs {
					if err != nil {
						t.Fatalf("n=%d rank %d: %v", n, r, err)
					}
					if !slices.Equal(results[r], results[0]) {
						t.Fatalf("n=%d: ranks 0 and %d differ", n, r)
					}
				}
				if first == nil {
					first = results[0]
				} else if !slices.Equal(first, results[0]) {
					t.Fatalf("n=%d k=%d: run %d differs from run 0", n, k, try)
				}
			}
		}
	}
}

func classOf(err error) coll.Class { return colltest.ClassOf(err) }

// Arguments that do not agree are an error on every process, never a
// hang, with coll_base_check=2; a process's own argument error reaches
// the others. (TestMismatchSent has coll_base_check=1.)
func TestMismatch(t *testing.T) {
	const n = 5
	bad := func(r int) bool { return r == 3 }
	tests := []struct {
		name string
		want coll.Class
		run  func(c *coll.Comm) error
	}{
		{"root", coll.ErrRoot, func(c *coll.Comm) error {
			root := 0
			if bad(c.Rank()) {
				root = 1
			}
			buf := coll.Buffer(8)
			return c.Run(coll.Sig{Kind: coll.Bcast, Root: root, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, root) })
		}},
		{"count", coll.ErrCount, func(c *coll.Comm) error {
			k := 2
			if bad(c.Rank()) {
				k = 3
			}
			recv := coll.Buffer(8 * k)
			return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 1}, func(a *coll.Actions) error {
				return a.Allreduce(c, colltest.Ints(c.Rank(), k), recv, &colltest.Sum)
			})
		}},
		{"op", coll.ErrOp, func(c *coll.Comm) error {
			op := 1
			if bad(c.Rank()) {
				op = 2
			}
			recv := coll.Buffer(8)
			return c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8, Op: op}, func(a *coll.Actions) error {
				return a.Allreduce(c, colltest.Ints(c.Rank(), 1), recv, &colltest.Sum)
			})
		}},
		{"collective", coll.ErrOther, func(c *coll.Comm) error {
			if bad(c.Rank()) {
				return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
			}
			buf := coll.Buffer(8)
			return c.Run(coll.Sig{Kind: coll.Bcast, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
		}},
		{"own argument", coll.ErrRank, func(c *coll.Comm) error {
			s := coll.Sig{Kind: coll.Bcast, Send: 8}
			if bad(c.Rank()) {
				s.Err = coll.Errorf(coll.ErrRank, "bad root")
			}
			buf := coll.Buffer(8)
			return c.Run(s, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := colltest.Run(t, oneNode(n), 10*time.Second, checkAll, tt.run)
			for r, err := range errs {
				if classOf(err) != tt.want {
					t.Errorf("rank %d: %v, want class %d", r, err, tt.want)
				}
			}
		})
	}
}

// Without the check, messages are tagged with the collective, root, op
// and size: a process that receives a message of another call reports it.
func TestMismatchTags(t *testing.T) {
	errs := colltest.Run(t, oneNode(4), 5*time.Second, []string{"coll_base_check", "0"}, func(c *coll.Comm) error {
		k := 2
		if c.Rank() == 2 {
			k = 3
		}
		recv := coll.Buffer(8 * k)
		return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 1}, func(a *coll.Actions) error {
			return a.Allreduce(c, colltest.Ints(c.Rank(), k), recv, &colltest.Sum)
		})
	})
	reported := 0
	for _, err := range errs {
		if errors.Is(err, colltest.ErrHang) {
			t.Errorf("a process hung: %v", errs)
		}
		if classOf(err) == coll.ErrCount {
			reported++
		}
	}
	if reported == 0 {
		t.Errorf("nobody reported the count mismatch: %v", errs)
	}
}

// Intercommunicator collectives between groups of every small size.
func TestInter(t *testing.T) {
	for _, na := range []int{1, 2, 3, 5} {
		for _, nb := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%dx%d", na, nb), func(t *testing.T) {
				var a, b []int
				for i := 0; i < na+nb; i++ {
					if i < na {
						a = append(a, i)
					} else {
						b = append(b, i)
					}
				}
				w := colltest.NewWorld(oneNode(na+nb), 20*time.Second)
				defer w.Close()
				errs := w.Each(func(r int) error { return colltest.InterSuite(w.Inter(a, b, r), r < na, 3) })
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
