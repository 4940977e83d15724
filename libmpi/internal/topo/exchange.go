package topo

import (
	"errors"
	"fmt"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/comm"
)

// ErrShort: a neighbour sent fewer bytes than its block holds.
var ErrShort = errors.New("a neighbour sent a block of another size")

// Base is the base tag of the blocking neighbour collectives.
const Base = comm.TagNeighbor

// The tags of a nonblocking neighbour collective: its sequence number
// (of seqBits) above its edges' offsets (of offsetBits).
const (
	offsetBits = 12
	seqBits    = 15
)

// NonblockingBase is the base tag of the nonblocking neighbour collective
// numbered seq on its communicator, whose edges are in and out: several
// may be under way at once, beside blocking ones, and never take one
// another's messages while fewer than 2^15 are. An edge offset that does
// not fit (a grid of more than 2048 dimensions) is an ErrDims error.
func NonblockingBase(seq int, in, out []Edge) (int, error) {
	for _, e := range append(in[:len(in):len(in)], out...) {
		if e.Tag >= 1<<offsetBits {
			return 0, fmt.Errorf("%w: a nonblocking neighbour collective handles at most %d dimensions", ErrDims, 1<<offsetBits/2)
		}
	}
	return comm.TagNeighborNB | (seq&(1<<seqBits-1))<<offsetBits, nil
}

// Exchange is one neighbour collective on t (a communicator's hidden
// context): send[i] goes to out[i].Peer, recv[j] comes from in[j].Peer,
// each message tagged base (Base or NonblockingBase) plus its edge's
// offset. Every
// receive is posted first, in the order of in, then every send in the
// order of out, so that two edges between the same pair of processes
// match in the order both sides list them. Edges to ProcNull move
// nothing.
func Exchange(t coll.Transport, base int, in []Edge, recv [][]byte, out []Edge, send [][]byte) error {
	if len(recv) != len(in) || len(send) != len(out) {
		return fmt.Errorf("%w: %d blocks for %d incoming edges, %d for %d outgoing", ErrArg, len(recv), len(in), len(send), len(out))
	}
	var reqs []coll.Request
	var rbufs []int
	var first error
	for j, e := range in {
		if e.Peer == ProcNull {
			continue
		}
		r, err := t.Irecv(recv[j], e.Peer, base+e.Tag)
		if err != nil {
			first = err
			break
		}
		reqs = append(reqs, r)
		rbufs = append(rbufs, j)
	}
	nrecv := len(reqs)
	for i, e := range out {
		if first != nil {
			break
		}
		if e.Peer == ProcNull {
			continue
		}
		r, err := t.Isend(send[i], e.Peer, base+e.Tag)
		if err != nil {
			first = err
			break
		}
		reqs = append(reqs, r)
	}
	if first != nil {
		// A bad peer (the topology's checks make this unreachable): what
		// was posted stays posted rather than wait for messages that
		// may never come.
		return first
	}
	for k, r := range reqs {
		st, err := r.Wait()
		switch {
		case err != nil && errors.Is(err, coll.ErrTruncated) && first == nil:
			first = fmt.Errorf("%w: rank %d sent more than its block holds: %w", ErrShort, st.Source, err)
		case err != nil && first == nil:
			first = err
		case err == nil && k < nrecv && st.Count != len(recv[rbufs[k]]) && first == nil:
			first = fmt.Errorf("%w: %d bytes from rank %d into a block of %d", ErrShort, st.Count, st.Source, len(recv[rbufs[k]]))
		}
	}
	return first
}
