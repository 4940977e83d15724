package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The cr suite: a checkpointable iterative job for the checkpoint/restart
// tests (shared/integration/cr_test.go).
//
//	testprog cr <op> <elements> <iterations> [<gate>]
//
// Every iteration does one operation (<op>: sendrecv, send, ssend, rsend,
// isend, issend, irsend, recv, wait, barrier, bcast, gather, gatherv,
// scatter, reduce, allreduce, alltoall; inter: a message of a derived
// datatype each way over an intercommunicator between the even and the
// odd ranks) on a communicator duplicated from World, with <elements> int32s per process, one rank (turn by turn)
// arriving late so that the others wait inside the operation; then an
// Allreduce. Each rank folds what it received into an accumulator; at the
// end rank 0 prints "result <hex>" (the accumulators of every rank,
// combined), which is the same whether or not checkpoints were taken.
// With a gate, the ranks go on iterating past <iterations> (at most two
// minutes more) until the file <gate> exists, so that a test's
// checkpoints, however slowly they are asked, come while the ranks are
// inside MPI calls; the result is the accumulators as they were after
// <iterations>, so the extra iterations do not change it. The ranks agree
// to stop through each iteration's Allreduce (one rank seeing the gate
// first must not leave the others inside the next operation).
//
// At a checkpoint each rank writes its communicators (the duplicate of
// World, the intercommunicator: nil but for inter), its datatype (nil but
// for inter) and the state after
// its last two iterations and prints "rank R checkpoint N in <call>"
// (the call its main goroutine was in); it prints "rank R continued" in
// the continue callback. A restarted rank reads them back, drops the
// messages saved with the checkpoint, and the ranks go back to the last
// iteration every one of them completed (they differ by one at most: each
// iteration ends with an Allreduce), then run on from there, at least
// crAfterRestart iterations (past <iterations> if need be: a restart
// always communicates again).
//
// With TESTPROG_CR_HOLD=<file> (crHold) rank 0 finalizes and exits at the
// end while the others wait for <file> before MPI_Finalize.

// crAfterRestart is the fewest iterations a restarted job runs.
const crAfterRestart = 50

type crIter struct {
	Iter   int // iterations completed
	Acc    uint64
	Result uint64 // Acc after the requested number of iterations
}

var crRun struct {
	mu        sync.Mutex
	cur, prev crIter
	work      *mpi.Comm
	inter     *mpi.Comm     // inter: between the even and the odd ranks
	vec       *mpi.Datatype // inter: every other int32
	restarted bool
	ckpts     int
	call      atomic.Value // string: the call the main goroutine is in
}

func init() {
	suites["cr"] = crSuite
	if len(os.Args) < 2 || os.Args[1] != "cr" {
		return
	}
	// TESTPROG_CR_SLOW=<rank>:<n>: that rank's callback takes five seconds
	// at its n-th checkpoint (the fault tests kill it meanwhile).
	slow := os.Getenv("TESTPROG_CR_SLOW")
	mpi.OnCheckpoint(func(w *mpi.CheckpointWriter) error {
		crRun.mu.Lock()
		defer crRun.mu.Unlock()
		crRun.ckpts++
		call, _ := crRun.call.Load().(string)
		fmt.Printf("rank %d checkpoint %d in %s\n", mpi.World.Rank(), crRun.ckpts, call)
		if slow == fmt.Sprintf("%d:%d", mpi.World.Rank(), crRun.ckpts) {
			time.Sleep(5 * time.Second)
		}
		if err := w.Comm(crRun.work); err != nil {
			return err
		}
		if err := w.Comm(crRun.inter); err != nil {
			return err
		}
		if err := w.Datatype(crRun.vec); err != nil {
			return err
		}
		if err := w.Encode(crRun.prev); err != nil {
			return err
		}
		if err := w.Encode(crRun.cur); err != nil {
			return err
		}
		_, err := w.Write([]byte("end"))
		return err
	})
	mpi.OnContinue(func() error {
		fmt.Printf("rank %d continued\n", mpi.World.Rank())
		return nil
	})
	mpi.OnRestart(func(r *mpi.CheckpointReader) error {
		crRun.mu.Lock()
		defer crRun.mu.Unlock()
		var err error
		if crRun.work, err = r.Comm(); err != nil {
			return err
		}
		if crRun.inter, err = r.Comm(); err != nil {
			return err
		}
		if crRun.vec, err = r.Datatype(); err != nil {
			return err
		}
		if err := r.Decode(&crRun.prev); err != nil {
			return err
		}
		if err := r.Decode(&crRun.cur); err != nil {
			return err
		}
		end := make([]byte, 3)
		if _, err := r.Read(end); err != nil || string(end) != "end" {
			return fmt.Errorf("the raw bytes after the values: %q, %v", end, err)
		}
		r.DiscardMessages()
		crRun.restarted = true
		return nil
	})
}

func crSuite(rank, size int) {
	if len(os.Args) != 5 && len(os.Args) != 6 {
		fail("usage: testprog cr <op> <elements> <iterations> [<gate>]")
	}
	op := os.Args[2]
	n, err1 := strconv.Atoi(os.Args[3])
	iters, err2 := strconv.Atoi(os.Args[4])
	if err1 != nil || err2 != nil || n < 1 || iters < 1 {
		fail("bad arguments %q", os.Args[2:])
	}
	start := 0
	if crRun.restarted {
		// Back to the last iteration every rank completed.
		mine := []int64{int64(crRun.cur.Iter)}
		least := make([]int64, 1)
		if err := mpi.Allreduce(mpi.World, mine, least, mpi.Min); err != nil {
			fail("restart agreement: %v", err)
		}
		crRun.mu.Lock()
		switch int(least[0]) {
		case crRun.cur.Iter:
		case crRun.prev.Iter:
			crRun.cur = crRun.prev
		default:
			fail("restart at iteration %d: this rank has %d and %d", least[0], crRun.prev.Iter, crRun.cur.Iter)
		}
		start = crRun.cur.Iter
		crRun.mu.Unlock()
		fmt.Printf("rank %d restarted at iteration %d\n", rank, start)
		if crRun.work == nil || crRun.work.Size() != size || crRun.work.Rank() != rank {
			fail("restored communicator: %v", crRun.work)
		}
		if op == "inter" {
			if rs, err := crRun.inter.RemoteSize(); err != nil || !crRun.inter.TestInter() || rs != size/2 || crRun.inter.Rank() != rank/2 {
				fail("restored intercommunicator: remote size %d, %v", rs, err)
			}
			if crRun.vec == nil || crRun.vec.Size() != 4*n {
				fail("restored datatype: %v", crRun.vec)
			}
		}
	} else {
		w, err := mpi.World.Dup()
		if err != nil {
			fail("dup: %v", err)
		}
		crRun.work = w
		if op == "inter" {
			crInterSetup(rank, size, n)
		}
	}
	// Only now: a checkpoint a test asks on seeing this line finds the
	// communicators made (on a slow job, one asked before could save a
	// rank still inside Dup, with nothing to restart to).
	fmt.Printf("rank %d running\n", rank)
	c := crRun.work
	gate := ""
	if len(os.Args) == 6 {
		gate = os.Args[5]
	}
	gateOpen := func() bool {
		if gate == "" {
			return true
		}
		_, err := os.Stat(gate)
		return err == nil
	}
	// A restarted job runs at least crAfterRestart iterations, past
	// <iterations> if its checkpoint came late, so that every restart
	// communicates again (the result stays that of <iterations>, as with
	// the gate's extra iterations). Its gate is open already: every rank
	// sees it alike, and every rank went back to the same iteration.
	until := iters
	if crRun.restarted {
		until = max(iters, start+crAfterRestart)
	}
	stop, deadline := false, time.Time{}
	for i := start; i < until || !stop; i++ {
		if i >= until && deadline.IsZero() {
			deadline = time.Now().Add(2 * time.Minute)
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			fail("no gate %s two minutes after the last iteration", gate)
		}
		if i%size == rank {
			time.Sleep(time.Millisecond) // the others wait inside the operation
		}
		got := crOp(c, op, rank, size, n, i)
		vote := int64(0)
		if i+1 >= until && gateOpen() {
			vote = 1
		}
		crRun.call.Store("MPI_Allreduce")
		in, out := []int64{int64(got), vote}, make([]int64, 2)
		if err := mpi.Allreduce(c, in, out, mpi.Sum); err != nil {
			fail("iteration %d: allreduce: %v", i, err)
		}
		crRun.call.Store("")
		stop = out[1] > 0
		crRun.mu.Lock()
		crRun.prev = crRun.cur
		next := crIter{Iter: i + 1, Acc: crRun.cur.Acc*1099511628211 + got + uint64(out[0]), Result: crRun.cur.Result}
		if i+1 == iters {
			next.Result = next.Acc
		}
		crRun.cur = next
		crRun.mu.Unlock()
	}
	crRun.mu.Lock()
	acc := crRun.cur.Result
	crRun.mu.Unlock()
	all := make([]uint64, size)
	if err := mpi.Gather(mpi.World, []uint64{acc}, all, 0); err != nil {
		fail("gather: %v", err)
	}
	if rank == 0 {
		fmt.Printf("result %x\n", all)
	}
	crHold(rank)
}

// crHold: with TESTPROG_CR_HOLD=<file>, rank 0 calls MPI_Finalize, prints
// "rank 0 finalized" and exits, while the other ranks wait (at most two
// minutes) for <file> to exist before they go on to MPI_Finalize: a job
// with a rank finalized and others still running, for as long as a test
// needs.
func crHold(rank int) {
	hold := os.Getenv("TESTPROG_CR_HOLD")
	if hold == "" {
		return
	}
	if rank == 0 {
		if err := mpi.Finalize(); err != nil {
			fail("finalize: %v", err)
		}
		fmt.Println("rank 0 finalized")
		os.Exit(0)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(hold); err == nil {
			return
		}
		if time.Now().After(deadline) {
			fail("no file %s after two minutes", hold)
		}
	}
}

// crOp does iteration i's operation and returns the sum of what this
// rank received.
func crOp(c *mpi.Comm, op string, rank, size, n, i int) uint64 {
	right, left := (rank+1)%size, (rank+size-1)%size
	send := make([]int32, n)
	for k := range send {
		send[k] = int32(rank*7919 + i*31 + k)
	}
	recv := make([]int32, n)
	var err error
	call := "MPI_" + op
	crRun.call.Store(call)
	check := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	wait := func(rs ...*mpi.Request) {
		crRun.call.Store("MPI_Waitall")
		_, e := mpi.Waitall(rs...)
		check(e)
	}
	// pair sends to the right and receives from the left, in an order
	// that cannot deadlock whatever the message's size (even ranks send
	// first, odd ones receive first; size is even or 1).
	pair := func(sendf func() error) {
		if rank%2 == 0 {
			check(sendf())
			_, e := mpi.Recv(c, recv, left, i)
			check(e)
		} else {
			_, e := mpi.Recv(c, recv, left, i)
			check(e)
			check(sendf())
		}
	}
	switch op {
	case "sendrecv":
		_, err = mpi.Sendrecv(c, send, right, i, recv, left, i)
	case "send":
		pair(func() error { return mpi.Send(c, send, right, i) })
	case "ssend":
		pair(func() error { return mpi.Ssend(c, send, right, i) })
	case "recv":
		// Rank 0 waits in Recv while the last rank takes its time.
		if rank == size-1 {
			time.Sleep(2 * time.Millisecond)
		}
		pair(func() error { return mpi.Send(c, send, right, i) })
	case "rsend", "irsend":
		r, e := mpi.Irecv(c, recv, left, i)
		check(e)
		crRun.call.Store("MPI_Barrier")
		check(mpi.Barrier(c))
		crRun.call.Store(call)
		if op == "rsend" {
			check(mpi.Rsend(c, send, right, i))
			wait(r)
		} else {
			s, e := mpi.Irsend(c, send, right, i)
			check(e)
			wait(r, s)
		}
	case "isend", "issend", "wait":
		r, e := mpi.Irecv(c, recv, left, i)
		check(e)
		var s *mpi.Request
		if op == "issend" {
			s, e = mpi.Issend(c, send, right, i)
		} else {
			s, e = mpi.Isend(c, send, right, i)
		}
		check(e)
		if op == "wait" {
			crRun.call.Store("MPI_Wait")
			_, e = r.Wait()
			check(e)
			_, e = s.Wait()
			check(e)
		} else {
			wait(r, s)
		}
	case "inter":
		// Local rank rank/2 of one parity talks with the same local rank
		// of the other; the type takes every other int32 of the buffer.
		out, in := make([]byte, 8*n), make([]byte, 8*n)
		for k, v := range send {
			binary.LittleEndian.PutUint32(out[8*k:], uint32(v))
		}
		peer := rank / 2
		s, e := mpi.IsendType(crRun.inter, out, 1, crRun.vec, peer, i)
		check(e)
		if e == nil {
			_, e = mpi.RecvType(crRun.inter, in, 1, crRun.vec, peer, i)
			check(e)
			wait(s)
		}
		for k := range recv {
			recv[k] = int32(binary.LittleEndian.Uint32(in[8*k:]))
		}
	case "barrier":
		err = mpi.Barrier(c)
		copy(recv, send)
	case "sleep":
		// Outside MPI: a checkpoint's cost alone, for counting it
		// (docs/checkpoint.md, the coordination's waits).
		time.Sleep(2 * time.Millisecond)
		copy(recv, send)
	case "bcast":
		if rank == i%size {
			copy(recv, send)
		}
		err = mpi.Bcast(c, recv, i%size)
	case "gather", "gatherv":
		all := make([]int32, n*size)
		if op == "gather" {
			err = mpi.Gather(c, send, all, i%size)
		} else {
			counts, displs := make([]int, size), make([]int, size)
			for k := range counts {
				counts[k], displs[k] = n, k*n
			}
			err = mpi.Gatherv(c, send, all, counts, displs, i%size)
		}
		recv = all
	case "scatter":
		all := make([]int32, n*size)
		for k := range all {
			all[k] = int32(i*13 + k)
		}
		err = mpi.Scatter(c, all, recv, i%size)
	case "reduce":
		err = mpi.Reduce(c, send, recv, mpi.Sum, i%size)
	case "allreduce":
		err = mpi.Allreduce(c, send, recv, mpi.Sum)
	case "alltoall":
		all, got := make([]int32, n*size), make([]int32, n*size)
		for k := range all {
			all[k] = int32(rank*7919 + i*31 + k)
		}
		err = mpi.Alltoall(c, all, got)
		recv = got
	default:
		fail("unknown operation %q", op)
	}
	if err != nil {
		fail("iteration %d: %s: %v", i, op, err)
	}
	var sum uint64
	for _, v := range recv {
		sum += uint64(uint32(v))
	}
	return sum
}

// crInterSetup makes the inter operation's intercommunicator (even ranks
// and odd ones; the job has an even number of ranks) and datatype (n
// int32s, every other one).
func crInterSetup(rank, size, n int) {
	if size%2 != 0 {
		fail("inter needs an even number of ranks, not %d", size)
	}
	local, err := mpi.World.Split(rank%2, rank)
	if err != nil {
		fail("split: %v", err)
	}
	if crRun.inter, err = mpi.IntercommCreate(local, 0, mpi.World, 1-rank%2, 99); err != nil {
		fail("intercomm: %v", err)
	}
	if err := local.Free(); err != nil {
		fail("free: %v", err)
	}
	if crRun.vec, err = mpi.TypeVector(n, 1, 2, mpi.Int32); err != nil {
		fail("vector: %v", err)
	}
	if err := crRun.vec.SetName("every other int32"); err != nil {
		fail("type name: %v", err)
	}
}
