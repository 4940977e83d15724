package mpi

import (
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
// at once, and complete in any order. Unlike the blocking collectives,
// the processes do not compare their arguments first (coll_base_check):
// mismatched counts may be reported by Wait as ErrCount, or not at all.
// On an intercommunicator they take the blocking forms' arguments too.

// newNB makes the request of a nonblocking collective on c.
func newNB(c *Comm) (*Request, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	return &Request{r: e.NewGeneric(), comm: c}, nil
}

// started returns r, or the error that kept the collective from starting.
func started(r *Request, err error) (*Request, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

// start runs the prepared collective k as a nonblocking one: its argument
// error now, the collective on a goroutine of its own, its outcome in
// k.nb's status.
func (k *call) start(f func(a *coll.Actions) error) error {
	if k.sig.Err != nil {
		return k.c.collFail(k.sig.Err)
	}
	r := k.nb
	err := k.cc.Start(k.sig.Kind, func(v *coll.Comm, a *coll.Actions) error {
		k.cc = v // f's closure reads k.cc
		return f(a)
	}, func(err error) {
		s := core.Status{Source: AnySource, Tag: AnyTag}
		if err != nil {
			s.Err = collError(err)
		}
		st.engine.Finish(r.r, s)
	})
	return k.c.collFail(err)
}

// Ibarrier starts a barrier (MPI_Ibarrier): its request completes once
// every process of c has started it.
func Ibarrier(c *Comm) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iBarrier(r, c))
}

// Ibcast starts Bcast (MPI_Ibcast).
func Ibcast[T CollElem](c *Comm, buf []T, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iBcast(r, c, buf, root))
}

// Ireduce starts Reduce (MPI_Ireduce).
func Ireduce[T CollElem](c *Comm, send, recv []T, op *Op, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iReduce(r, c, send, recv, op, root))
}

// Iallreduce starts Allreduce (MPI_Iallreduce).
func Iallreduce[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAllreduce(r, c, send, recv, op))
}

// Igather starts Gather (MPI_Igather).
func Igather[T CollElem](c *Comm, send, recv []T, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iGather(r, c, send, recv, root))
}

// Igatherv starts Gatherv (MPI_Igatherv).
func Igatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iGatherv(r, c, send, recv, counts, displs, root))
}

// Iscatter starts Scatter (MPI_Iscatter).
func Iscatter[T CollElem](c *Comm, send, recv []T, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iScatter(r, c, send, recv, root))
}

// Iscatterv starts Scatterv (MPI_Iscatterv).
func Iscatterv[T CollElem](c *Comm, send []T, counts, displs []int, recv []T, root int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iScatterv(r, c, send, counts, displs, recv, root))
}

// Iallgather starts Allgather (MPI_Iallgather).
func Iallgather[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAllgather(r, c, send, recv))
}

// Iallgatherv starts Allgatherv (MPI_Iallgatherv).
func Iallgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAllgatherv(r, c, send, recv, counts, displs))
}

// Ialltoall starts Alltoall (MPI_Ialltoall).
func Ialltoall[T CollElem](c *Comm, send, recv []T) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAlltoall(r, c, send, recv))
}

// Ialltoallv starts Alltoallv (MPI_Ialltoallv).
func Ialltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAlltoallv(r, c, send, scounts, sdispls, recv, rcounts, rdispls))
}

// Ialltoallw starts Alltoallw (MPI_Ialltoallw); the received blocks are
// unpacked into recv before the request completes.
func Ialltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iAlltoallw(r, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes))
}

// IreduceScatter starts ReduceScatter (MPI_Ireduce_scatter).
func IreduceScatter[T CollElem](c *Comm, send, recv []T, counts []int, op *Op) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iReduceScatter(r, c, send, recv, counts, op))
}

// IreduceScatterBlock starts ReduceScatterBlock
// (MPI_Ireduce_scatter_block).
func IreduceScatterBlock[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iReduceScatterBlock(r, c, send, recv, op))
}

// Iscan starts Scan (MPI_Iscan).
func Iscan[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iscan(r, coll.Scan, c, send, recv, op))
}

// Iexscan starts Exscan (MPI_Iexscan).
func Iexscan[T CollElem](c *Comm, send, recv []T, op *Op) (*Request, error) {
	r, err := newNB(c)
	if err != nil {
		return nil, err
	}
	return started(r, iscan(r, coll.Exscan, c, send, recv, op))
}
