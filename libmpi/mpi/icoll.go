package mpi

import (
	"sync"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
)

// Nonblocking collectives (MPI-3 §5.12): each starts the collective and
// returns a Request that Wait, Test and the Wait/Test any/some/all
// functions complete like any other; the collective progresses on its own
// while the caller computes. Arguments are those of the blocking form,
// checked when the collective starts (an argument error is returned then,
// and no request); an error during the collective comes from Wait. The
// buffers belong to the collective until its request completes.
//
// Every process must start a communicator's nonblocking collectives in the
// same order (blocking collectives included); several may be outstanding
// at once, and complete in any order. With coll_base_check on (the
// default) the processes compare their arguments first, as for the
// blocking collectives, as the first steps of the collective: a mismatch
// (other roots, sizes, ops, types or collectives) is an error of every
// process's Wait; a process whose own arguments are wrong gets the error
// at once, and the others get it from Wait. With coll_base_check=0
// mismatched counts may be reported by Wait as ErrCount, or not at all.
// On an intercommunicator they take the blocking forms' arguments too.

// A nonblocking collective runs its blocking form's code, which checks
// the arguments and prepares the buffers; where the blocking form runs
// the collective (call.run), the nonblocking one reserves its private
// view of the communicator (coll.Comm.Reserve, which fixes its place in
// the order of c's collectives) and builds its schedule there
// (coll.Comm.Start): the module's functions, called on the view, add
// rounds of messages instead of communicating. The coll framework's
// progress then runs the schedule (coll.Progress: one goroutine per
// process while any collective is under way, none per collective), a
// caller in Wait or Test advances it itself, and its end completes the
// request. The collective's closure never outlives
// the call, so the blocking forms, which share the code, keep it on the
// stack.

// nbRun is a nonblocking collective being started.
type nbRun struct {
	req     *Request       // completed when the schedule ends
	started bool           // nbStep ran
	quick   *coll.Schedule // where a quick one's schedule goes
}

// Notify completes the request with the collective's outcome
// (coll.Notifier).
func (nb *nbRun) Notify(err error) { nb.req.collDone(err) }

// collDone completes the request of a nonblocking collective with its
// outcome.
func (r *Request) collDone(err error) {
	s := core.Status{Source: AnySource, Tag: AnyTag}
	if err != nil {
		s.Err = collError(err)
	}
	st.engine.Finish(r.r, s)
}

// nbParts are what a nonblocking collective's start takes from nbPool:
// its request's core request, the nbRun, and the schedule of a
// collective the module runs itself (coll.Comm.StartQuick). They go back
// once the request has been reported (Request.retire): a start then
// allocates only its Request, which the program may keep and wait for
// again (inactive) after. Memory used again, against a fresh allocation
// of every part per call, keeps small collectives off the new pages a
// growing heap touches (a page fault each few calls: the first seconds
// of a run were two to three times slower at 8 processes on 2
// processors) and off the collector.
type nbParts struct {
	core  core.Request
	nb    nbRun
	quick coll.Schedule
}

var nbPool = sync.Pool{New: func() any { return new(nbParts) }}

// retired is the core request of a request whose parts went back to
// nbPool: complete, not persistent, and never written (every use of a
// reported request reads it only).
var retired = core.NewDone(core.Status{Source: AnySource, Tag: AnyTag})

// retire gives a reported request's pooled parts back to their pool if
// nothing else holds them. A send's or receive's core request is the
// engine's no more once complete (the blocking calls reuse theirs so).
// A nonblocking collective's parts are free once its schedule has ended
// (the goroutine that ended it is through with them; a shmem board
// forgets a schedule it completed); one whose end is still running on
// another goroutine (a Test that saw the request complete first) is left
// to the collector.
func (r *Request) retire() {
	if r.pooled {
		q := r.r
		r.r, r.pooled = retired, false
		requests.Put(q)
		return
	}
	p := r.parts
	if r.sched != nil && !r.sched.Done() {
		return
	}
	r.parts, r.sched, r.r = nil, nil, retired
	*p = nbParts{}
	nbPool.Put(p)
}

// nbStep is k.run for a nonblocking collective.
func (k *call) nbStep(f func(a *coll.Actions) error) error {
	k.nb.started = true
	notify := k.nb // in the request's allocation: no closure per call
	// A collective the module runs itself (shmem's Ibarrier and small
	// Iallreduce, Ireduce and Ibcast, through its board) needs no view.
	if s, ok, err := k.cc.StartQuick(k.sig, f, notify, k.nb.quick); err != nil {
		return k.c.collFail(err)
	} else if ok {
		k.nb.req.sched = s
		return nil
	}
	v, err := k.cc.Reserve(k.sig.Kind) // even after an argument error: the numbers stay alike
	if err != nil {
		return k.c.collFail(err)
	}
	if k.sig.Err != nil {
		// The others learn of it in their check; at coll_base_check=0
		// the flow control still counts it and sends its
		// acknowledgements.
		v.Start(k.sig, nil, nil)
		return k.c.collFail(k.sig.Err)
	}
	k.cc = v // f's closure reads k.cc
	k.nb.req.sched = v.Schedule()
	v.Start(k.sig, f, notify)
	return nil
}

// then runs f once the collective's messages are done: now for a
// blocking collective, as the last step of a nonblocking one's schedule.
func (k *call) then(f func() error) error {
	if k.nb == nil {
		return f()
	}
	s := k.cc.Schedule()
	s.Next()
	s.Do(f)
	return nil
}

// startNB starts the nonblocking collective body (an i* function) on c
// and returns its request.
func startNB(c *Comm, body func(nb *nbRun) error) (*Request, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	x := nbPool.Get().(*nbParts)
	e.InitGeneric(&x.core)
	nb := &x.nb
	nb.req, nb.quick = &Request{r: &x.core, comm: c, parts: x}, &x.quick
	if err := body(nb); err != nil {
		return nil, err // x is left to the collector: a failed start may have shown it to the module
	}
	req := nb.req
	if !nb.started {
		// Nothing to do (a call that moves nothing at any process):
		// complete at once, as retired is, without the engine (its
		// Finish wakes the process's waiters); the parts were shown to
		// nobody.
		req.r, req.parts = retired, nil
		*x = nbParts{}
		nbPool.Put(x)
	}
	return req, nil
}

// doneNow is the request of a nonblocking collective that moves nothing
// at this process (moveNone, reduceNone: its blocking form would return
// at once): complete, made without the engine, the pool or a schedule,
// so that the call costs one small allocation, the Request the program
// keeps. It is active until reported, as every other request (one
// request shared by all such calls, as Open MPI returns, would be
// reported by Waitany again and again: a Go program cannot have its
// variable set to MPI_REQUEST_NULL).
func doneNow(c *Comm) (*Request, error) { return &Request{r: retired, comm: c}, nil }

// Ibarrier starts a barrier (MPI_Ibarrier): its request completes once
// every process of c has started it.
func Ibarrier(c *Comm) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iBarrier(nb, c) })
}

// Ibcast starts Bcast (MPI_Ibcast).
func Ibcast[T CollElem](c *Comm, buf []T, root int) (*Request, error) {
	if moveNone(c, buf, nil, root) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iBcast(nb, c, buf, root) })
}

// Ireduce starts Reduce (MPI_Ireduce).
func Ireduce[T CollElem](c *Comm, send, recv []T, op *Op, root int) (*Request, error) {
	if reduceNone(c, send, recv, op, root) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iReduce(nb, c, send, recv, op, root) })
}

// Iallreduce starts Allreduce (MPI_Iallreduce).
func Iallreduce[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	if reduceNone(c, send, recv, op, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iAllreduce(nb, c, send, recv, op) })
}

// Igather starts Gather (MPI_Igather).
func Igather[T CollElem](c *Comm, send, recv []T, root int) (*Request, error) {
	if moveNone(c, send, recv, root) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iGather(nb, c, send, recv, root) })
}

// Igatherv starts Gatherv (MPI_Igatherv).
func Igatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iGatherv(nb, c, send, recv, counts, displs, root) })
}

// Iscatter starts Scatter (MPI_Iscatter).
func Iscatter[T CollElem](c *Comm, send, recv []T, root int) (*Request, error) {
	if moveNone(c, send, recv, root) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iScatter(nb, c, send, recv, root) })
}

// Iscatterv starts Scatterv (MPI_Iscatterv).
func Iscatterv[T CollElem](c *Comm, send []T, counts, displs []int, recv []T, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iScatterv(nb, c, send, counts, displs, recv, root) })
}

// Iallgather starts Allgather (MPI_Iallgather).
func Iallgather[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	if moveNone(c, send, recv, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iAllgather(nb, c, send, recv) })
}

// Iallgatherv starts Allgatherv (MPI_Iallgatherv).
func Iallgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iAllgatherv(nb, c, send, recv, counts, displs) })
}

// Ialltoall starts Alltoall (MPI_Ialltoall).
func Ialltoall[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	if moveNone(c, send, recv, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iAlltoall(nb, c, send, recv) })
}

// Ialltoallv starts Alltoallv (MPI_Ialltoallv).
func Ialltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iAlltoallv(nb, c, send, scounts, sdispls, recv, rcounts, rdispls) })
}

// Ialltoallw starts Alltoallw (MPI_Ialltoallw); the received blocks are
// unpacked into recv before the request completes.
func Ialltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return iAlltoallw(nb, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// IreduceScatter starts ReduceScatter (MPI_Ireduce_scatter).
func IreduceScatter[T CollElem](c *Comm, send, recv []T, counts []int, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iReduceScatter(nb, c, send, recv, counts, op) })
}

// IreduceScatterBlock starts ReduceScatterBlock
// (MPI_Ireduce_scatter_block).
func IreduceScatterBlock[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	if reduceNone(c, send, recv, op, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iReduceScatterBlock(nb, c, send, recv, op) })
}

// Iscan starts Scan (MPI_Iscan).
func Iscan[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	if reduceNone(c, send, recv, op, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iscan(nb, coll.Scan, c, send, recv, op) })
}

// Iexscan starts Exscan (MPI_Iexscan).
func Iexscan[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	if reduceNone(c, send, recv, op, 0) {
		return doneNow(c)
	}
	return startNB(c, func(nb *nbRun) error { return iscan(nb, coll.Exscan, c, send, recv, op) })
}

// The nonblocking collectives over derived datatypes: each packs what it
// sends when it starts, and unpacks what it received into the receive
// buffer as the last step of its schedule, before its request completes.

// IbcastType starts BcastType (MPI_Ibcast with a datatype).
func IbcastType(c *Comm, buf []byte, count int, d *Datatype, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iBcastType(nb, c, buf, count, d, root) })
}

// IgatherType starts GatherType (MPI_Igather with datatypes).
func IgatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iGatherType(nb, c, send, scount, stype, recv, rcount, rtype, root) })
}

// IgathervType starts GathervType (MPI_Igatherv with datatypes).
func IgathervType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return iGathervType(nb, c, send, scount, stype, recv, counts, displs, rtype, root)
	})
}

// IscatterType starts ScatterType (MPI_Iscatter with datatypes).
func IscatterType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iScatterType(nb, c, send, scount, stype, recv, rcount, rtype, root) })
}

// IscattervType starts ScattervType (MPI_Iscatterv with datatypes).
func IscattervType(c *Comm, send []byte, counts, displs []int, stype *Datatype, recv []byte, rcount int, rtype *Datatype, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return iScattervType(nb, c, send, counts, displs, stype, recv, rcount, rtype, root)
	})
}

// IallgatherType starts AllgatherType (MPI_Iallgather with datatypes).
func IallgatherType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iAllgatherType(nb, c, send, scount, stype, recv, rcount, rtype) })
}

// IallgathervType starts AllgathervType (MPI_Iallgatherv with
// datatypes).
func IallgathervType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, counts, displs []int, rtype *Datatype) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return iAllgathervType(nb, c, send, scount, stype, recv, counts, displs, rtype)
	})
}

// IalltoallType starts AlltoallType (MPI_Ialltoall with datatypes).
func IalltoallType(c *Comm, send []byte, scount int, stype *Datatype, recv []byte, rcount int, rtype *Datatype) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return iAlltoallType(nb, c, send, scount, stype, recv, rcount, rtype) })
}

// IalltoallvType starts AlltoallvType (MPI_Ialltoallv with datatypes).
func IalltoallvType(c *Comm, send []byte, scounts, sdispls []int, stype *Datatype, recv []byte, rcounts, rdispls []int, rtype *Datatype) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return alltoallTyped(nb, coll.Alltoallv, c, send, scounts, sdispls, nil, stype, recv, rcounts, rdispls, nil, rtype)
	})
}

// IreduceType starts ReduceType (MPI_Ireduce with a datatype).
func IreduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op, root int) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return reduceType(nb, coll.Reduce, c, send, recv, count, nil, d, op, root) })
}

// IallreduceType starts AllreduceType (MPI_Iallreduce with a datatype).
func IallreduceType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return reduceType(nb, coll.Allreduce, c, send, recv, count, nil, d, op, 0) })
}

// IscanType starts ScanType (MPI_Iscan with a datatype).
func IscanType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return reduceType(nb, coll.Scan, c, send, recv, count, nil, d, op, 0) })
}

// IexscanType starts ExscanType (MPI_Iexscan with a datatype).
func IexscanType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error { return reduceType(nb, coll.Exscan, c, send, recv, count, nil, d, op, 0) })
}

// IreduceScatterType starts ReduceScatterType (MPI_Ireduce_scatter with
// a datatype).
func IreduceScatterType(c *Comm, send, recv []byte, counts []int, d *Datatype, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return reduceType(nb, coll.ReduceScatter, c, send, recv, 0, counts, d, op, 0)
	})
}

// IreduceScatterBlockType starts ReduceScatterBlockType
// (MPI_Ireduce_scatter_block with a datatype).
func IreduceScatterBlockType(c *Comm, send, recv []byte, count int, d *Datatype, op *Op) (*Request, error) {
	return startNB(c, func(nb *nbRun) error {
		return reduceType(nb, coll.ReduceScatterBlock, c, send, recv, count, nil, d, op, 0)
	})
}
