package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// idle: rank 0 waits a second in MPI_Recv for rank 1 and prints the
// processor time it spent waiting, in milliseconds, so that a test can
// tell a waiter that sleeps from one that spins.
func init() {
	suites["idle"] = func(rank, size int) {
		switch rank {
		case 0:
			before := cpuTime()
			if _, err := mpi.Recv(mpi.World, make([]byte, 1), 1, 0); err != nil {
				fail("recv: %v", err)
			}
			fmt.Printf("idle cpu %d ms\n", (cpuTime()-before)/time.Millisecond)
		case 1:
			time.Sleep(time.Second)
			if err := mpi.Send(mpi.World, []byte{1}, 0, 0); err != nil {
				fail("send: %v", err)
			}
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleout: every rank prints its pid and "running", then sleeps outside
// MPI for the given seconds (default 5) and meets the others in a Barrier:
// a test counts the ranks' wake-ups meanwhile, which a waiting loop of the
// library (a checkpoint goroutine's, a transport's) would show.
func init() {
	suites["idleout"] = func(rank, size int) {
		secs := 5
		if len(os.Args) > 2 {
			if n, err := strconv.Atoi(os.Args[2]); err == nil && n > 0 {
				secs = n
			}
		}
		fmt.Printf("rank %d pid %d\n", rank, os.Getpid())
		fmt.Printf("rank %d running\n", rank)
		time.Sleep(time.Duration(secs) * time.Second)
		if err := mpi.Barrier(mpi.World); err != nil {
			fail("barrier: %v", err)
		}
		if rank == 0 {
			fmt.Println("idleout ok")
		}
	}
}
