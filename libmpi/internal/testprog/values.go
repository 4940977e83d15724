package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The values suite: Go values as messages (SendValue, RecvValue and the
// Value collectives) across ranks, on World and on a split, with values
// of different sizes on every rank; encoding failures reach the processes
// concerned and the communicator works after; receivers on their own tags
// in several goroutines. Prints "values ok".
func init() {
	suites["values"] = valuesSuite
	suites["valuebench"] = valueBench
}

type body struct {
	Pos, Vel [3]float64
	ID       int32
}

type record struct {
	Name  string
	Seen  map[int][]string
	Peers []*record
}

// recordOf is rank r's record: its size grows with r.
func recordOf(r int) *record {
	rec := &record{Name: strings.Repeat("r", r+1), Seen: map[int][]string{}}
	for i := range r {
		rec.Seen[i] = []string{fmt.Sprint(i, r)}
		rec.Peers = append(rec.Peers, &record{Name: fmt.Sprint(i)})
	}
	return rec
}

// bodiesOf is rank r's bodies: r*100+1 of them.
func bodiesOf(r int) []body {
	out := make([]body, r*100+1)
	for i := range out {
		out[i] = body{Pos: [3]float64{float64(r), float64(i), 1}, ID: int32(r*100000 + i)}
	}
	return out
}

func same(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %v, want %v", what, got, want)
	}
}

func valuesSuite(rank, size int) {
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	valuesP2P(rank, size)
	valueColls("world", mpi.World)
	half, err := mpi.World.Split(rank%2, -rank)
	mustOK("split", err)
	half.SetErrhandler(mpi.ErrorsReturn)
	valueColls("half", half)
	valueErrors(mpi.World)
	if size >= 2 {
		// On an intercommunicator (evens and odds): point to point between
		// the leaders, and the value collectives across the groups.
		side, err := mpi.World.Split(rank%2, rank)
		mustOK("split by parity", err)
		ic, err := mpi.IntercommCreate(side, 0, mpi.World, 1-rank%2, 78)
		mustOK("intercomm create", err)
		ic.SetErrhandler(mpi.ErrorsReturn)
		if side.Rank() == 0 {
			got, _, err := mpi.SendrecvValue[string, string](ic, fmt.Sprint("leader ", rank), 0, 6, 0, 6)
			mustOK("SendrecvValue on an intercommunicator", err)
			same("SendrecvValue on an intercommunicator", got, fmt.Sprint("leader ", 1-rank))
		}
		valueInterColls(ic, side, rank)
	}
	valueThreads(rank, size)
	if rank == 0 {
		fmt.Println("values ok")
	}
}

func valuesP2P(rank, size int) {
	w := mpi.World
	next, prev := (rank+1)%size, (rank+size-1)%size
	got, st, err := mpi.SendrecvValue[*record, *record](w, recordOf(rank), next, 1, prev, 1)
	mustOK("ring of records", err)
	same("ring of records", got, recordOf(prev))
	if st.Source != prev || st.Tag != 1 {
		fail("ring status %+v", st)
	}
	bs, _, err := mpi.SendrecvValue[[]body, []body](w, bodiesOf(rank), next, 2, prev, 2)
	mustOK("ring of bodies", err)
	same("ring of bodies", bs, bodiesOf(prev))
	// IrecvValue around the ring, started before the send.
	var into *record
	req, err := mpi.IrecvValue(w, &into, prev, 5)
	mustOK("IrecvValue", err)
	mustOK("send for IrecvValue", mpi.SendValue(w, recordOf(rank), next, 5))
	st, err = req.Wait()
	mustOK("IrecvValue's Wait", err)
	same("IrecvValue around the ring", into, recordOf(prev))
	if st.Source != prev || st.Tag != 5 {
		fail("IrecvValue status %+v", st)
	}
	// Everyone to rank 0, received from AnySource.
	if rank != 0 {
		mustOK("send to 0", mpi.SendValue(w, map[string]int{"rank": rank}, 0, 3))
		mustOK("send body to 0", mpi.SendValue(w, bodiesOf(rank)[rank], 0, 4))
		return
	}
	for range size - 1 {
		m, st, err := mpi.RecvValue[map[string]int](w, mpi.AnySource, 3)
		mustOK("recv any", err)
		same("recv any", m, map[string]int{"rank": st.Source})
		b, _, err := mpi.RecvValue[body](w, st.Source, 4)
		mustOK("recv body", err)
		same("recv body", b, bodiesOf(st.Source)[st.Source])
	}
}

func valueColls(name string, c *mpi.Comm) {
	rank, size := c.Rank(), c.Size()
	for _, root := range []int{0, size - 1} {
		where := fmt.Sprintf("%s root %d", name, root)
		var mine *record
		if rank == root {
			mine = recordOf(root + 3)
		}
		got, err := mpi.BcastValue(c, mine, root)
		mustOK("BcastValue "+where, err)
		same("BcastValue "+where, got, recordOf(root+3))
		var bs []body
		if rank == root {
			bs = bodiesOf(root)
		}
		bs, err = mpi.BcastValue(c, bs, root)
		mustOK("BcastValue bodies "+where, err)
		same("BcastValue bodies "+where, bs, bodiesOf(root))

		all, err := mpi.GatherValue(c, recordOf(rank), root)
		mustOK("GatherValue "+where, err)
		bodies, err := mpi.GatherValue(c, bodiesOf(rank), root)
		mustOK("GatherValue bodies "+where, err)
		if rank == root {
			for i := range size {
				same("GatherValue "+where, all[i], recordOf(i))
				same("GatherValue bodies "+where, bodies[i], bodiesOf(i))
			}
		} else if all != nil || bodies != nil {
			fail("GatherValue %s: a non-root got %v", where, all)
		}

		var vs []string
		if rank == root {
			for i := range size {
				vs = append(vs, strings.Repeat("x", i*7))
			}
		}
		s, err := mpi.ScatterValue(c, vs, root)
		mustOK("ScatterValue "+where, err)
		same("ScatterValue "+where, s, strings.Repeat("x", rank*7))
		var bvs [][]body
		if rank == root {
			for i := range size {
				bvs = append(bvs, bodiesOf(i))
			}
		}
		b, err := mpi.ScatterValue(c, bvs, root)
		mustOK("ScatterValue bodies "+where, err)
		same("ScatterValue bodies "+where, b, bodiesOf(rank))
	}
	all, err := mpi.AllgatherValue(c, recordOf(rank))
	mustOK("AllgatherValue "+name, err)
	points, err := mpi.AllgatherValue(c, body{ID: int32(rank)})
	mustOK("AllgatherValue bodies "+name, err)
	for i := range size {
		same("AllgatherValue "+name, all[i], recordOf(i))
		same("AllgatherValue bodies "+name, points[i], body{ID: int32(i)})
	}
	// Process i sends j the string "i>j" repeated i+j times.
	msg := func(i, j int) string { return strings.Repeat(fmt.Sprintf("%d>%d;", i, j), i+j) }
	var out []string
	for j := range size {
		out = append(out, msg(rank, j))
	}
	in, err := mpi.AlltoallValue(c, out)
	mustOK("AlltoallValue "+name, err)
	for i := range size {
		same("AlltoallValue "+name, in[i], msg(i, rank))
	}
}

// valueErrors: a value gob cannot encode is an error on its process and
// on those that were to receive it, and nowhere else; World works after.
func valueErrors(w *mpi.Comm) {
	rank, size := w.Rank(), w.Size()
	bad := size - 1 // the rank with a channel
	var v any = rank
	if rank == bad {
		v = make(chan int)
	}
	all, err := mpi.GatherValue(w, v, 0)
	if rank == 0 || rank == bad {
		if mpi.Class(err) != mpi.ErrType {
			fail("GatherValue with a channel on rank %d: %v", bad, err)
		}
	} else if err != nil || all != nil {
		fail("GatherValue on a rank without the channel: %v %v", all, err)
	}
	if _, err := mpi.AllgatherValue(w, v); mpi.Class(err) != mpi.ErrType {
		fail("AllgatherValue with a channel on rank %d: %v", bad, err)
	}
	if _, err := mpi.BcastValue(w, v, bad); mpi.Class(err) != mpi.ErrType {
		fail("BcastValue of a channel: %v", err)
	}
	var vs []any
	if rank == 0 {
		for i := range size {
			vs = append(vs, i)
		}
		vs[bad] = make(chan int)
	}
	got, err := mpi.ScatterValue(w, vs, 0)
	switch {
	case rank == 0 || rank == bad:
		if mpi.Class(err) != mpi.ErrType {
			fail("ScatterValue of a channel to rank %d: %v", bad, err)
		}
	case err != nil || got != rank:
		fail("ScatterValue on a rank without the channel: %v %v", got, err)
	}
	if _, err := mpi.BcastValue(w, 1, size); mpi.Class(err) != mpi.ErrRoot {
		fail("BcastValue to root %d: %v", size, err)
	}
	if size > 1 {
		// A message that cannot be the receiver's type.
		if rank == 1 {
			mustOK("send a string", mpi.SendValue(w, "not a body", 0, 5))
		} else if rank == 0 {
			if _, _, err := mpi.RecvValue[body](w, 1, 5); mpi.Class(err) != mpi.ErrType {
				fail("a string received as a body: %v", err)
			}
		}
	}
	ok, err := mpi.AllgatherValue(w, "after")
	mustOK("AllgatherValue after the errors", err)
	same("AllgatherValue after the errors", len(ok), size)
}

// valueThreads: each of 4 goroutines of every rank sends 20 values to
// rank 0 on its own tag; 4 goroutines of rank 0 receive them from
// AnySource, each on its tag, at once. Every value arrives exactly once,
// in order from each sender.
func valueThreads(rank, size int) {
	const goroutines, count = 4, 20
	w := mpi.World
	var wg sync.WaitGroup
	for g := range goroutines {
		tag := 100 + g
		wg.Go(func() {
			for i := range count {
				if err := mpi.SendValue(w, [2]int{rank, i}, 0, tag); err != nil {
					fail("send %d on tag %d: %v", i, tag, err)
				}
			}
		})
		if rank != 0 {
			continue
		}
		wg.Go(func() {
			next := make([]int, size)
			for range count * size {
				v, st, err := mpi.RecvValue[[2]int](w, mpi.AnySource, tag)
				if err != nil || st.Source != v[0] || v[1] != next[v[0]] {
					fail("tag %d: got %v from %d, want %d: %v", tag, v, st.Source, next[st.Source], err)
				}
				next[v[0]]++
			}
		})
	}
	wg.Wait()
	mustOK("barrier", mpi.Barrier(w))
}

// valueBench (testprog valuebench [rounds]): ranks 0 and 1 pass 1000
// structs of 32 bytes back and forth, rounds times each way (default
// 500): as a gob value, as a fixed-size value (SendValue of the slice),
// as the slice's bytes received after a Probe (what RecvValue does, with
// no allocation), as the slice's bytes with Send and Recv, and with a
// derived datatype.
// Rank 0 prints one line per form: "valuebench <form> <µs per one-way
// message>".
func valueBench(rank, size int) {
	const n = 1000
	type particle struct {
		X, Y, Z float64
		ID      int64
	}
	type wrapped struct{ P []particle }
	rounds := 500
	if len(os.Args) > 2 {
		fmt.Sscan(os.Args[2], &rounds)
	}
	if size < 2 || rank > 1 {
		if rank == 0 {
			fmt.Println("valuebench needs 2 processes")
		}
		return
	}
	w, peer := mpi.World, 1-rank
	data := make([]particle, n)
	for i := range data {
		data[i] = particle{float64(i), 1, 2, int64(i)}
	}
	bytes := n * int(unsafe.Sizeof(particle{}))
	view := func(p []particle) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), bytes) }
	dt, err := mpi.TypeStruct([]int{3, 1}, []int{0, 24}, []*mpi.Datatype{mpi.Float64, mpi.Int64})
	mustOK("TypeStruct", err)
	out := make([]particle, n)
	forms := []struct {
		name string
		send func() error
		recv func() error
	}{
		{"gob", func() error { return mpi.SendValue(w, wrapped{data}, peer, 0) },
			func() error { v, _, err := mpi.RecvValue[wrapped](w, peer, 0); out = v.P; return err }},
		{"fast", func() error { return mpi.SendValue(w, data, peer, 0) },
			func() error { v, _, err := mpi.RecvValue[[]particle](w, peer, 0); out = v; return err }},
		{"probe", func() error { return mpi.Send(w, view(data), peer, 0) },
			func() error {
				st, err := mpi.Probe(w, peer, 0)
				if err == nil {
					_, err = mpi.Recv(w, view(out)[:st.Bytes], peer, 0)
				}
				return err
			}},
		{"bytes", func() error { return mpi.Send(w, view(data), peer, 0) },
			func() error { _, err := mpi.Recv(w, view(out), peer, 0); return err }},
		{"datatype", func() error { return mpi.SendType(w, view(data), n, dt, peer, 0) },
			func() error { _, err := mpi.RecvType(w, view(out), n, dt, peer, 0); return err }},
	}
	for _, f := range forms {
		mustOK("barrier", mpi.Barrier(w))
		start := time.Now()
		for range rounds {
			if rank == 0 {
				mustOK(f.name+" send", f.send())
				mustOK(f.name+" recv", f.recv())
			} else {
				mustOK(f.name+" recv", f.recv())
				mustOK(f.name+" send", f.send())
			}
		}
		if len(out) != n || out[n-1] != data[n-1] {
			fail("valuebench %s: wrong data", f.name)
		}
		if rank == 0 {
			fmt.Printf("valuebench %s %.1f\n", f.name, float64(time.Since(start).Microseconds())/float64(2*rounds))
		}
	}
}

// valueInterColls runs the value collectives on the intercommunicator of
// evens and odds (local ranks in world order): each group's values come
// from the other.
func valueInterColls(ic, side *mpi.Comm, rank int) {
	rn, err := ic.RemoteSize()
	mustOK("RemoteSize", err)
	even := rank%2 == 0
	remote := func(j int) int { // world rank of remote rank j
		if even {
			return 2*j + 1
		}
		return 2 * j
	}
	all, err := mpi.AllgatherValue(ic, fmt.Sprint("p", rank))
	mustOK("AllgatherValue on an intercommunicator", err)
	for j := range rn {
		same("AllgatherValue on an intercommunicator", all[j], fmt.Sprint("p", remote(j)))
	}
	// Bcast and Gather rooted at the evens' leader, Scatter at the odds'.
	evenRoot := func() int {
		switch {
		case !even:
			return 0
		case side.Rank() == 0:
			return mpi.Root
		}
		return mpi.ProcNull
	}()
	got, err := mpi.BcastValue(ic, map[string]int{"from": rank}, evenRoot)
	mustOK("BcastValue on an intercommunicator", err)
	switch {
	case !even || side.Rank() == 0:
		same("BcastValue on an intercommunicator", got, map[string]int{"from": 0})
	default:
		same("BcastValue on an intercommunicator (ProcNull)", got, map[string]int(nil))
	}
	gathered, err := mpi.GatherValue(ic, fmt.Sprint("g", rank), evenRoot)
	mustOK("GatherValue on an intercommunicator", err)
	if evenRoot == mpi.Root {
		for j := range rn {
			same("GatherValue on an intercommunicator", gathered[j], fmt.Sprint("g", remote(j)))
		}
	} else if gathered != nil {
		fail("GatherValue on an intercommunicator gave a non-root %v", gathered)
	}
	oddRoot := func() int {
		switch {
		case even:
			return 0
		case side.Rank() == 0:
			return mpi.Root
		}
		return mpi.ProcNull
	}()
	var vs []record
	if oddRoot == mpi.Root {
		for j := range rn {
			vs = append(vs, *recordOf(100 + remote(j)))
		}
	}
	one, err := mpi.ScatterValue(ic, vs, oddRoot)
	mustOK("ScatterValue on an intercommunicator", err)
	if even {
		same("ScatterValue on an intercommunicator", one, *recordOf(100 + rank))
	}
	out := make([]string, rn)
	for j := range out {
		out[j] = fmt.Sprintf("%d->%d", rank, remote(j))
	}
	in, err := mpi.AlltoallValue(ic, out)
	mustOK("AlltoallValue on an intercommunicator", err)
	for i := range rn {
		same("AlltoallValue on an intercommunicator", in[i], fmt.Sprintf("%d->%d", remote(i), rank))
	}
}
