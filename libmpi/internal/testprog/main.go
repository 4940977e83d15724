// Command testprog is an MPI program for the integration tests: its first
// argument says how it behaves.
//
//	p2p           every point-to-point corner the tests check, across ranks
//	nofinalize    calls MPI_Init and returns without MPI_Finalize
//	abort N       rank 1 calls MPI_Abort(N)
//	exit N        rank 1 exits with status N after MPI_Init
//	hang          rank 1 sleeps forever (for signal tests)
//	big MiB       rank 0 sends MiB megabytes to rank 1
//
// Further suites live in files of their own and add themselves to suites
// from an init function; "testprog <suite>" prints "<suite> ok" when every
// check passed and exits 3 with a message on the first that failed.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testprog rank %d: "+format+"\n", append([]any{mpi.World.Rank()}, args...)...)
	os.Exit(3)
}

// suites are the self-checking test suites, by name; each runs on every
// rank between Init and Finalize.
var suites = map[string]func(rank, size int){}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testprog p2p|nofinalize|abort N|exit N|hang|big MiB")
		os.Exit(2)
	}
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "testprog:", err)
		os.Exit(2)
	}
	rank, size := mpi.World.Rank(), mpi.World.Size()
	arg := 0
	if len(os.Args) > 2 {
		arg, _ = strconv.Atoi(os.Args[2])
	}
	switch os.Args[1] {
	case "nofinalize":
		return
	case "abort":
		if rank == 1 {
			mpi.Abort(mpi.World, arg)
		}
		time.Sleep(time.Minute)
	case "exit":
		if rank == 1 {
			os.Exit(arg)
		}
		time.Sleep(time.Minute)
	case "hang":
		if rank == 1 {
			select {}
		}
		time.Sleep(time.Minute)
	case "big":
		n := arg << 20
		buf := make([]byte, n)
		if rank == 0 {
			for i := range buf {
				buf[i] = byte(i * 13)
			}
			if err := mpi.Send(mpi.World, buf, 1, 0); err != nil {
				fail("send: %v", err)
			}
		} else if rank == 1 {
			if _, err := mpi.Recv(mpi.World, buf, 0, 0); err != nil {
				fail("recv: %v", err)
			}
			for i := range buf {
				if buf[i] != byte(i*13) {
					fail("byte %d wrong", i)
				}
			}
			fmt.Printf("received %d MiB\n", arg)
		}
	case "whereami":
		exe, _ := os.Executable()
		if rank == 0 {
			fmt.Println(filepath.Base(filepath.Dir(exe)), strings.HasPrefix(filepath.Base(exe), "lam-load-"))
		}
	case "stdin":
		// Only rank 0 gets mpirun's standard input; the others see EOF.
		data, _ := io.ReadAll(os.Stdin)
		fmt.Printf("rank %d read %q\n", rank, data)
	default:
		suite, ok := suites[os.Args[1]]
		if !ok {
			fail("unknown mode %q", os.Args[1])
		}
		suite(rank, size)
	}
	if err := mpi.Finalize(); err != nil {
		fail("finalize: %v", err)
	}
}

func init() {
	suites["p2p"] = p2p
	suites["comm"] = comms
}

// p2p checks point-to-point semantics between every rank and rank 0.
func p2p(rank, size int) {
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	// Argument errors return the right class.
	if err := mpi.Send(mpi.World, []int32{1}, size, 0); mpi.Class(err) != mpi.ErrRank {
		fail("send to rank %d: %v", size, err)
	}
	if err := mpi.Send(mpi.World, []int32{1}, 0, -5); mpi.Class(err) != mpi.ErrTag {
		fail("negative tag: %v", err)
	}
	if err := mpi.Send[int32](nil, []int32{1}, 0, 0); mpi.Class(err) != mpi.ErrComm {
		fail("nil communicator: %v", err)
	}
	// ProcNull.
	if err := mpi.Send(mpi.World, []int32{1}, mpi.ProcNull, 0); err != nil {
		fail("send to ProcNull: %v", err)
	}
	if st, err := mpi.Recv(mpi.World, []int32{0}, mpi.ProcNull, 0); err != nil || st.Source != mpi.ProcNull {
		fail("recv from ProcNull: %+v %v", st, err)
	}
	if rank == 0 {
		// Messages from everyone, in any order, each in order per sender.
		next := make([]int, size)
		for k := 0; k < 3*(size-1); k++ {
			buf := make([]int64, 2)
			st, err := mpi.Recv(mpi.World, buf, mpi.AnySource, mpi.AnyTag)
			if err != nil {
				fail("recv any: %v", err)
			}
			if int(buf[0]) != st.Source || int(buf[1]) != next[st.Source] || st.Tag != 10+int(buf[1]) || mpi.GetCount[int64](st) != 2 {
				fail("out of order or wrong status: %v %+v", buf, st)
			}
			next[st.Source]++
		}
		if size > 1 {
			mpi.Send(mpi.World, []byte("go"), 1, 40)
		}
		// Truncation reports MPI_ERR_TRUNCATE.
		small := make([]byte, 4)
		if st, err := mpi.Recv(mpi.World, small, 1, 50); mpi.Class(err) != mpi.ErrTruncate || st.Bytes != 4 {
			fail("truncation: %+v %v", st, err)
		}
		// Probe then receive a long message; Ssend; Sendrecv.
		st, err := mpi.Probe(mpi.World, 1, 60)
		if err != nil || st.Bytes != 1<<20 {
			fail("probe: %+v %v", st, err)
		}
		big := make([]byte, st.Bytes)
		if _, err := mpi.Recv(mpi.World, big, 1, 60); err != nil || !bytes.Equal(big, bytes.Repeat([]byte{7}, 1<<20)) {
			fail("long message: %v", err)
		}
		if _, err := mpi.Recv(mpi.World, make([]byte, 1), 1, 70); err != nil {
			fail("ssend partner: %v", err)
		}
		// Cancel an unmatched receive.
		r, _ := mpi.Irecv(mpi.World, make([]byte, 1), 1, 999)
		r.Cancel()
		if st, err := r.Wait(); err != nil || !st.Cancelled {
			fail("cancel: %+v %v", st, err)
		}
		// Persistent receive, restarted.
		buf := make([]int32, 1)
		pr, _ := mpi.RecvInit(mpi.World, buf, 1, 80)
		for i := 0; i < 3; i++ {
			pr.Start()
			if _, err := pr.Wait(); err != nil || buf[0] != int32(i) {
				fail("persistent %d: %v %v", i, buf, err)
			}
		}
		// Buffered sends: without a buffer, with too small a one, then
		// enough.
		got := make([]int32, 4)
		for i := 0; i < 2; i++ {
			if _, err := mpi.Recv(mpi.World, got, 1, 90); err != nil || got[3] != int32(i) {
				fail("bsend %d: %v %v", i, got, err)
			}
		}
		// Waitsome / Testall over several receives.
		var reqs []*mpi.Request
		for i := 0; i < 3; i++ {
			r, _ := mpi.Irecv(mpi.World, make([]byte, 1), 1, 100+i)
			reqs = append(reqs, r, nil)
		}
		for left := 3; left > 0; {
			idx, _, err := mpi.Waitsome(reqs...)
			if err != nil || len(idx) == 0 {
				fail("waitsome: %v %v", idx, err)
			}
			for _, i := range idx {
				reqs[i] = nil
				left--
			}
		}
		// Rank 1 withdraws a send, then says so; its frames arrive in
		// order, so the withdrawn message is gone by then.
		mpi.Recv(mpi.World, make([]byte, 1), 1, 997)
		if _, ok, _ := mpi.Iprobe(mpi.World, 1, 998); ok {
			fail("a cancelled send is still receivable")
		}
		fmt.Println("p2p ok")
	} else {
		for i := 0; i < 3; i++ {
			if err := mpi.Send(mpi.World, []int64{int64(rank), int64(i)}, 0, 10+i); err != nil {
				fail("send: %v", err)
			}
		}
		if rank == 1 {
			mpi.Recv(mpi.World, make([]byte, 2), 0, 40)
			mpi.Send(mpi.World, []byte("too long"), 0, 50)
			mpi.Send(mpi.World, bytes.Repeat([]byte{7}, 1<<20), 0, 60)
			if err := mpi.Ssend(mpi.World, []byte{1}, 0, 70); err != nil {
				fail("ssend: %v", err)
			}
			buf := make([]int32, 1)
			ps, _ := mpi.SendInit(mpi.World, buf, 0, 80)
			for i := 0; i < 3; i++ {
				buf[0] = int32(i)
				ps.Start()
				ps.Wait()
			}
			msg := []int32{1, 2, 3, 0}
			if err := mpi.Bsend(mpi.World, msg, 0, 90); mpi.Class(err) != mpi.ErrBuffer {
				fail("bsend without a buffer: %v", err)
			}
			mpi.BufferAttach(make([]byte, 10))
			if err := mpi.Bsend(mpi.World, msg, 0, 90); mpi.Class(err) != mpi.ErrBuffer {
				fail("bsend with too small a buffer: %v", err)
			}
			mpi.BufferDetach()
			mpi.BufferAttach(make([]byte, 2*(16+mpi.BsendOverhead)))
			for i := int32(0); i < 2; i++ {
				msg[3] = i
				if err := mpi.Bsend(mpi.World, msg, 0, 90); err != nil {
					fail("bsend: %v", err)
				}
			}
			if _, err := mpi.BufferDetach(); err != nil {
				fail("detach: %v", err)
			}
			for i := 2; i >= 0; i-- {
				mpi.Send(mpi.World, []byte{1}, 0, 100+i)
			}
			// A synchronous send nobody receives can be withdrawn.
			cr, _ := mpi.Issend(mpi.World, []byte("never"), 0, 998)
			time.Sleep(20 * time.Millisecond)
			cr.Cancel()
			if st, err := cr.Wait(); err != nil || !st.Cancelled {
				fail("cancel of a send: %+v %v", st, err)
			}
			mpi.Send(mpi.World, []byte{1}, 0, 997)
		}
	}
}

// comms checks groups and communicator creation.
func comms(rank, size int) {
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	dup, err := mpi.World.Dup()
	if err != nil || dup.Rank() != rank || dup.Size() != size {
		fail("dup: %v", err)
	}
	if c, _ := mpi.CommCompare(mpi.World, dup); c != mpi.Congruent {
		fail("compare world/dup = %d", c)
	}
	// Traffic on the duplicate does not match traffic on World.
	if rank == 0 && size > 1 {
		mpi.Send(mpi.World, []int32{1}, 1, 5)
		mpi.Send(dup, []int32{2}, 1, 5)
	} else if rank == 1 {
		got := []int32{0}
		mpi.Recv(dup, got, 0, 5)
		if got[0] != 2 {
			fail("dup received %d", got[0])
		}
		mpi.Recv(mpi.World, got, 0, 5)
		if got[0] != 1 {
			fail("world received %d", got[0])
		}
	}
	// Split by parity, reversed order within each part.
	half, err := mpi.World.Split(rank%2, -rank)
	if err != nil {
		fail("split: %v", err)
	}
	wantSize := (size + 1 - rank%2) / 2
	if half.Size() != wantSize || half.Rank() != (wantSize-1)-rank/2 {
		fail("split: size %d rank %d", half.Size(), half.Rank())
	}
	// A ring inside each half.
	sum := []int32{int32(rank)}
	total := int32(rank)
	for step := 1; step < half.Size(); step++ {
		next, prev := (half.Rank()+1)%half.Size(), (half.Rank()+half.Size()-1)%half.Size()
		in := []int32{0}
		if _, err := mpi.Sendrecv(half, sum, next, 7, in, prev, 7); err != nil {
			fail("ring in half: %v", err)
		}
		sum = in
		total += in[0]
	}
	want := int32(0)
	for r := rank % 2; r < size; r += 2 {
		want += int32(r)
	}
	if total != want {
		fail("ring sum in half %d, want %d", total, want)
	}
	none, err := mpi.World.Split(mpi.Undefined, 0)
	if err != nil || none != nil {
		fail("split with Undefined: %v %v", none, err)
	}
	// Groups.
	wg, _ := mpi.World.Group()
	evens, _ := wg.RangeIncl([][3]int{{0, size - 1, 2}})
	odds := mpi.GroupDifference(wg, evens)
	if evens.Size()+odds.Size() != size || mpi.GroupCompare(mpi.GroupUnion(evens, odds), wg) != mpi.Similar && size > 2 {
		fail("groups: %d %d", evens.Size(), odds.Size())
	}
	if tr, _ := evens.TranslateRanks([]int{0, 1}, wg); size > 2 && (tr[0] != 0 || tr[1] != 2) {
		fail("translate: %v", tr)
	}
	if _, err := wg.Incl([]int{size}); mpi.Class(err) != mpi.ErrRank {
		fail("incl of a bad rank: %v", err)
	}
	ec, err := mpi.World.Create(evens)
	if err != nil || (rank%2 == 0) != (ec != nil) {
		fail("create: %v %v", ec, err)
	}
	if ec != nil {
		if ec.Size() != evens.Size() || ec.Rank() != rank/2 {
			fail("create: size %d rank %d", ec.Size(), ec.Rank())
		}
		if err := ec.Free(); err != nil {
			fail("free: %v", err)
		}
		if err := mpi.Send(ec, []int32{1}, 0, 0); mpi.Class(err) != mpi.ErrComm {
			fail("send on a freed communicator: %v", err)
		}
	}
	if err := mpi.World.Free(); mpi.Class(err) != mpi.ErrComm {
		fail("free World: %v", err)
	}
	if rank == 0 {
		fmt.Println("comm ok")
	}
}
