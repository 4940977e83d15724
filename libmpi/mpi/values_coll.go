package mpi

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/internal/codec"
)

// The collectives on Go values. Each is two collectives of the
// communicator underneath: the sizes of the encoded values first, then
// the bytes (Bcast, Gatherv, Scatterv, Allgatherv, Alltoallv), so every
// process of c must call the same Value collective in the same order,
// with the same root and the same type T. On an intercommunicator they
// work as the typed collectives do there: a rooted one's root is Root at
// the root, ProcNull at the other processes of its group (which take no
// part: they get the zero value or nil) and the root's rank in the remote
// group at the processes of the other group; blocks come from and go to
// the remote group, so AllgatherValue returns the remote group's values
// and AlltoallValue takes and returns one value per remote process.
//
// A value that cannot be encoded is an ErrType error on the process that
// had it and on the processes that were to receive it; the collective
// still completes on every process (the value travels as nothing), so no
// process waits for it.

// failed is the size sent for a value that could not be encoded.
const failed = -1

// valueComm checks c for a Value collective and returns the number of
// processes its blocks come from or go to: c's, or its remote group's.
func valueComm(c *Comm) (int, error) {
	if err := c.check(); err != nil {
		return 0, World.fail(err)
	}
	if c.inter != nil {
		return len(c.inter.remote), nil
	}
	return len(c.group), nil
}

// valueRoot reports whether this process is a rooted Value collective's
// root, and whether it takes no part (ProcNull on an intercommunicator).
func valueRoot(c *Comm, root int) (isRoot, idle bool) {
	if c.inter != nil {
		return root == Root, root == ProcNull
	}
	return c.rank == root, false
}

// encodeValue encodes v for a collective: its bytes and its size, or
// failed and the error.
func encodeValue[T any](v *T) ([]byte, int64, error) {
	b, err := codec.Encode(v)
	if err != nil {
		return []byte{}, failed, err
	}
	return b, int64(len(b)), nil
}

// layout turns sizes into byte counts and displacements, and their total.
func layout(sizes []int64) (counts, displs []int, total int) {
	counts, displs = make([]int, len(sizes)), make([]int, len(sizes))
	for i, s := range sizes {
		counts[i], displs[i] = int(max(s, 0)), total
		total += counts[i]
	}
	return counts, displs, total
}

// decodeAll decodes the blocks of buf (laid out by sizes) into a []T; the
// first failure is the error, naming the rank whose block it was.
func decodeAll[T any](what string, buf []byte, sizes []int64) ([]T, error) {
	counts, displs, _ := layout(sizes)
	out := make([]T, len(sizes))
	var first error
	for i, s := range sizes {
		var err error
		if s == failed {
			err = fmt.Errorf("rank %d could not encode its value", i)
		} else {
			err = codec.Decode(buf[displs[i]:displs[i]+counts[i]], &out[i])
		}
		if err != nil && first == nil {
			first = valueError(what, fmt.Errorf("the value of rank %d: %w", i, err))
		}
	}
	return out, first
}

// BcastValue sends the root's v to every process of c and returns it
// (MPI_Bcast of a value): the root gets its own v back, the others a
// copy; the others' v is ignored.
func BcastValue[T any](c *Comm, v T, root int) (T, error) {
	var zero T
	if _, err := valueComm(c); err != nil {
		return zero, err
	}
	isRoot, idle := valueRoot(c, root)
	var b []byte
	var encErr error
	size := []int64{0}
	if isRoot {
		b, size[0], encErr = encodeValue(&v)
	}
	if err := Bcast(c, size, root); err != nil {
		return zero, err
	}
	switch {
	case idle:
		return zero, Bcast(c, []byte{}, root)
	case isRoot && encErr != nil:
		return zero, c.fail(valueError("BcastValue", encErr))
	case size[0] == failed:
		return zero, c.fail(errorf(ErrType, "BcastValue: the root could not encode its value"))
	case isRoot:
		return v, Bcast(c, b, root)
	}
	buf, direct, terr := codec.Target(&zero, int(size[0]))
	if terr != nil {
		buf = make([]byte, size[0])
	}
	if err := Bcast(c, buf, root); err != nil {
		return zero, err
	}
	if terr != nil {
		return zero, c.fail(valueError("BcastValue", terr))
	}
	if !direct {
		if err := codec.Decode(buf, &zero); err != nil {
			return zero, c.fail(valueError("BcastValue", err))
		}
	}
	return zero, nil
}

// GatherValue collects every process's v at the root (MPI_Gather of
// values): the root gets them in rank order, the others nil.
func GatherValue[T any](c *Comm, v T, root int) ([]T, error) {
	n, err := valueComm(c)
	if err != nil {
		return nil, err
	}
	isRoot, idle := valueRoot(c, root)
	var b []byte
	var size int64
	var encErr error
	if !isRoot || c.inter == nil { // the root of an intercommunicator sends nothing
		b, size, encErr = encodeValue(&v)
	}
	var sizes []int64
	if isRoot {
		sizes = make([]int64, n)
	}
	if err := Gather(c, []int64{size}, sizes, root); err != nil {
		return nil, err
	}
	var recv []byte
	var counts, displs []int
	if isRoot {
		var total int
		counts, displs, total = layout(sizes)
		recv = make([]byte, total)
	}
	if err := Gatherv(c, b, recv, counts, displs, root); err != nil {
		return nil, err
	}
	if encErr != nil {
		return nil, c.fail(valueError("GatherValue", encErr))
	}
	if !isRoot || idle {
		return nil, nil
	}
	out, err := decodeAll[T]("GatherValue", recv, sizes)
	return out, c.fail(err)
}

// ScatterValue sends vs[i] of the root to process i and returns each
// process's (MPI_Scatter of values): the root gives one value per
// process; the others' vs is ignored.
func ScatterValue[T any](c *Comm, vs []T, root int) (T, error) {
	var v T
	n, err := valueComm(c)
	if err != nil {
		return v, err
	}
	isRoot, idle := valueRoot(c, root)
	receives := !idle && (!isRoot || c.inter == nil)
	var sizes []int64
	var send []byte
	var counts, displs []int
	var rootErr error
	if isRoot {
		var blocks [][]byte
		blocks, sizes, rootErr = encodeValues("ScatterValue", vs, n)
		var total int
		counts, displs, total = layout(sizes)
		send = make([]byte, 0, total)
		for _, b := range blocks {
			send = append(send, b...)
		}
	}
	mine := []int64{0}
	if err := Scatter(c, sizes, mine, root); err != nil {
		return v, err
	}
	var buf []byte
	var direct bool
	var terr error
	if receives {
		buf, direct, terr = codec.Target(&v, int(max(mine[0], 0)))
		if terr != nil {
			buf = make([]byte, max(mine[0], 0))
		}
	}
	if err := Scatterv(c, send, counts, displs, buf, root); err != nil {
		return v, err
	}
	switch {
	case rootErr != nil:
		return v, c.fail(rootErr)
	case !receives:
		return v, nil
	case mine[0] == failed:
		return v, c.fail(errorf(ErrType, "ScatterValue: the root could not encode this process's value"))
	case terr != nil:
		return v, c.fail(valueError("ScatterValue", terr))
	}
	if !direct {
		if err := codec.Decode(buf, &v); err != nil {
			return v, c.fail(valueError("ScatterValue", err))
		}
	}
	return v, nil
}

// AllgatherValue collects every process's v at every process, in rank
// order (MPI_Allgather of values).
func AllgatherValue[T any](c *Comm, v T) ([]T, error) {
	n, err := valueComm(c)
	if err != nil {
		return nil, err
	}
	b, size, encErr := encodeValue(&v)
	sizes := make([]int64, n)
	if err := Allgather(c, []int64{size}, sizes); err != nil {
		return nil, err
	}
	counts, displs, total := layout(sizes)
	recv := make([]byte, total)
	if err := Allgatherv(c, b, recv, counts, displs); err != nil {
		return nil, err
	}
	if encErr != nil {
		return nil, c.fail(valueError("AllgatherValue", encErr))
	}
	out, err := decodeAll[T]("AllgatherValue", recv, sizes)
	return out, c.fail(err)
}

// AlltoallValue sends vs[j] to process j and returns the values received,
// out[i] from process i (MPI_Alltoall of values); vs holds one value per
// process.
func AlltoallValue[T any](c *Comm, vs []T) ([]T, error) {
	n, err := valueComm(c)
	if err != nil {
		return nil, err
	}
	blocks, sizes, mineErr := encodeValues("AlltoallValue", vs, n)
	rsizes := make([]int64, n)
	if err := Alltoall(c, sizes, rsizes); err != nil {
		return nil, err
	}
	scounts, sdispls, stotal := layout(sizes)
	send := make([]byte, 0, stotal)
	for _, b := range blocks {
		send = append(send, b...)
	}
	rcounts, rdispls, rtotal := layout(rsizes)
	recv := make([]byte, rtotal)
	if err := Alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, err
	}
	if mineErr != nil {
		return nil, c.fail(mineErr)
	}
	out, err := decodeAll[T]("AlltoallValue", recv, rsizes)
	return out, c.fail(err)
}

// encodeValues encodes one value per process of a communicator of n: the
// blocks and their sizes, a size of failed for each value that could not
// be encoded (every one when there are not n values), and the first
// error.
func encodeValues[T any](what string, vs []T, n int) ([][]byte, []int64, error) {
	sizes := make([]int64, n)
	blocks := make([][]byte, n)
	if len(vs) != n {
		for i := range sizes {
			sizes[i] = failed
		}
		return blocks, sizes, errorf(ErrCount, "%s: %d values for %d processes", what, len(vs), n)
	}
	var first error
	for i := range vs {
		var err error
		blocks[i], sizes[i], err = encodeValue(&vs[i])
		if err != nil && first == nil {
			first = valueError(what, fmt.Errorf("value %d: %w", i, err))
		}
	}
	return blocks, sizes, first
}
