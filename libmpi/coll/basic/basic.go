// Package basic is the lam_basic coll module: every collective, on every
// communicator, built on point-to-point messages (LAM's lam_basic, with the
// intercommunicator forms, Alltoallw and Exscan LAM lacked).
//
// The algorithm depends on the number of processes and the size, through
// the coll_base_* thresholds (docs/coll.md has the table): linear
// algorithms up to coll_base_crossover processes (4) and binomial trees
// above; a dissemination Barrier; small Allreduces gather every
// contribution on every process (Bruck's allgather) and reduce locally,
// carrying the argument check's digest in their messages; a commutative
// Allreduce or Reduce of more than coll_base_reduce_crossover bytes per
// process reduce-scatters by recursive halving, then allgathers by
// recursive doubling (Allreduce) or gathers the pieces (Reduce); Bruck or
// ring Allgather; large Bcasts scatter, then ring; large Alltoalls go
// pairwise. Every reduction combines the contributions in an order fixed
// by the number of processes (and the root and size), never by timing, so
// repeated runs give bit-identical results; a non-commutative op is
// applied in rank order.
//
// On an intercommunicator, each group works through its local
// intracommunicator and the two leaders (local rank 0) exchange the
// group's data.
package basic

import (
	"context"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// Module is the lam_basic module.
type Module struct{}

func init() { coll.Register(Module{}) }

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.Coll, Name: coll.BasicName, API: ssi.APIVersion[ssi.Coll], Version: buildinfo.ModuleVersion, Priority: 0}
}

// Query: lam_basic runs everywhere.
func (Module) Query(context.Context, *ssi.Settings) (int, error) { return 0, nil }

// QueryComm: priority 0, or 100 on a communicator of one process (such as
// Self), where nothing else makes sense.
func (Module) QueryComm(c *coll.Comm) (int, error) {
	if !c.Inter() && c.Size() == 1 {
		return 100, nil
	}
	return 0, nil
}

// Init returns the linear, logarithmic or intercommunicator functions.
func (Module) Init(c *coll.Comm) (*coll.Actions, error) {
	switch {
	case c.Inter():
		return &inter, nil
	case c.Size() <= c.Params.Crossover:
		return &linear, nil
	}
	return &logarithmic, nil
}

// Finalize has nothing to release.
func (Module) Finalize(*coll.Comm) error { return nil }

// Functions returns lam_basic's functions for c, which other modules call
// when they cannot do better.
func Functions(c *coll.Comm) *coll.Actions {
	a, _ := Module{}.Init(c)
	return a
}

var linear = coll.Actions{
	Barrier:            barrier,
	Bcast:              bcast,
	Gather:             gather,
	Gatherv:            gatherv,
	Scatter:            scatter,
	Scatterv:           scatterv,
	Allgather:          allgather,
	Allgatherv:         allgatherv,
	Alltoall:           alltoall,
	Alltoallv:          alltoallv,
	Alltoallw:          alltoallv,
	Reduce:             reduce,
	Allreduce:          allreduce,
	ReduceScatter:      reduceScatter,
	ReduceScatterBlock: reduceScatterBlock,
	Scan:               scanLinear,
	Exscan:             exscanLinear,
	Agree:              agree,
	Carries:            carries,
	SendsCall:          sendsCall,
}

// logarithmic differs from linear in the functions with a tree or
// recursive-doubling form; the others choose for themselves (isLinear).
var logarithmic = func() coll.Actions {
	a := linear
	a.Scan, a.Exscan = scanLog, exscanLog
	return a
}()

// isLinear reports whether c uses the linear algorithms.
func isLinear(c *coll.Comm) bool { return c.Size() <= c.Params.Crossover }

// batch starts sends and receives and waits for them together. The
// first few are kept in the batch itself, so that a small batch (a
// variable of the caller's) allocates nothing.
type batch struct {
	c    *coll.Comm
	ps   [8]coll.Pending
	n    int
	more []coll.Pending
	err  error
}

// newBatch starts a batch of up to n operations.
func newBatch(c *coll.Comm, n int) batch {
	b := batch{c: c}
	if n > len(b.ps) {
		b.more = make([]coll.Pending, 0, n-len(b.ps))
	}
	return b
}

func (b *batch) send(buf []byte, dest int) {
	if b.err == nil {
		b.add(b.c.Isend(buf, dest))
	}
}

func (b *batch) recv(buf []byte, src int) {
	if b.err == nil {
		b.add(b.c.Irecv(buf, src))
	}
}

// add keeps a started request, or the error that stops the batch.
func (b *batch) add(p coll.Pending, err error) {
	switch {
	case err != nil:
		b.err = err
	case b.n < len(b.ps):
		b.ps[b.n] = p
		b.n++
	default:
		b.more = append(b.more, p)
	}
}

// wait waits for every operation of the batch, which can then start
// others.
func (b *batch) wait() error {
	err := b.c.Wait(b.ps[:b.n]...)
	if len(b.more) > 0 {
		if err2 := b.c.Wait(b.more...); err == nil {
			err = err2
		}
	}
	b.n, b.more = 0, b.more[:0]
	if b.err != nil {
		return b.err
	}
	return err
}

// The binomial tree over "virtual ranks" (ranks relative to the root): the
// parent of v is v without its lowest set bit; its children are v|m for
// the powers of two m below that bit, and the subtree of a child v|m holds
// the virtual ranks [v|m, v|m+m).

func parent(v int) int { return v & (v - 1) }

func children(v, n int) []int {
	var out []int
	for m := 1; m < n; m <<= 1 {
		if v&m != 0 {
			break
		}
		if v|m < n {
			out = append(out, v|m)
		}
	}
	return out
}

// subtree is the number of virtual ranks in v's subtree.
func subtree(v, n int) int {
	if v == 0 {
		return n
	}
	return min(v&-v, n-v)
}
