package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

// stream: rank 0 sends 32 MiB messages to rank 1 without end, so that a
// test can kill a rank in the middle of a long transfer. Rank 1 says
// "streaming" once the first message arrived.
func init() {
	suites["stream"] = func(rank, size int) {
		buf := make([]byte, 32<<20)
		for i := 0; ; i++ {
			var err error
			switch rank {
			case 0:
				err = mpi.Send(mpi.World, buf, 1, 0)
			case 1:
				_, err = mpi.Recv(mpi.World, buf, 0, 0)
				if i == 0 {
					fmt.Println("streaming")
					os.Stdout.Sync()
				}
			default:
				select {}
			}
			if err != nil {
				fail("stream: %v", err)
			}
		}
	}
}
