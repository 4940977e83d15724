// Command pingpong measures point-to-point performance between ranks 0
// and 1, printing in the OSU micro-benchmarks' format so its numbers line
// up with osu_latency and osu_bw run on other MPIs:
//
//	mpirun -np 2 pingpong latency     one-way latency, half a round trip
//	mpirun -np 2 pingpong pingpong    ping-pong bandwidth
//	mpirun -np 2 pingpong bw          windowed bandwidth (osu_bw)
//	mpirun -np 2 pingpong vector      one-way time of strided float64 data
//	                                  (every -stride'th of a buffer) sent as
//	                                  a vector datatype (-pack: packed by
//	                                  hand, sent as bytes and unpacked)
//
// Sizes run from 1 byte to 4 MiB (-min and -max change the ends). Ranks
// beyond 1 return at once, or with -hold wait in MPI_Barrier until ranks
// 0 and 1 are done, keeping their links open (what idle peers cost).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

func main() {
	minSize := flag.Int("min", 1, "smallest message in bytes")
	maxSize := flag.Int("max", 4<<20, "largest message in bytes")
	iters := flag.Int("iters", 1000, "iterations for small messages (fewer for large ones)")
	window := flag.Int("window", 64, "messages in flight for bw")
	profile := flag.String("cpuprofile", "", "write rank 0's CPU profile to this file")
	stride := flag.Int("stride", 2, "vector: the stride, in float64s")
	pack := flag.Bool("pack", false, "vector: pack and unpack by hand around sends of bytes")
	hold := flag.Bool("hold", false, "ranks beyond 1 wait for the measurement to end, their links open")
	flag.Parse()
	mode := "latency"
	if flag.NArg() > 0 {
		mode = flag.Arg(0)
	}
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		os.Exit(1)
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	if mpi.World.Size() < 2 {
		fmt.Fprintln(os.Stderr, "pingpong: run it with at least 2 ranks")
		mpi.Abort(mpi.World, 1)
	}
	if *hold {
		defer mpi.Barrier(mpi.World)
	}
	if rank > 1 {
		return
	}
	peer := 1 - rank
	if *profile != "" && rank == 0 {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pingpong:", err)
			mpi.Abort(mpi.World, 1)
		}
		defer pprof.StopCPUProfile()
	}
	buf := make([]byte, *maxSize)
	// Start measuring in a steady state: the garbage of start-up collected
	// (a collection running during the first sizes takes a processor from
	// the spinning ranks) and both ranks past their first messages.
	runtime.GC()
	roundTrip(buf[:1], rank, peer, 20000)
	switch mode {
	case "latency":
		if rank == 0 {
			fmt.Println("# LAM/Go MPI latency test (one-way, half of a round trip)")
			fmt.Printf("%-10s%20s\n", "# Size", "Latency (us)")
		}
		for size := max(*minSize, 1); size <= *maxSize; size *= 2 {
			if rt := roundTrip(buf[:size], rank, peer, *iters); rank == 0 {
				fmt.Printf("%-10d%20.2f\n", size, rt*1e6/2)
			}
		}
	case "pingpong":
		if rank == 0 {
			fmt.Println("# LAM/Go MPI ping-pong bandwidth test")
			fmt.Printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)")
		}
		for size := max(*minSize, 1); size <= *maxSize; size *= 2 {
			if rt := roundTrip(buf[:size], rank, peer, *iters); rank == 0 {
				fmt.Printf("%-10d%20.2f\n", size, float64(2*size)/rt/1e6)
			}
		}
	case "bw":
		if rank == 0 {
			fmt.Println("# LAM/Go MPI bandwidth test (windowed)")
			fmt.Printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)")
		}
		reqs := make([]*mpi.Request, *window)
		ack := make([]byte, 1)
		for size := max(*minSize, 1); size <= *maxSize; size *= 2 {
			n, warm := rounds(*iters/10+1, size)
			var t0 float64
			for i := -warm; i < n; i++ {
				if i == 0 {
					t0 = mpi.Wtime()
				}
				for w := range reqs {
					if rank == 0 {
						reqs[w], _ = mpi.Isend(mpi.World, buf[:size], peer, 2)
					} else {
						reqs[w], _ = mpi.Irecv(mpi.World, buf[:size], peer, 2)
					}
				}
				mpi.Waitall(reqs...)
				if rank == 0 {
					mpi.Recv(mpi.World, ack, peer, 3)
				} else {
					mpi.Send(mpi.World, ack, peer, 3)
				}
			}
			if rank == 0 {
				fmt.Printf("%-10d%20.2f\n", size, float64(n*len(reqs)*size)/(mpi.Wtime()-t0)/1e6)
			}
		}
	case "vector":
		if rank == 0 {
			fmt.Printf("# LAM/Go MPI strided vector test (stride %d, pack %v; one-way, half of a round trip)\n", *stride, *pack)
			fmt.Printf("%-10s%20s\n", "# Size", "Latency (us)")
		}
		for size := max(*minSize, 8); size <= *maxSize; size *= 2 {
			if rt := vectorTrip(size/8, *stride, *pack, rank, peer, *iters); rank == 0 {
				fmt.Printf("%-10d%20.2f\n", size, rt*1e6/2)
			}
		}
	default:
		if rank == 0 {
			fmt.Fprintf(os.Stderr, "pingpong: unknown test %q (latency, pingpong, bw or vector)\n", mode)
		}
		mpi.Abort(mpi.World, 2)
	}
}

// roundTrip returns the seconds one ping-pong of buf takes, averaged.
func roundTrip(buf []byte, rank, peer, iters int) float64 {
	n, warm := rounds(iters, len(buf))
	var t0 float64
	for i := -warm; i < n; i++ {
		if i == 0 {
			t0 = mpi.Wtime()
		}
		if rank == 0 {
			mpi.Send(mpi.World, buf, peer, 1)
			mpi.Recv(mpi.World, buf, peer, 1)
		} else {
			mpi.Recv(mpi.World, buf, peer, 1)
			mpi.Send(mpi.World, buf, peer, 1)
		}
	}
	return (mpi.Wtime() - t0) / float64(n)
}

// rounds scales the iteration count down for large messages.
func rounds(iters, size int) (n, warm int) {
	n = iters
	if size > 64<<10 {
		n = max(iters/10, 10)
	}
	return n, max(n/10, 2)
}

// vectorTrip returns the seconds one ping-pong of n float64s, every
// stride'th of a buffer, takes, averaged: sent as a vector datatype, or
// packed by hand and sent as bytes.
func vectorTrip(n, stride int, pack bool, rank, peer, iters int) float64 {
	v, err := mpi.TypeVector(n, 1, stride, mpi.Float64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		mpi.Abort(mpi.World, 1)
	}
	data := make([]float64, (n-1)*stride+1)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 8*len(data))
	var packed []byte
	if pack {
		packed = make([]byte, mpi.PackSize(1, v))
	}
	send := func() {
		if pack {
			mpi.Pack(buf, 1, v, packed, new(int))
			mpi.Send(mpi.World, packed, peer, 1)
			return
		}
		mpi.SendType(mpi.World, buf, 1, v, peer, 1)
	}
	recv := func() {
		if pack {
			mpi.Recv(mpi.World, packed, peer, 1)
			mpi.Unpack(packed, new(int), buf, 1, v)
			return
		}
		mpi.RecvType(mpi.World, buf, 1, v, peer, 1)
	}
	k, warm := rounds(iters, 8*n)
	var t0 float64
	for i := -warm; i < k; i++ {
		if i == 0 {
			t0 = mpi.Wtime()
		}
		if rank == 0 {
			send()
			recv()
		} else {
			recv()
			send()
		}
	}
	return (mpi.Wtime() - t0) / float64(k)
}
