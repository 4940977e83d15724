package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// tick SECONDS: the ranks pass a token around a ring for SECONDS (default
// 5), so that a test can stop or kill a process, or a lamd, under a job
// that is busy in MPI calls. Every rank says "rank N ticking" once the
// first round is done; rank 0 prints "tick ok" at the end.
func init() {
	suites["tick"] = func(rank, size int) {
		if size < 2 {
			fail("tick needs at least 2 ranks")
		}
		secs := 5
		if len(os.Args) > 2 {
			if n, err := strconv.Atoi(os.Args[2]); err == nil && n > 0 {
				secs = n
			}
		}
		end := time.Now().Add(time.Duration(secs) * time.Second)
		next, prev := (rank+1)%size, (rank+size-1)%size
		tok := []byte{1} // 1: another round; 0: the last
		pass := func() {
			if err := mpi.Send(mpi.World, tok, next, 0); err != nil {
				fail("send: %v", err)
			}
		}
		take := func() {
			if _, err := mpi.Recv(mpi.World, tok, prev, 0); err != nil {
				fail("recv: %v", err)
			}
		}
		for round := 0; ; round++ {
			if rank == 0 {
				tok[0] = 1
				if time.Now().After(end) {
					tok[0] = 0
				}
				pass()
				take()
			} else {
				take()
				pass()
			}
			if round == 0 {
				fmt.Printf("rank %d ticking\n", rank)
				os.Stdout.Sync()
			}
			if tok[0] == 0 {
				break
			}
			if rank == 0 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if rank == 0 {
			fmt.Println("tick ok")
		}
	}
}
