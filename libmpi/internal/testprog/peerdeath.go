package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

// peerdeath: ranks 0 and 1 ping-pong until rank 1 is killed (a test
// kills it once the line "peerdeath running" is out); rank 0 then
// reports the error its call returned and exits 3.
func init() {
	suites["peerdeath"] = func(rank, size int) {
		mpi.World.SetErrhandler(mpi.ErrorsReturn)
		buf := make([]byte, 64)
		for i := 0; ; i++ {
			switch rank {
			case 0:
				if err := mpi.Send(mpi.World, buf, 1, 0); err != nil {
					fail("send to rank 1: %v", err)
				}
				if _, err := mpi.Recv(mpi.World, buf, 1, 0); err != nil {
					fail("recv from rank 1: %v", err)
				}
			case 1:
				if _, err := mpi.Recv(mpi.World, buf, 0, 0); err != nil {
					fail("recv from rank 0: %v", err)
				}
				if err := mpi.Send(mpi.World, buf, 0, 0); err != nil {
					fail("send to rank 0: %v", err)
				}
				if i == 100 {
					fmt.Println("peerdeath running")
					os.Stdout.Sync()
				}
			default:
				return
			}
		}
	}
}
