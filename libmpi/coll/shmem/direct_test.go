package shmem

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	"github.com/lamgo/lam/shared/ssi"
)

// TestMayDirect checks which calls take a direct round: above the direct
// size, not the reductions; on an oversubscribed node only Gather and
// Scatter on more than two processes above the large size too; none once
// the probe found the copies refused, nor with the direct size 0.
func TestMayDirect(t *testing.T) {
	const d = 16 << 10
	for _, tt := range []struct {
		n, direct int
		over      bool
		state     directState
		kind      coll.Kind
		size      int
		want      bool
	}{
		{2, d, false, directUntried, coll.Bcast, d, false},
		{2, d, false, directUntried, coll.Bcast, d + 1, true},
		{2, d, false, directPermitted, coll.Allgather, d + 1, true},
		{5, d, false, directPermitted, coll.Alltoall, d + 1, true},
		{5, d, false, directPermitted, coll.Gather, d + 1, true},
		{2, d, false, directPermitted, coll.Allreduce, 1 << 20, false},
		{2, d, false, directPermitted, coll.Reduce, 1 << 20, false},
		{2, d, false, directRefused, coll.Bcast, 1 << 20, false},
		{2, 0, false, directUntried, coll.Bcast, 1 << 20, false},
		// Oversubscribed: Scatter, Alltoall and Gather on more than two
		// processes, above their own sizes.
		{3, d, true, directUntried, coll.Scatter, crowdedScatter, false},
		{3, d, true, directUntried, coll.Scatter, crowdedScatter + 1, true},
		{3, d, true, directUntried, coll.Gather, crowdedGather, false},
		{3, d, true, directUntried, coll.Gather, crowdedGather + 1, true},
		{8, crowdedGather * 2, true, directUntried, coll.Gather, crowdedGather + 1, false}, // the direct size is more
		{3, d, true, directUntried, coll.Bcast, 1 << 20, false},
		{3, d, true, directUntried, coll.Allgather, 1 << 20, false},
		{3, d, true, directUntried, coll.Alltoall, crowdedScatter, false},
		{3, d, true, directUntried, coll.Alltoall, crowdedScatter + 1, true},
		{2, d, true, directUntried, coll.Alltoall, 1 << 20, false},
		{2, d, true, directUntried, coll.Gather, 1 << 20, false},
		{3, d, true, directRefused, coll.Gather, 1 << 20, false},
	} {
		a := &area{geometry: geometry{n: tt.n}, directSize: tt.direct, oversubscribed: tt.over, direct: tt.state}
		if got := a.mayDirect(tt.kind, tt.size); got != tt.want {
			t.Errorf("n=%d direct=%d over=%v state=%d: mayDirect(%s, %d) = %v, want %v", tt.n, tt.direct, tt.over, tt.state, tt.kind, tt.size, got, tt.want)
		}
	}
}

// directWorld is a world of n processes of one node, with direct rounds
// above 1000 bytes, on a node of cpus processors.
func directWorld(t *testing.T, n, cpus int, params ...string) *colltest.World {
	t.Helper()
	w := colltest.NewSharedWorld(t, make([]int32, n), 20*time.Second,
		append([]string{"coll_base_shmem_direct_size", "1000"}, params...)...)
	w.Processors = cpus
	return w
}

// TestDirectSuite runs every collective with blocks below and above the
// direct size, on nodes with processors to spare and oversubscribed, the
// argument check at each level, and checks that the direct rounds ran
// (the probe permitted them) where they may.
func TestDirectSuite(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		for _, cpus := range []int{64, 1} {
			for _, check := range []string{"0", "1", "2"} {
				for _, root := range []int{0, n - 1} {
					t.Run(fmt.Sprintf("n=%d/cpus=%d/check=%s/root=%d", n, cpus, check, root), func(t *testing.T) {
						w := directWorld(t, n, cpus, "coll_base_check", check)
						want := directPermitted // probed when the communicator was made
						w.Check(t, w.Each(func(r int) error {
							c := w.Comm(r)
							// 560 bytes, 5600, 24; oversubscribed, blocks
							// above crowdedGather.
							ks := []int{70, 700, 3}
							if cpus < n {
								ks = []int{70, crowdedGather/8 + 1}
							}
							for _, k := range ks {
								if err := colltest.Suite(c, k, root); err != nil {
									return fmt.Errorf("k=%d: %w", k, err)
								}
							}
							if a := c.Data.(*area); a.direct != want {
								return fmt.Errorf("the probe's answer %d, want %d", a.direct, want)
							}
							return c.Free()
						}))
					})
				}
			}
		}
	}
}

// deadPID is the id of a process that has ended and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// runTwice runs a collective on process r of c, then, with every other
// process's id dead as process bad sees them, again.
func runTwice(c *coll.Comm, r, bad, dead int, run func() error) error {
	if err := run(); err != nil {
		return fmt.Errorf("first call: %w", err)
	}
	if r == bad {
		a := c.Data.(*area)
		for q := range a.pids {
			if q != r {
				a.pids[q] = dead
			}
		}
	}
	return run()
}

// checkCopyFails checks runTwice's outcomes: process bad's the kernel's
// refusal to copy (ESRCH), the others' none.
func checkCopyFails(t *testing.T, errs []error, bad int) {
	t.Helper()
	for r, err := range errs {
		var ce *coll.Error
		switch {
		case r == bad && !(errors.As(err, &ce) && errors.Is(err, unix.ESRCH)):
			t.Errorf("rank %d: %v, want the copy's error", r, err)
		case r != bad && err != nil:
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// A process that may not copy another's memory makes every process of
// the communicator go without direct rounds (the probe's answer is
// agreed), and the collectives are right through the area; the board
// runs its large collectives as schedules.
func TestDirectRefused(t *testing.T) {
	const n = 3
	read := probeRead
	t.Cleanup(func() { probeRead = read })
	probeRead = func(a *area, q int, dst []byte, addr uint64) error {
		if a.me == 1 && q == 2 {
			return unix.EPERM // as if the kernel refused
		}
		return read(a, q, dst, addr)
	}
	w := directWorld(t, n, 64)
	w.Check(t, w.Each(func(r int) error {
		c := w.Comm(r)
		if err := colltest.Suite(c, 700, 0); err != nil {
			return err
		}
		if a := c.Data.(*area); a.direct != directRefused {
			return fmt.Errorf("the probe's answer %d, want refused", a.direct)
		}
		return boardLent(c, r, n, false)
	}))
}

// A copy that fails after the probe permitted direct rounds (the process
// it copies from died meanwhile) is an error of the process that copies;
// the others, which wait for it to finish the round, do not hang.
func TestDirectCopyFails(t *testing.T) {
	const n, root, bad = 3, 0, 2
	dead := deadPID(t)
	for _, kind := range []coll.Kind{coll.Bcast, coll.Scatter, coll.Gather, coll.Allgather, coll.Alltoall} {
		t.Run(kind.String(), func(t *testing.T) {
			w := directWorld(t, n, 64)
			const m = 4096
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				buf := coll.Buffer(m)
				all := coll.Buffer(n * m)
				run := func() error {
					switch kind {
					case coll.Bcast:
						return c.Run(coll.Sig{Kind: kind, Root: root, Send: m}, func(a *coll.Actions) error { return a.Bcast(c, buf, root) })
					case coll.Scatter:
						return c.Run(coll.Sig{Kind: kind, Root: root, Send: m}, func(a *coll.Actions) error { return a.Scatter(c, all, buf, root) })
					case coll.Gather:
						return c.Run(coll.Sig{Kind: kind, Root: root, Send: m}, func(a *coll.Actions) error { return a.Gather(c, buf, all, root) })
					case coll.Allgather:
						return c.Run(coll.Sig{Kind: kind, Send: m}, func(a *coll.Actions) error { return a.Allgather(c, buf, all) })
					}
					return c.Run(coll.Sig{Kind: kind, Send: m}, func(a *coll.Actions) error { return a.Alltoall(c, all, coll.Buffer(n*m)) })
				}
				return runTwice(c, r, bad, dead, run)
			})
			checkCopyFails(t, errs, bad)
		})
	}
}

// TestReadConfig checks the parameters' defaults and that values out of
// range, or not numbers, are refused with the parameter's name.
func TestReadConfig(t *testing.T) {
	def := config{pool: 1 << 20, segs: 16, large: 64 << 10, copy: 1 << 20, reduce: 64 << 10, direct: 16 << 10}
	for _, tt := range []struct {
		key, value string
		want       config // when no error
		errHas     string // "" for none
	}{
		{"", "", def, ""},
		{ParamDirect, "0", config{pool: 1 << 20, segs: 16, large: 64 << 10, copy: 1 << 20, reduce: 64 << 10}, ""},
		{ParamDirect, "32k", config{pool: 1 << 20, segs: 16, large: 64 << 10, copy: 1 << 20, reduce: 64 << 10, direct: 32 << 10}, ""},
		{ParamDirect, "-1", config{}, ParamDirect},
		{ParamDirect, "many", config{}, ParamDirect},
		{ParamLarge, "-5", config{}, ParamLarge},
		{ParamCopy, "2T", config{}, ParamCopy},
		{ParamReduce, "-1", config{}, ParamReduce},
		{ParamPoolSize, "1024", config{}, ParamPoolSize},
		{ParamSegments, "257", config{}, ParamSegments},
		{ParamSegments, "0", config{}, ParamSegments},
	} {
		var args []ssi.Arg
		if tt.key != "" {
			args = append(args, ssi.Arg{Key: tt.key, Value: tt.value})
		}
		got, err := readConfig(ssi.NewSettings(args, nil))
		switch {
		case tt.errHas == "" && (err != nil || got != tt.want):
			t.Errorf("%s=%s: %+v, %v; want %+v", tt.key, tt.value, got, err, tt.want)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%s=%s: error %v, want one naming %s", tt.key, tt.value, err, tt.errHas)
		}
	}
}

// A Gather, Scatter, Allgather, Alltoall, Allreduce or Reduce whose
// buffers are not the blocks its call implies is left to the schedule
// (which judges them), never sliced out of range on the board.
func TestQuickSizeBuffers(t *testing.T) {
	w := colltest.NewWorld(make([]int32, 3), time.Second)
	defer w.Close()
	c := w.Comm(0) // the root
	buf := func(n int) []byte { return make([]byte, n) }
	for _, tt := range []struct {
		name       string
		kind       coll.Kind
		send, recv []byte
		ok, big    bool // big: too large for the outboard (quickSize)
	}{
		{"gather", coll.Gather, buf(8), buf(24), true, false},
		{"gather in place", coll.Gather, nil, buf(24), true, false},
		{"gather short block", coll.Gather, buf(4), buf(24), false, false},
		{"gather uneven", coll.Gather, buf(8), buf(25), false, false},
		{"scatter", coll.Scatter, buf(24), buf(8), true, false},
		{"scatter in place", coll.Scatter, buf(24), nil, true, false},
		{"scatter long block", coll.Scatter, buf(24), buf(16), false, false},
		{"allgather", coll.Allgather, buf(8), buf(24), true, false},
		{"allgather in place", coll.Allgather, nil, buf(24), true, false},
		{"allgather short recv", coll.Allgather, buf(8), buf(16), false, false},
		{"alltoall", coll.Alltoall, buf(24), buf(24), true, false},
		{"alltoall in place", coll.Alltoall, nil, buf(24), true, false},
		{"alltoall short send", coll.Alltoall, buf(12), buf(24), false, false},
		{"alltoall uneven", coll.Alltoall, buf(25), buf(25), false, false},
		{"bcast", coll.Bcast, nil, buf(bigBytes), true, false},
		{"bcast big", coll.Bcast, nil, buf(bigBytes + 1), true, true},
		{"gather big", coll.Gather, buf(bigBytes + 1), buf(3 * (bigBytes + 1)), true, true},
		{"scatter wide", coll.Scatter, buf(3 * (wideBytes / 3)), buf(wideBytes / 3), true, false},
		{"scatter big", coll.Scatter, buf(3 * 200000), buf(200000), true, true},
		{"allgather big", coll.Allgather, nil, buf(3 * (bigBytes + 1)), true, true},
		{"alltoall big", coll.Alltoall, buf(3 * 200000), buf(3 * 200000), true, true},
		{"allreduce", coll.Allreduce, buf(bigBytes), buf(bigBytes), true, false},
		{"allreduce big", coll.Allreduce, buf(bigBytes + 8), buf(bigBytes + 8), true, true},
		{"allreduce in place big", coll.Allreduce, nil, buf(bigBytes + 8), true, true},
		{"allreduce short recv", coll.Allreduce, buf(bigBytes + 8), buf(bigBytes), false, true},
		{"reduce big", coll.Reduce, buf(bigBytes + 8), buf(bigBytes + 8), true, true},
		{"reduce short recv", coll.Reduce, buf(bigBytes + 8), buf(8), false, true},
		{"allreduce above the lent", coll.Allreduce, buf(lentAllreduceMax + 8), buf(lentAllreduceMax + 8), false, true},
		{"reduce above the lent", coll.Reduce, buf(lentReduceMax + 8), buf(lentReduceMax + 8), false, true},
	} {
		k := &coll.BoardCall{Sig: &coll.Sig{Kind: tt.kind}, Send: tt.send, Recv: tt.recv, Op: &colltest.FSum}
		if n, ok, big := quickSize(c, k); ok != tt.ok || big != tt.big {
			t.Errorf("%s: on the board %v, big %v; want %v, %v", tt.name, ok, big, tt.ok, tt.big)
		} else if ok {
			posted(c, k, n) // slices within the buffers
		}
	}
}
