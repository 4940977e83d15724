package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The crlong suite: a long (rendezvous) message in flight at a checkpoint
// (shared/integration/crlib_test.go's TestCRLibLong).
//
//	testprog crlong <send|ssend|isend|issend> <bytes> <gate>
//
// Rank 0 sends rank 1 one message of <bytes> bytes (Send, Ssend, or Isend
// or Issend and then nothing), then waits outside MPI until the file
// <gate> exists; rank 1 waits for the gate before it receives. A
// checkpoint in between finds rank 1 holding the message's announcement
// and rank 0 blocked in its send (or done with its Isend): the drain
// brings the body to rank 1, and rank 0's Send completes — not a
// synchronous send, which completes only when rank 1 receives the
// message. Rank 0 prints "rank 0 sent" once its send returns. Each rank's state is where it stands: rank 0 writes that it
// sent (it is past its send, or inside it, which a checkpoint completes);
// a restarted job therefore does not send again, and rank 1 receives the
// message from what the checkpoint saved. Rank 1 checks the bytes and
// prints "rank 1 received <n> bytes" and, at a restart, "rank 1 restarted
// with <m> messages, <l> lost". Each rank also hands a request to the
// checkpoint (CheckpointWriter.Request) and gets it back at restart
// (mpi.ReadRequest): rank 0 its Isend, done, or its Issend, done once
// rank 1 has received the message after the restart; rank 1 an Irecv of a small
// message of tag 6 that rank 0 sends at the end, posted again. They
// print "rank 0 request done" and "rank 1 request received 16 bytes".

var crLong struct {
	mu        sync.Mutex
	sent      bool
	restarted bool
	// req is a request the checkpoint saves: rank 0's Isend (isend
	// mode), rank 1's Irecv of four int32s of tag 6 into small, posted
	// before the gate and sent by rank 0 at the end.
	req   *mpi.Request
	small []int32
}

func init() {
	suites["crlong"] = crLongSuite
	if len(os.Args) < 2 || os.Args[1] != "crlong" {
		return
	}
	mpi.OnCheckpoint(func(w *mpi.CheckpointWriter) error {
		crLong.mu.Lock()
		defer crLong.mu.Unlock()
		fmt.Printf("rank %d checkpoint\n", mpi.World.Rank())
		if err := w.Encode(crLong.sent); err != nil {
			return err
		}
		return w.Request(crLong.req)
	})
	mpi.OnContinue(func() error {
		fmt.Printf("rank %d continued\n", mpi.World.Rank())
		return nil
	})
	mpi.OnRestart(func(r *mpi.CheckpointReader) error {
		crLong.mu.Lock()
		defer crLong.mu.Unlock()
		crLong.restarted = true
		fmt.Printf("rank %d restarted with %d messages, %d lost\n", mpi.World.Rank(), r.Messages(), r.LostMessages())
		if err := r.Decode(&crLong.sent); err != nil {
			return err
		}
		var err error
		if mpi.World.Rank() == 0 {
			n, _ := strconv.Atoi(os.Args[3])
			crLong.req, err = mpi.ReadRequest(r, make([]byte, n))
		} else {
			crLong.small = make([]int32, 4)
			crLong.req, err = mpi.ReadRequest(r, crLong.small)
		}
		return err
	})
}

// crLongData is the message: every byte says where it is.
func crLongData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>11)
	}
	return b
}

func crLongSuite(rank, size int) {
	if len(os.Args) != 5 || size != 2 {
		fail("usage: mpirun -np 2 testprog crlong <send|ssend|isend> <bytes> <gate>")
	}
	mode, gate := os.Args[2], os.Args[4]
	n, err := strconv.Atoi(os.Args[3])
	if err != nil || n < 1 {
		fail("bad size %q", os.Args[3])
	}
	waitGate := func() {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(gate); err == nil {
				return
			}
			if time.Now().After(deadline) {
				fail("no gate %s after two minutes", gate)
			}
		}
	}
	fmt.Printf("rank %d running\n", rank)
	crLong.mu.Lock()
	restarted, sent := crLong.restarted, crLong.sent
	crLong.mu.Unlock()
	if rank == 0 {
		if !sent {
			crLong.mu.Lock()
			crLong.sent = true // from here on, a checkpoint holds the message
			crLong.mu.Unlock()
			data := crLongData(n)
			fmt.Printf("rank 0 in MPI_%s\n", mode)
			switch mode {
			case "send":
				err = mpi.Send(mpi.World, data, 1, 5)
			case "ssend":
				err = mpi.Ssend(mpi.World, data, 1, 5)
			case "isend", "issend":
				var req *mpi.Request
				if mode == "isend" {
					req, err = mpi.Isend(mpi.World, data, 1, 5) // waited for at the end
				} else {
					req, err = mpi.Issend(mpi.World, data, 1, 5)
				}
				crLong.mu.Lock()
				crLong.req = req
				crLong.mu.Unlock()
			default:
				fail("unknown mode %q", mode)
			}
			if err != nil {
				fail("%s: %v", mode, err)
			}
			fmt.Println("rank 0 sent")
		}
		if !restarted {
			waitGate()
		}
		if crLong.req != nil {
			if _, done, err := crLong.req.Test(); err != nil || (!done && restarted && mode == "isend") {
				fail("the Isend's request: done %v, %v", done, err)
			}
			if _, err := crLong.req.Wait(); err != nil {
				fail("the Isend's request: %v", err)
			}
			fmt.Println("rank 0 request done")
		}
		if err := mpi.Send(mpi.World, []int32{1, 2, 3, 4}, 1, 6); err != nil {
			fail("send of tag 6: %v", err)
		}
	} else {
		if !restarted {
			crLong.mu.Lock()
			crLong.small = make([]int32, 4)
			crLong.req, err = mpi.Irecv(mpi.World, crLong.small, 0, 6)
			crLong.mu.Unlock()
			if err != nil {
				fail("irecv: %v", err)
			}
			fmt.Println("rank 1 posted")
			waitGate()
		}
		got := make([]byte, n+1)
		st, err := mpi.Recv(mpi.World, got, 0, 5)
		if err != nil {
			fail("recv: %v", err)
		}
		c := st.Bytes
		if c != n || !bytes.Equal(got[:n], crLongData(n)) {
			fail("received %d bytes, not the %d sent (or other bytes)", c, n)
		}
		fmt.Printf("rank 1 received %d bytes\n", c)
		s, err := crLong.req.Wait()
		if err != nil || s.Bytes != 16 || crLong.small[0] != 1 || crLong.small[3] != 4 {
			fail("the Irecv's request: %+v %v %v", s, err, crLong.small)
		}
		fmt.Println("rank 1 request received 16 bytes")
	}
	if err := mpi.Barrier(mpi.World); err != nil {
		fail("barrier: %v", err)
	}
}
