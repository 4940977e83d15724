package smp

import (
	"encoding/binary"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/basic"
)

// The argument check carried through the hierarchy. With coll_base_check
// on, a small Allreduce, Allgather or Alltoall (a part of up to
// carryBytes per process: Alltoall's n blocks) moves every process's
// part to every process together with the digest of its call, in three
// steps: a Gather of one record per process on each node (through
// shared memory under shmem), an exchange of the nodes' records between
// the leaders, and a Bcast of all the records on each node. Every process
// then holds every part and every digest, comes to the same verdict
// (coll.Comm.Carried), and takes what it needs: one exchange over the
// bridge instead of a check (an Allreduce of the digests) and then the
// collective. An Allreduce reduces the n parts in lam_basic's order
// (basic.ReduceInOrder), so its bits are lam_basic's for any op.
//
// smp's check itself (coll.Actions.Agree: the Barrier, the other
// collectives, a process whose own arguments are wrong) is the same
// exchange with an empty part. The records have one size on a
// communicator (carryRecord), whatever the call, so that the node's
// Gather and Bcast are the same operations on every process, a process
// that carries the check meets one that only checks in them, and a
// difference shows in the digests alone. (The steps on a node are
// shmem's unchecked Gather and Bcast, which take their rounds by the
// size: records of the call's size would put processes whose calls
// differ out of step there.) At coll_base_check=2 every collective of
// smp so either carries or checks in these steps.
//
// It serves communicators of up to carryNodes nodes and carryProcs
// processes, where the leaders' step (every leader to every other) stays
// a few messages and the records a few kilobytes; above, smp checks
// first by its Allreduce of the digests.
const (
	carryNodes  = 8
	carryProcs  = 32
	carryRecord = 128                  // a process's record: its digest, then its part
	carryBytes  = carryRecord - digLen // the largest part carried
	digLen      = 8
)

// carrying reports whether smp carries the check on c (Init).
func (d *data) carrying(n int) bool { return len(d.leader) <= carryNodes && n <= carryProcs }

// carries is smp's coll.Actions.Carries where it carries the check: the
// small Allreduce, Allgather and Alltoall that lam_basic would carry
// (coll_base_small) and whose part fits a record carry it, and the small
// rooted collectives send their call (sendsCall).
func carries(c *coll.Comm, sig coll.Sig) bool {
	if sig.Err != nil || sig.Send <= 0 {
		return sendsCall(c, sig)
	}
	d := c.Data.(*data)
	switch sig.Kind {
	case coll.Allreduce, coll.Allgather:
		return sig.Send <= carryBytes && d.basic.Carries(c, sig)
	case coll.Alltoall:
		return sig.Send*int64(c.Size()) <= carryBytes && d.basic.Carries(c, sig)
	}
	return sendsCall(c, sig)
}

// agree is smp's coll.Actions.Agree: the carried exchange of the digests
// alone.
func agree(c *coll.Comm, digest uint64) (bool, error) {
	_, same, err := exchange(c, nil, digest)
	return same, err
}

// exchange moves every process's part (mine, up to carryBytes) and
// digest to every process, and returns the records in node order (the
// members of node 0, then of node 1, ...: partOf finds a rank's part)
// and whether every process gave this digest. The same on every process,
// in a correct program and in one whose calls differ.
func exchange(c *coll.Comm, mine []byte, digest uint64) (records []byte, same bool, err error) {
	d := c.Data.(*data)
	n := c.Size()
	records = c.Scratch(coll.ScratchModule, n*carryRecord)
	rec := c.Scratch(coll.ScratchModule2, carryRecord)
	binary.LittleEndian.PutUint64(rec, digest)
	copy(rec[digLen:], mine)
	first, size := d.first(d.me), d.size[d.me]
	l := d.local
	if err := c.Sub(l, coll.Gather, 0, func(a *coll.Actions) error {
		var out []byte
		if l.Rank() == 0 {
			out = records[first*carryRecord : (first+size)*carryRecord]
		}
		return a.Gather(l, rec, out, 0)
	}); err != nil {
		return nil, false, err
	}
	if b := d.bridge; b != nil {
		ok := true
		if err := c.Sub(b, coll.Check, 0, func(*coll.Actions) error {
			var lerr error
			ok, lerr = d.exchangeLeaders(b, records)
			return lerr
		}); err != nil {
			return nil, false, err
		}
		if !ok {
			// A message of another size or collective: the verdict
			// travels as the digests, in one that cannot match.
			binary.LittleEndian.PutUint64(records, ^digest)
		}
	}
	if err := c.Sub(l, coll.Bcast, 0, func(a *coll.Actions) error { return a.Bcast(l, records, 0) }); err != nil {
		return nil, false, err
	}
	same = true
	for j := range n {
		same = same && binary.LittleEndian.Uint64(records[j*carryRecord:]) == digest
	}
	return records, same, nil
}

// exchangeLeaders is exchange's step between the leaders (on the bridge
// b): each sends its node's records to every other and receives theirs
// in place. ok is false when a message had another size or collective.
func (d *data) exchangeLeaders(b *coll.Comm, records []byte) (ok bool, err error) {
	section := func(k int) []byte {
		f := d.first(k)
		return records[f*carryRecord : (f+d.size[k])*carryRecord]
	}
	var ps [carryNodes]coll.Pending
	k := 0
	for j := range d.leader {
		if j == d.me {
			continue
		}
		p, err := b.Isend(section(d.me), j)
		if err != nil {
			return false, err
		}
		ps[k] = p
		k++
	}
	ok = true
	for j := range d.leader {
		if j == d.me {
			continue
		}
		got, rerr := b.RecvAny(section(j), j)
		if rerr != nil {
			err = rerr
			break
		}
		ok = ok && got
	}
	if werr := b.Wait(ps[:k]...); err == nil {
		err = werr
	}
	return ok, err
}

// first is the node-order index of node k's first process.
func (d *data) first(k int) int {
	f := 0
	for _, s := range d.size[:k] {
		f += s
	}
	return f
}

// partOf returns rank r's part of s bytes in exchange's records.
func (d *data) partOf(records []byte, s, r int) []byte {
	i := d.first(d.node[r]) + d.lrank[r]
	return records[i*carryRecord+digLen:][:s]
}

// carried reports the verdict of exchange to the communicator and
// whether the collective should take its result.
func carried(c *coll.Comm, same bool, err error) bool {
	if err != nil {
		return false
	}
	c.Carried(same)
	return same
}

func allreduceCarried(c *coll.Comm, d *data, send, recv []byte, op *coll.Op, digest uint64) error {
	mine := send
	if mine == nil {
		mine = recv
	}
	s := len(recv)
	records, same, err := exchange(c, mine[:s], digest)
	if carried(c, same, err) {
		basic.ReduceInOrder(c, func(r int) []byte { return d.partOf(records, s, r) }, recv, op)
	}
	return err
}

func allgatherCarried(c *coll.Comm, d *data, send, recv []byte, digest uint64) error {
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	if send == nil {
		send = recv[r*bs : (r+1)*bs]
	}
	records, same, err := exchange(c, send[:bs], digest)
	if carried(c, same, err) {
		for i := range n {
			copy(recv[i*bs:(i+1)*bs], d.partOf(records, bs, i))
		}
	}
	return err
}

func alltoallCarried(c *coll.Comm, d *data, send, recv []byte, digest uint64) error {
	n, r := c.Size(), c.Rank()
	if send == nil {
		send = recv // exchange copies it before recv is written
	}
	bs := len(recv) / n
	records, same, err := exchange(c, send[:n*bs], digest)
	if carried(c, same, err) {
		for i := range n {
			copy(recv[i*bs:(i+1)*bs], d.partOf(records, n*bs, i)[r*bs:(r+1)*bs])
		}
	}
	return err
}
