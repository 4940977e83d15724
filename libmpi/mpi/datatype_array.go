package mpi

import "fmt"

// Order is the storage order of a multidimensional array, for
// TypeCreateSubarray and TypeCreateDarray.
type Order int

// The storage orders.
const (
	// OrderC is row-major: the last dimension varies fastest.
	OrderC Order = iota
	// OrderFortran is column-major: the first dimension varies fastest.
	OrderFortran
)

// Distribution is how TypeCreateDarray spreads one dimension of an array
// over a dimension of the process grid.
type Distribution int

// The distributions.
const (
	// DistributeNone keeps the whole dimension on every process.
	DistributeNone Distribution = iota
	// DistributeBlock gives each process one block of darg elements
	// (DistributeDfltDarg: ceil(gsize/psize)).
	DistributeBlock
	// DistributeCyclic deals blocks of darg elements (default 1) to the
	// processes in turn.
	DistributeCyclic
)

// DistributeDfltDarg asks for the default distribution argument.
const DistributeDfltDarg = -1

// dimBlock is one block of indices along one dimension.
type dimBlock struct{ start, n int }

// arrayType lays out the blocks of each dimension of an array of old
// (sizes in the given order) and sets the bounds to the whole array.
func arrayType(sizes []int, blocksOf [][]dimBlock, order Order, old *Datatype, name string, env envelope) (*Datatype, error) {
	nd := len(sizes)
	dim := func(k int) int { // the k-th dimension, fastest first
		if order == OrderC {
			return nd - 1 - k
		}
		return k
	}
	t, err := TypeCreateResized(old, 0, old.Extent())
	if err != nil {
		return nil, err
	}
	stride := old.Extent()
	for k := range nd {
		i := dim(k)
		var b builder
		for _, s := range blocksOf[i] {
			for j := range s.n {
				b.add(t, (s.start+j)*stride)
			}
		}
		if t, err = b.done(name, false, envelope{}); err != nil {
			return nil, err
		}
		stride *= sizes[i]
		t.lb, t.ub, t.lbMark, t.ubMark = 0, stride, true, true
	}
	t.env = env
	return t, nil
}

func checkOrder(order Order) error {
	if order != OrderC && order != OrderFortran {
		return errorf(ErrArg, "unknown order %d", order)
	}
	return nil
}

// TypeCreateSubarray is the subarray of subsizes elements from starts in
// an array of sizes elements of old (MPI_Type_create_subarray), stored in
// the given order: its data is the subarray, in storage order, and its
// extent is the whole array's, so buf is the whole array. A subsize may
// be 0 (an empty subarray).
func TypeCreateSubarray(sizes, subsizes, starts []int, order Order, old *Datatype) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	nd := len(sizes)
	if nd == 0 || len(subsizes) != nd || len(starts) != nd {
		return nil, errorf(ErrArg, "subarray: %d sizes, %d subsizes and %d starts", nd, len(subsizes), len(starts))
	}
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	blocksOf := make([][]dimBlock, nd)
	for i := range nd {
		if sizes[i] < 1 || subsizes[i] < 0 || subsizes[i] > sizes[i] || starts[i] < 0 || starts[i] > sizes[i]-subsizes[i] {
			return nil, errorf(ErrArg, "subarray: dimension %d: size %d, subsize %d, start %d", i, sizes[i], subsizes[i], starts[i])
		}
		blocksOf[i] = []dimBlock{{starts[i], subsizes[i]}}
	}
	ints := append(append(append(append([]int{nd}, sizes...), subsizes...), starts...), int(order))
	return arrayType(sizes, blocksOf, order, old, fmt.Sprintf("subarray(%s)", old.name),
		envelope{comb: CombinerSubarray, ints: ints, types: []*Datatype{old}})
}

// TypeCreateDarray is the part of a distributed array of gsizes elements
// of old that process rank of size holds (MPI_Type_create_darray, the
// HPF distributions): dimension i is spread over psizes[i] processes as
// distribs[i] says with argument dargs[i] (or DistributeDfltDarg). The
// process grid is row-major whatever the array's order; the type's
// extent is the whole array's.
func TypeCreateDarray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order, old *Datatype) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	nd := len(gsizes)
	if nd == 0 || len(distribs) != nd || len(dargs) != nd || len(psizes) != nd {
		return nil, errorf(ErrArg, "darray: %d gsizes, %d distributions, %d dargs and %d psizes", nd, len(distribs), len(dargs), len(psizes))
	}
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	procs := 1
	for _, p := range psizes {
		if p < 1 {
			return nil, errorf(ErrArg, "darray: process grid %v", psizes)
		}
		procs *= p
	}
	if procs != size || rank < 0 || rank >= size {
		return nil, errorf(ErrArg, "darray: rank %d of %d on a process grid %v", rank, size, psizes)
	}
	coords := make([]int, nd)
	for i, r := nd-1, rank; i >= 0; i-- {
		coords[i], r = r%psizes[i], r/psizes[i]
	}
	blocksOf := make([][]dimBlock, nd)
	for i := range nd {
		g, p, c, k := gsizes[i], psizes[i], coords[i], dargs[i]
		if g < 1 {
			return nil, errorf(ErrArg, "darray: dimension %d has size %d", i, g)
		}
		switch distribs[i] {
		case DistributeNone:
			if p != 1 {
				return nil, errorf(ErrArg, "darray: dimension %d is not distributed but has %d processes", i, p)
			}
			blocksOf[i] = []dimBlock{{0, g}}
		case DistributeBlock:
			if k == DistributeDfltDarg {
				k = (g + p - 1) / p
			}
			if k < 1 || k*p < g {
				return nil, errorf(ErrArg, "darray: dimension %d: blocks of %d over %d processes do not cover %d", i, k, p, g)
			}
			start := min(c*k, g)
			blocksOf[i] = []dimBlock{{start, min(k, g-start)}}
		case DistributeCyclic:
			if k == DistributeDfltDarg {
				k = 1
			}
			if k < 1 {
				return nil, errorf(ErrArg, "darray: dimension %d: cyclic blocks of %d", i, k)
			}
			for s := c * k; s < g; s += p * k {
				blocksOf[i] = append(blocksOf[i], dimBlock{s, min(k, g-s)})
			}
		default:
			return nil, errorf(ErrArg, "darray: dimension %d: unknown distribution %d", i, distribs[i])
		}
	}
	ints := []int{size, rank, nd}
	ints = append(ints, gsizes...)
	for _, d := range distribs {
		ints = append(ints, int(d))
	}
	ints = append(append(append(ints, dargs...), psizes...), int(order))
	return arrayType(gsizes, blocksOf, order, old, fmt.Sprintf("darray(%s)", old.name),
		envelope{comb: CombinerDarray, ints: ints, types: []*Datatype{old}})
}
