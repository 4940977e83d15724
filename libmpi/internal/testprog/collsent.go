package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// collsent [LEVEL [OPS]]: many rooted collectives back to back on World
// (Bcast, Gather, Scatter of bytes, other roots, sizes and data each
// time: one round of shmem's area, several, or lam_basic's), mixed with
// Barriers, Allreduces and Allgathers, every byte every rank receives
// checked; some ranks late now and then, so that writers that return at
// once (coll_base_check=1 and 0) run ahead of their readers. Then, at
// LEVEL 1 (the default) or 2, calls whose counts differ: at 1 only the
// ranks that receive data of another call get the error (a Bcast's
// non-roots, a Gather's root), at 2 every rank; World goes on after.
func init() {
	suites["collsent"] = func(rank, size int) {
		mpi.World.SetErrhandler(mpi.ErrorsReturn)
		level, ops := 1, 3000
		if len(os.Args) > 2 {
			level, _ = strconv.Atoi(os.Args[2])
		}
		if len(os.Args) > 3 {
			ops, _ = strconv.Atoi(os.Args[3])
		}
		backToBack(rank, size, ops)
		if level > 0 {
			sentMismatch(rank, size, level)
		}
		mustOK("barrier at the end", mpi.Barrier(mpi.World))
		if rank == 0 {
			fmt.Println("collsent ok", mpi.World.CollModule())
		}
	}
}

// sentVal is byte i of rank r's data in operation op.
func sentVal(op, r, i int) byte { return byte(op*131 + r*29 + i*7 + 1) }

func backToBack(rank, size, ops int) {
	seq := rand.New(rand.NewPCG(uint64(size), 11))            // the same calls on every rank
	late := rand.New(rand.NewPCG(uint64(size), uint64(rank))) // this rank's delays
	sizes := []int{1, 8, 24, 200, 700, 4096, 5000, 40000}
	check := func(what string, op, size, q, lo int, b []byte) {
		for i, x := range b {
			if w := sentVal(op, q, lo+i); x != w {
				fail("collsent op %d: %s of %d bytes: byte %d of rank %d's data is %d, want %d", op, what, size, lo+i, q, x, w)
			}
		}
	}
	fill := func(op, q int, b []byte) {
		for i := range b {
			b[i] = sentVal(op, q, i)
		}
	}
	for op := range ops {
		if late.IntN(16) == 0 {
			if late.IntN(2) == 0 {
				time.Sleep(time.Duration(late.IntN(200)) * time.Microsecond)
			} else {
				for i := 0; i < late.IntN(20000); i++ {
					_ = i * i
				}
			}
		}
		m, root := sizes[seq.IntN(len(sizes))], seq.IntN(size)
		switch k := seq.IntN(10); {
		case k < 3:
			buf := make([]byte, m)
			if rank == root {
				fill(op, root, buf)
			}
			mustOK(fmt.Sprintf("collsent op %d bcast", op), mpi.Bcast(mpi.World, buf, root))
			check("bcast", op, m, root, 0, buf)
		case k < 5:
			send := make([]byte, m)
			fill(op, rank, send)
			var recv []byte
			if rank == root {
				recv = make([]byte, size*m)
			}
			mustOK(fmt.Sprintf("collsent op %d gather", op), mpi.Gather(mpi.World, send, recv, root))
			for q := 0; rank == root && q < size; q++ {
				check("gather", op, m, q, 0, recv[q*m:(q+1)*m])
			}
		case k < 7:
			var send []byte
			if rank == root {
				send = make([]byte, size*m)
				for q := range size {
					fill(op, q, send[q*m:(q+1)*m])
				}
			}
			recv := make([]byte, m)
			mustOK(fmt.Sprintf("collsent op %d scatter", op), mpi.Scatter(mpi.World, send, recv, root))
			check("scatter", op, m, rank, 0, recv)
		case k == 7:
			mustOK(fmt.Sprintf("collsent op %d barrier", op), mpi.Barrier(mpi.World))
		case k == 8:
			send, sum := []int64{int64(rank + op), int64(rank * op)}, make([]int64, 2)
			mustOK(fmt.Sprintf("collsent op %d allreduce", op), mpi.Allreduce(mpi.World, send, sum, mpi.Sum))
			w := int64(size*op + size*(size-1)/2)
			if sum[0] != w || sum[1] != int64(op*size*(size-1)/2) {
				fail("collsent op %d: allreduce %v", op, sum)
			}
		default:
			m = min(m, 5000)
			send, recv := make([]byte, m), make([]byte, size*m)
			fill(op, rank, send)
			mustOK(fmt.Sprintf("collsent op %d allgather", op), mpi.Allgather(mpi.World, send, recv))
			for q := range size {
				check("allgather", op, m, q, 0, recv[q*m:(q+1)*m])
			}
		}
	}
}

func sentMismatch(rank, size, level int) {
	last := rank == size-1
	expect := func(what string, gets bool, err error) {
		if gets && mpi.Class(err) != mpi.ErrCount || !gets && err != nil {
			fail("collsent %s: %v (error expected: %v)", what, err, gets)
		}
	}
	// A Bcast whose last rank gives another count.
	k := 4
	if last {
		k = 5
	}
	buf := make([]int32, k)
	expect("a Bcast's count on the last rank", level == 2 || last, mpi.Bcast(mpi.World, buf, 0))
	// Its root's.
	k = 4
	if rank == 0 {
		k = 5
	}
	buf = make([]int32, k)
	for i := range buf {
		buf[i] = -1
	}
	expect("a Bcast's count at the root", level == 2 || rank != 0, mpi.Bcast(mpi.World, buf, 0))
	if rank != 0 && level == 1 && buf[0] != -1 {
		fail("collsent: a Bcast of another call wrote the buffer")
	}
	// A Gather whose last rank sends another count.
	k = 2
	if last {
		k = 3
	}
	send, recv := make([]int32, k), make([]int32, 2*size)
	for i := range send {
		send[i] = int32(rank)
	}
	for i := range recv {
		recv[i] = -1
	}
	expect("a Gather's count on the last rank", level == 2 || rank == 0, mpi.Gather(mpi.World, send, recv, 0))
	if rank == 0 && level == 1 {
		for q := range size - 1 {
			if recv[2*q] != int32(q) || recv[2*q+1] != int32(q) {
				fail("collsent: gather with one count wrong: block %d is %v", q, recv[2*q:2*q+2])
			}
		}
		if recv[2*(size-1)] != -1 {
			fail("collsent: gather with one count wrong: the block of another call was written")
		}
	}
	// World goes on.
	backToBack(rank, size, 50)
}
