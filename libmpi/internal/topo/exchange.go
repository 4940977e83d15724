package topo

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/comm"
)

// The tags of a neighbour collective: the sequence number of its view
// (of seqBits) above its edges' offsets (of offsetBits).
const (
	offsetBits = 12
	seqBits    = 15
)

// base is the base tag of the neighbour collective numbered seq on its
// communicator, whose edges are in and out: several may be under way at
// once, beside the communicator's other collectives, and never take one
// another's messages while fewer than 2^15 are. An edge offset that does
// not fit (a grid of more than 2048 dimensions) is an ErrDims error.
func base(seq int, in, out []Edge) (int, error) {
	for _, e := range append(in[:len(in):len(in)], out...) {
		if e.Tag >= 1<<offsetBits {
			return 0, fmt.Errorf("%w: a neighbour collective handles at most %d dimensions", ErrDims, 1<<offsetBits/2)
		}
	}
	return comm.TagNeighbor | (seq&(1<<seqBits-1))<<offsetBits, nil
}

// Exchange adds one neighbour collective to the schedule of v, the
// private view of a communicator that coll.Comm.Reserve made for it:
// send[i] goes to out[i].Peer, recv[j] comes from in[j].Peer, each
// message tagged with the view's sequence number and its edge's offset,
// all in one round. Every receive is posted first, in the order of in,
// then every send in the order of out, so that two edges between the
// same pair of processes match in the order both sides list them. Edges
// to ProcNull move nothing. A block of another size than its neighbour's
// is an ErrCount fault of the collective (coll.Schedule).
func Exchange(v *coll.Comm, in []Edge, recv [][]byte, out []Edge, send [][]byte) error {
	if len(recv) != len(in) || len(send) != len(out) {
		return fmt.Errorf("%w: %d blocks for %d incoming edges, %d for %d outgoing", ErrArg, len(recv), len(in), len(send), len(out))
	}
	b, err := base(v.Seq(), in, out)
	if err != nil {
		return err
	}
	s := v.Schedule()
	for j, e := range in {
		if e.Peer != ProcNull {
			s.RecvTagged(v, recv[j], e.Peer, b+e.Tag)
		}
	}
	for i, e := range out {
		if e.Peer != ProcNull {
			s.SendTagged(v, send[i], e.Peer, b+e.Tag)
		}
	}
	return nil
}
