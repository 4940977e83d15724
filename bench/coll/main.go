// Command coll measures collective operations on every rank of World,
// printing in the OSU micro-benchmarks' format (osu_allreduce, osu_bcast,
// osu_barrier) so its columns line up with bench/c/coll.c run on other
// MPIs:
//
//	mpirun C coll allreduce    Allreduce of float32 sums
//	mpirun C coll bcast        Bcast from rank 0
//	mpirun C coll barrier      Barrier
//	mpirun C coll gather       Gather to rank 0 (size: each rank's block)
//	mpirun C coll scatter      Scatter from rank 0 (size: each rank's block)
//	mpirun C coll allgather    Allgather (size: each rank's block)
//	mpirun C coll alltoall     Alltoall (size: each block)
//	mpirun C coll iallreduce   Iallreduce then Wait
//	mpirun C coll ibarrier     Ibarrier then Wait
//	mpirun C coll ibcast       Ibcast from rank 0 then Wait
//	mpirun C coll ireduce      Ireduce (float32 sum) to rank 0 then Wait
//	mpirun C coll igather      Igather then Wait (iscatter, iallgather,
//	                           ialltoall likewise; sizes as the blocking ones')
//
// Sizes (bytes) run from -min to -max, doubling (4 MiB by default for
// both), or are those of -sizes (a comma-separated list; the buffers are
// then as large as the largest, as the C twin's, or -max if given). The latency of a
// size is the time of -iters operations (a tenth as many above 64 KiB,
// a fortieth above 1 MiB; a tenth as many unmeasured ones first) divided by
// their number, averaged over the ranks, as OSU does (with -median, the
// median of the operations' times, each timed apart, averaged over the
// ranks: steadier when other processes share the processors). After it,
// "# slowest SIZE US" is the slowest rank's time (bench/c/coll.c says why
// it differs). Rank 0 also prints
// the coll module World got, and after each size's line one that says
// how many heap objects the measured operations allocated per operation,
// the most of any rank's ("# allocs/op SIZE N"; bench/c/coll.c prints the
// same for LAM/Go's libmpi.so). -memprofile FILE writes rank 0's
// allocation profile, every allocation sampled (go tool pprof
// -sample_index=alloc_objects).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

func main() {
	minSize := flag.Int("min", 4<<20, "smallest message in bytes")
	maxSize := flag.Int("max", 4<<20, "largest message in bytes")
	iters := flag.Int("iters", 100, "measured operations per size")
	profile := flag.String("cpuprofile", "", "write a rank's CPU profile (-profrank) to this file")
	memProfile := flag.String("memprofile", "", "write a rank's allocation profile (every allocation sampled) to this file")
	profRank := flag.Int("profrank", 0, "the rank whose profiles -cpuprofile and -memprofile write")
	sizeList := flag.String("sizes", "", "comma-separated sizes in bytes (instead of -min and -max)")
	median := flag.Bool("median", false, "time each operation and print the median's average over the ranks instead of the mean (steadier on a busy machine)")
	flag.Parse()
	var sizes []int
	if *sizeList != "" {
		// The buffers are as large as the largest size, as its C twin's
		// (bench/c/coll.c), unless -max asks for more: buffers of 4 MiB
		// per process for a run of 8-byte collectives would set the
		// heap's first goal, and so how long every per-call allocation
		// takes new pages, to tens of MiB, for this program alone.
		explicitMax := false
		flag.Visit(func(f *flag.Flag) { explicitMax = explicitMax || f.Name == "max" })
		if !explicitMax {
			*maxSize = 0
		}
		for _, f := range strings.Split(*sizeList, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 {
				fmt.Fprintf(os.Stderr, "coll: bad size %q in -sizes\n", f)
				os.Exit(2)
			}
			sizes = append(sizes, n)
			*maxSize = max(*maxSize, n)
		}
	} else {
		for s := *minSize; ; s = max(2*s, 1) {
			sizes = append(sizes, s)
			if s >= *maxSize {
				break
			}
		}
	}
	mode := "allreduce"
	if flag.NArg() > 0 {
		mode = flag.Arg(0)
	}
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "coll:", err)
		os.Exit(1)
	}
	defer mpi.Finalize()
	c := mpi.World
	rank := c.Rank()
	if *profile != "" && rank == *profRank {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "coll:", err)
			mpi.Abort(c, 1)
		}
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" && rank == *profRank {
		runtime.MemProfileRate = 1
		defer func() {
			runtime.GC() // the profile counts up to the last collection
			f, err := os.Create(*memProfile)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "coll:", err)
			}
		}()
	}
	var op func(size int) error
	// Every byte of every buffer is written before timing: a fresh
	// allocation's pages are not yet the process's own (each reads as the
	// kernel's one zero page, always in cache), which would flatter every
	// collective that reads a buffer it never wrote.
	var buffers [][]byte
	n := c.Size()
	switch mode {
	case "allreduce":
		send, recv := make([]float32, *maxSize/4), make([]float32, *maxSize/4)
		for i := range send {
			send[i], recv[i] = float32(rank+i%7), -1
		}
		op = func(size int) error { return mpi.Allreduce(c, send[:size/4], recv[:size/4], mpi.Sum) }
	case "bcast":
		buf := make([]byte, *maxSize)
		buffers = append(buffers, buf)
		op = func(size int) error { return mpi.Bcast(c, buf[:size], 0) }
	case "barrier":
		sizes = []int{0}
		op = func(int) error { return mpi.Barrier(c) }
	case "gather", "scatter", "igather", "iscatter":
		block, all := make([]byte, *maxSize), make([]byte, n**maxSize)
		buffers = append(buffers, block, all)
		op = func(size int) error {
			var whole []byte
			if rank == 0 {
				whole = all[:n*size]
			}
			switch mode {
			case "gather":
				return mpi.Gather(c, block[:size], whole, 0)
			case "igather":
				return wait(mpi.Igather(c, block[:size], whole, 0))
			case "iscatter":
				return wait(mpi.Iscatter(c, whole, block[:size], 0))
			}
			return mpi.Scatter(c, whole, block[:size], 0)
		}
	case "allgather", "iallgather":
		block, all := make([]byte, *maxSize), make([]byte, n**maxSize)
		buffers = append(buffers, block, all)
		op = func(size int) error {
			if mode == "iallgather" {
				return wait(mpi.Iallgather(c, block[:size], all[:n*size]))
			}
			return mpi.Allgather(c, block[:size], all[:n*size])
		}
	case "alltoall", "ialltoall":
		send, recv := make([]byte, n**maxSize), make([]byte, n**maxSize)
		buffers = append(buffers, send, recv)
		op = func(size int) error {
			if mode == "ialltoall" {
				return wait(mpi.Ialltoall(c, send[:n*size], recv[:n*size]))
			}
			return mpi.Alltoall(c, send[:n*size], recv[:n*size])
		}
	case "iallreduce":
		send, recv := make([]float32, *maxSize/4), make([]float32, *maxSize/4)
		for i := range send {
			send[i], recv[i] = float32(rank+i%7), -1
		}
		op = func(size int) error { return wait(mpi.Iallreduce(c, send[:size/4], recv[:size/4], mpi.Sum)) }
	case "ibcast":
		buf := make([]byte, *maxSize)
		buffers = append(buffers, buf)
		op = func(size int) error { return wait(mpi.Ibcast(c, buf[:size], 0)) }
	case "ireduce":
		send, recv := make([]float32, *maxSize/4), make([]float32, *maxSize/4)
		for i := range send {
			send[i], recv[i] = float32(rank+i%7), -1
		}
		op = func(size int) error { return wait(mpi.Ireduce(c, send[:size/4], recv[:size/4], mpi.Sum, 0)) }
	case "ibarrier":
		sizes = []int{0}
		op = func(int) error { return wait(mpi.Ibarrier(c)) }
	default:
		fmt.Fprintln(os.Stderr, "usage: coll [-min B] [-max B] [-sizes B,B...] [-iters N] allreduce|bcast|barrier|gather|scatter|allgather|alltoall|iallreduce|ibarrier|ibcast|ireduce|igather|iscatter|iallgather|ialltoall")
		mpi.Abort(c, 2)
	}
	for _, b := range buffers {
		for i := range b {
			b[i] = byte(rank + i%7 + 1)
		}
	}
	if rank == 0 {
		fmt.Printf("# LAM/Go MPI %s latency test, %d processes, coll module %s\n", mode, c.Size(), c.CollModule())
		fmt.Printf("%-10s%20s\n", "# Size", "Avg Latency(us)")
	}
	times := make([]time.Duration, max(*iters, 5))
	runtime.GC()
	for _, size := range sizes {
		iters := *iters
		switch {
		case size > 1<<20:
			iters = max(iters/40, 5)
		case size > 64<<10:
			iters = max(iters/10, 5)
		}
		for i := 0; i < max(iters/10, 1); i++ {
			must(op(size))
		}
		must(mpi.Barrier(c))
		a0 := heapAllocs()
		var us []float64
		if *median {
			us = []float64{medianOp(op, size, times[:iters])}
		} else {
			start := time.Now()
			for i := 0; i < iters; i++ {
				must(op(size))
			}
			us = []float64{float64(time.Since(start).Nanoseconds()) / 1e3 / float64(iters)}
		}
		allocs := []float64{float64(heapAllocs()-a0) / float64(iters)}
		sum, slowest, most := []float64{0}, []float64{0}, []float64{0}
		must(mpi.Reduce(c, us, sum, mpi.Sum, 0))
		must(mpi.Reduce(c, us, slowest, mpi.Max, 0))
		must(mpi.Reduce(c, allocs, most, mpi.Max, 0))
		if rank == 0 {
			fmt.Printf("%-10d%20.2f\n", size, sum[0]/float64(c.Size()))
			fmt.Printf("# slowest %d %.2f\n", size, slowest[0])
			fmt.Printf("# allocs/op %d %.2f\n", size, most[0])
		}
	}
}

// medianOp runs op(size) len(times) times, timing each, and returns the
// median in µs: an operation that a busy machine's other processes
// interrupted moves the mean, not the median.
func medianOp(op func(int) error, size int, times []time.Duration) float64 {
	for i := range times {
		start := time.Now()
		must(op(size))
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return float64(times[len(times)/2].Nanoseconds()) / 1e3
}

// heapAllocs is how many heap objects the process has allocated so far
// (as runtime.MemStats.Mallocs counts them, without stopping the world).
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// wait waits for a nonblocking collective's request.
func wait(r *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "coll:", err)
		mpi.Abort(mpi.World, 1)
	}
}
