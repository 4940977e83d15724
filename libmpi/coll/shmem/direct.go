package shmem

import (
	"encoding/binary"
	"runtime"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/cached"
	"github.com/lamgo/lam/libmpi/internal/vmcopy"
)

// Direct rounds: above coll_base_shmem_direct_size bytes per process, a
// Bcast, Gather, Scatter, Allgather or Alltoall moves its blocks straight
// between the processes' buffers, each copied once by the kernel
// (process_vm_readv and process_vm_writev, package vmcopy), instead of
// twice through the area (in, then out) or by lam_basic's messages (a
// rendezvous each). In its one round, every process whose buffer others
// copy from or into leaves the buffer's address in its lane line and
// raises the line's flag (expose); the others wait for it and copy
// (exposed); every process then finishes the round, and one that exposed
// its buffer waits until every process that copies from or into it has
// (released), so that it returns only when its buffer is its own again.
// The copies run at once: an Allgather's processes each read every other
// block, a Scatter's each reads its own from the root's buffer, a
// Gather's each writes its block into the root's.
//
// Whether the kernel lets the processes copy each other's memory (the
// same user, and ptrace's rules: Yama's ptrace_scope, a container's
// seccomp profile) is tried once, by every process on every other, when
// the communicator is made (probe, from Init); the processes agree on the
// answer, and if any copy was refused the communicator goes on without
// direct rounds (and its board without lent entries).

// directState is what the probe found: not yet tried, permitted, refused.
type directState int8

const (
	directUntried directState = iota
	directPermitted
	directRefused
)

// mayDirect reports whether a call of kind k moving size bytes per
// process may take a direct round: above the direct size, unless the
// probe found the copies refused. Where the node's processes outnumber
// its processors (oversubscribed) only a Scatter, Alltoall or Gather on
// more than two processes, and larger (crowdedScatter, crowdedGather): a
// direct round ends when every process has copied, each a wait for a
// process that may not be running, where through the area a writer runs
// rounds ahead of its readers. Every process of a call answers alike (the size
// is the call's, the probe's answer and the node's crowding are agreed).
func (a *area) mayDirect(k coll.Kind, size int) bool {
	if a.directSize <= 0 || size <= a.directSize || a.direct == directRefused {
		return false
	}
	if !a.oversubscribed {
		return k != coll.Reduce && k != coll.Allreduce
	}
	switch {
	case a.n == 2:
		return false
	case k == coll.Scatter, k == coll.Alltoall:
		return size > crowdedScatter
	case k == coll.Gather:
		return size > crowdedGather
	}
	return false
}

// crowdedScatter and crowdedGather are the sizes above which a Scatter or
// an Alltoall, and a Gather, take a direct round on an oversubscribed
// node. Measured on 3, 4 and 8 processes of 2 processors (session 23,
// docs/coll.md): a Scatter of 32 KiB took 21 µs direct and 9 through the area (3
// processes), one of 64 KiB 22 against 28; a Gather of 128 KiB 25–37
// direct and 18 through the area, one of 192 KiB 31–33 against 39 (at 8
// processes 109–128 against 182), 1 MiB at 8 processes 433 against 697.
// An Alltoall of 64 KiB took 47 µs direct and 55 through the area (3
// processes), 353 against 479 (8), one of 1 MiB at 8 processes 4886
// against 6194. The area's Gather has the root copy every block out of
// it, where the others write theirs straight in direct; the area's
// Scatter and Alltoall copy every block twice. Bcast and Allgather gained
// nothing direct there (3 processes, a Bcast of 16 KiB 26 µs direct, 6
// through the area; 8 processes, an Allgather of 1 MiB 5809 against
// 3522).
const (
	crowdedScatter = 32 << 10
	crowdedGather  = 128 << 10
)

// useDirect reports whether a call of kind k moving size bytes per
// process takes a direct round: mayDirect, and the probe permitted the
// copies.
func (a *area) useDirect(k coll.Kind, size int) bool {
	if !a.mayDirect(k, size) || a.direct != directPermitted {
		return false
	}
	a.lastOne, a.lastSent = false, false
	return true
}

// probeWord is what process i's probe word holds, for the others to
// read.
func probeWord(i int) uint64 { return 0x4c414d4449524354 ^ uint64(i) } // "LAMDIRCT"

// probeRead is the probe's copy of process q's probe word (a test's
// seam: a kernel that refuses).
var probeRead = func(a *area, q int, dst []byte, addr uint64) error {
	return vmcopy.Read(a.pids[q], dst, addr)
}

// probe tries, in a round of its own, to read every other process's
// probe word with the kernel's copy, and agrees with the others
// (a synchronising round, as the argument check's) on whether all could.
func (a *area) probe() error {
	a.probeWord = probeWord(a.me)
	s := a.next()
	if err := a.expose(s, uint64(uintptr(unsafe.Pointer(&a.probeWord)))); err != nil {
		return err
	}
	ok := true
	var got [8]byte
	for i := 1; i < a.n; i++ {
		q := (a.me + i) % a.n
		addr, err := a.exposed(q, s)
		if err != nil {
			return err
		}
		if a.pids[q] <= 0 || probeRead(a, q, got[:], addr) != nil || binary.NativeEndian.Uint64(got[:]) != probeWord(q) {
			ok = false
		}
	}
	a.finish(s)
	digest := uint64(1)
	if !ok {
		digest = 2 + uint64(a.me) // differs from every other process's
	}
	same, err := a.arrive(digest)
	if err != nil {
		return err
	}
	a.direct = directRefused
	if same {
		a.direct = directPermitted
	}
	return nil
}

// expose claims this process's lane line of round s, leaves addr there
// and raises the line's flag.
func (a *area) expose(s uint64, addr uint64) error {
	if err := a.claimLane(s); err != nil {
		return err
	}
	binary.NativeEndian.PutUint64(a.laneData(a.me, s), addr)
	a.publish(a.posting(a.me, s), s)
	return nil
}

// exposed waits for process q's address of round s (expose).
func (a *area) exposed(q int, s uint64) (uint64, error) {
	if err := a.await(a.posting(q, s), s, q); err != nil {
		return 0, err
	}
	return binary.NativeEndian.Uint64(a.laneData(q, s)), nil
}

// released waits until every other process finished round s, in which
// this one exposed its buffer.
func (a *area) released(s uint64) error {
	for q := range a.n {
		if q != a.me {
			if err := a.await(a.done[q], s, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// releasedKeep is released, keeping buf (the buffer this process
// exposed) alive until every other process has done with it: the others
// copy from or into it by its address, which the garbage collector does
// not see, and a caller that does not use the buffer after the call
// (mpi.Alltoall(c, fresh(), recv)) holds it only through this frame.
// Without it a test's other "processes" read blocks of buffers the
// collector had freed and given to them (TestDirectSuite, 3 processes).
func (a *area) releasedKeep(s uint64, buf []byte) error {
	err := a.released(s)
	runtime.KeepAlive(buf)
	return err
}

// copyWith copies between local and addr in process q's memory: to it
// if write, from it otherwise. A copy the kernel refuses after the probe
// permitted it (the peer died, or a buffer was not what its call said)
// is the collective's error.
func (a *area) copyWith(q int, local []byte, addr uint64, write bool) error {
	if err := vmcopy.Copy(a.pids[q], local, addr, write); err != nil {
		return &coll.Error{Class: coll.ErrOther, Msg: a.name + ": shmem's direct copy: " + err.Error(), Err: err}
	}
	return nil
}

// directBcast: the root exposes its buffer, the others read it.
func (a *area) directBcast(buf []byte, root int) error {
	return a.directRooted(buf, buf, len(buf), 0, root, false)
}

// directGather: the root exposes its receive buffer, the others write
// their blocks into it.
func (a *area) directGather(send, recv []byte, m, root int) error {
	return a.directRooted(recv, send, m, m, root, true)
}

// directScatter: the root exposes its send buffer, the others read their
// blocks from it.
func (a *area) directScatter(send, recv []byte, m, root int) error {
	return a.directRooted(send, recv, m, m, root, false)
}

// directRooted is a Bcast, Gather (toRoot) or Scatter: whole is the
// root's buffer, where process i's block of m bytes begins at i·stride
// (a Bcast's stride is 0), mine this process's block (nil at the root in
// place). On two processes both copy half of the other process's block
// (directPair); on more, the root exposes whole and the others copy
// their blocks into or out of it.
func (a *area) directRooted(whole, mine []byte, m, stride, root int, toRoot bool) error {
	if a.me == root && mine != nil {
		if own := whole[a.me*stride : a.me*stride+m]; unsafe.SliceData(own) == unsafe.SliceData(mine) {
			// A Bcast's root: its block is the buffer.
		} else if toRoot {
			cached.Copy(own, mine)
		} else {
			cached.Copy(mine, own)
		}
	}
	if a.n == 2 {
		if a.me != root {
			return a.directPair(nil, mine[:m], false, toRoot)
		}
		return a.directPair(whole[(1-root)*stride:(1-root)*stride+m], nil, true, toRoot)
	}
	s := a.next()
	if a.me == root {
		if err := a.expose(s, vmcopy.Addr(whole)); err != nil {
			return err
		}
		a.finish(s)
		return a.releasedKeep(s, whole)
	}
	addr, err := a.exposed(root, s)
	if err == nil {
		err = a.copyWith(root, mine[:m], addr+uint64(a.me*stride), toRoot)
	}
	a.finish(s)
	return err
}

// directAll is Allgather (all true: every process reads every other's
// block from own) and Alltoall (every process reads its block, the
// me-th, of every other's own): each exposes own, copies its own block
// into recv, reads the others' in turn from the next process on (so
// that the processes do not all read one at once), and waits until the
// others have read its own.
func (a *area) directAll(own, recv []byte, m int, all bool) error {
	s := a.next()
	if err := a.expose(s, vmcopy.Addr(own)); err != nil {
		return err
	}
	off := 0 // Allgather: q's block is all of its own
	if !all {
		off = a.me * m // Alltoall: q's block for me is its me-th
	}
	if mine := recv[a.me*m : (a.me+1)*m]; unsafe.SliceData(mine) != unsafe.SliceData(own[off:]) {
		cached.Copy(mine, own[off:off+m])
	}
	var err error
	for i := 1; i < a.n && err == nil; i++ {
		q := (a.me + i) % a.n
		var addr uint64
		if addr, err = a.exposed(q, s); err == nil {
			err = a.copyWith(q, recv[q*m:(q+1)*m], addr+uint64(off), false)
		}
	}
	a.finish(s)
	if err != nil {
		return err
	}
	return a.releasedKeep(s, own)
}

// directPair is a Bcast's, Gather's or Scatter's direct round on two
// processes, where one copy would leave a processor idle: both copy, half
// the block each, as the rpi's single copy does. root is the root's block
// in its own buffer, other the other process's (its buffer); the data go
// to the root if toRoot (Gather), from it otherwise. Both expose their
// block; the other process copies the first half, the root the second;
// then each waits until the other finished (both halves touch both
// buffers).
func (a *area) directPair(root, other []byte, isRoot, toRoot bool) error {
	mine := other
	if isRoot {
		mine = root
	}
	m := len(mine)
	h := m / 2 &^ 63 // the other process's half, whole lines
	s := a.next()
	if err := a.expose(s, vmcopy.Addr(mine)); err != nil {
		return err
	}
	peer := 1 - a.me
	lo, hi := 0, h
	if isRoot {
		lo, hi = h, m
	}
	addr, err := a.exposed(peer, s)
	if err == nil && hi > lo {
		// The root writes the other's half when the data leave it, the
		// other process reads its half from the root's block then.
		write := isRoot != toRoot
		err = a.copyWith(peer, mine[lo:hi], addr+uint64(lo), write)
	}
	a.finish(s)
	if err != nil {
		return err
	}
	return a.releasedKeep(s, mine)
}
