package main

import (
	"os"
	"sync"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The request table gives freed handles out again: a loop of make and
// free keeps using the same few, and the slots never grow.
func TestRequestTableReuse(t *testing.T) {
	var tb table[mpi.Request]
	r := new(mpi.Request)
	tests := []struct {
		name   string
		live   int // requests kept at once
		rounds int
	}{
		{"one at a time", 1, 1000},
		{"eight at a time", 8, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := make([]int, tt.live)
			seen := map[int]bool{}
			var slots int
			for i := 0; i < tt.rounds; i++ {
				for k := range hs {
					hs[k] = tb.addKeep(r, k%2 == 0)
					seen[hs[k]] = true
					if sl := tb.entry(hs[k]); sl == nil || sl.v.Load() != r || sl.keep.Load() != (k%2 == 0) {
						t.Fatalf("handle %d does not name the request it was given", hs[k])
					}
				}
				if i == 0 {
					slots = len(*tb.slots.Load())
				}
				for _, h := range hs {
					tb.remove(h)
					if tb.get(h) != nil {
						t.Fatalf("handle %d still names a request after remove", h)
					}
				}
			}
			if len(seen) > tt.live+1 || len(*tb.slots.Load()) != slots {
				t.Errorf("%d handles used, %d slots (first round %d); want at most %d handles and no growth", len(seen), len(*tb.slots.Load()), slots, tt.live+1)
			}
			if n := tb.inUse(); n != 0 {
				t.Errorf("inUse = %d after every request was removed", n)
			}
		})
	}
	if tb.get(0) != nil || tb.get(-3) != nil || tb.get(1<<20) != nil {
		t.Error("null, negative or unknown handles name a request")
	}
}

var (
	initOnce sync.Once
	unitDir  string // the session prefix of the test process's MPI; TestMain removes it
)

// initSingleton starts MPI in the test process, a world of one.
func initSingleton(t testing.TB) {
	initOnce.Do(func() {
		dir, err := os.MkdirTemp("", "capi-unit-")
		if err != nil {
			t.Fatal(err)
		}
		unitDir = dir
		os.Setenv("LAM_MPI_SESSION_PREFIX", dir)
		if rc := capi_Init(nil, nil); rc != 0 {
			t.Fatalf("MPI_Init: %d", rc)
		}
	})
}

// The C layer adds no allocation to the message fast path: a call
// allocates what the Go API call under it does (a send to oneself is
// copied, so the Go API allocates there) and nothing more; the calls that
// stay in the C layer allocate nothing.
func TestFastPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	initSingleton(t)
	buf := make([]byte, 8)
	p := unsafe.Pointer(&buf[0])
	var st _Ctype_MPI_Status
	var null _Ctype_MPI_Request
	var rank, flag, idx _Ctype_int
	nulls := make([]_Ctype_MPI_Request, 4)
	if a := testing.AllocsPerRun(200, func() {
		capi_Comm_rank(1, &rank)
		capi_Wait(&null, &st)
		capi_Test(&null, &flag, &st)
		capi_Waitall(4, &nulls[0], nil)
		capi_Waitany(4, &nulls[0], &idx, &st)
	}); a != 0 {
		t.Errorf("Comm_rank, and Wait, Test, Waitall, Waitany of MPI_REQUEST_NULL: %v allocations, want 0", a)
	}
	goSend := testing.AllocsPerRun(200, func() {
		mpi.Send(mpi.World, buf, 0, 1)
		mpi.Recv(mpi.World, buf, 0, 1)
	})
	if a := testing.AllocsPerRun(200, func() {
		if capiGo_Send(p, 8, 4, 0, 1, 1) != 0 || capiGo_Recv(p, 8, 4, 0, 1, 1, &st) != 0 {
			t.Fatal("self send and receive failed")
		}
	}); a > goSend {
		t.Errorf("MPI_Send+MPI_Recv: %v allocations per call, the Go API's %v", a, goSend)
	}
	goAllocs := testing.AllocsPerRun(200, func() {
		r, _ := mpi.Irecv(mpi.World, buf, 0, 2)
		mpi.Send(mpi.World, buf, 0, 2)
		r.Wait()
	})
	var q _Ctype_MPI_Request
	capi_Irecv(p, 8, 4, 0, 2, 1, &q) // the table's first slots
	capiGo_Send(p, 8, 4, 0, 2, 1)
	capi_Wait(&q, nil)
	slots := len(*requests.slots.Load())
	cAllocs := testing.AllocsPerRun(200, func() {
		capi_Irecv(p, 8, 4, 0, 2, 1, &q)
		capiGo_Send(p, 8, 4, 0, 2, 1)
		if capi_Wait(&q, nil) != 0 || q != 0 {
			t.Fatal("Irecv+Wait failed")
		}
	})
	if n := len(*requests.slots.Load()); n != slots || requests.inUse() != 0 {
		t.Errorf("after 200 Irecv+Wait: %d request slots (before %d), %d in use; want no growth and none", n, slots, requests.inUse())
	}
	if cAllocs > goAllocs {
		t.Errorf("MPI_Irecv+MPI_Send+MPI_Wait: %v allocations, the Go API's %v", cAllocs, goAllocs)
	}
	reqs := make([]_Ctype_MPI_Request, 4)
	bufs := make([]byte, 4)
	goAll := testing.AllocsPerRun(100, func() {
		rs := make([]*mpi.Request, 4)
		for i := range rs {
			rs[i], _ = mpi.Irecv(mpi.World, bufs[i:i+1], 0, 3)
		}
		for i := range rs {
			mpi.Send(mpi.World, bufs[i:i+1], 0, 3)
		}
		mpi.Waitall(rs...)
	})
	cAll := testing.AllocsPerRun(100, func() {
		for i := range reqs {
			capi_Irecv(unsafe.Pointer(&bufs[i]), 1, 4, 0, 3, 1, &reqs[i])
		}
		for i := range reqs {
			capiGo_Send(unsafe.Pointer(&bufs[i]), 1, 4, 0, 3, 1)
		}
		if capi_Waitall(4, &reqs[0], nil) != 0 {
			t.Fatal("Waitall failed")
		}
	})
	// The Go side made its []*Request; the C side reuses its scratch.
	if cAll > goAll {
		t.Errorf("4 × MPI_Irecv + MPI_Waitall: %v allocations, the Go API's %v", cAll, goAll)
	}
}

func BenchmarkSendRecvSelf(b *testing.B) {
	initSingleton(b)
	buf := make([]byte, 1)
	p := unsafe.Pointer(&buf[0])
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			mpi.Send(mpi.World, buf, 0, 1)
			mpi.Recv(mpi.World, buf, 0, 1)
		}
	})
	b.Run("capi", func(b *testing.B) {
		for b.Loop() {
			capiGo_Send(p, 1, 4, 0, 1, 1)
			capiGo_Recv(p, 1, 4, 0, 1, 1, nil)
		}
	})
	var q _Ctype_MPI_Request
	b.Run("go-irecv-wait", func(b *testing.B) {
		for b.Loop() {
			r, _ := mpi.Irecv(mpi.World, buf, 0, 1)
			mpi.Send(mpi.World, buf, 0, 1)
			r.Wait()
		}
	})
	b.Run("capi-irecv-wait", func(b *testing.B) {
		for b.Loop() {
			capi_Irecv(p, 1, 4, 0, 1, 1, &q)
			capiGo_Send(p, 1, 4, 0, 1, 1)
			capi_Wait(&q, nil)
		}
	})
}

// Handles are made, looked up and freed from many threads at once (MPI_THREAD_MULTIPLE).
func TestRequestTableConcurrent(t *testing.T) {
	var tb table[mpi.Request]
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := new(mpi.Request)
			for i := 0; i < 2000; i++ {
				h := tb.add(r)
				if sl := tb.entry(h); sl == nil || sl.v.Load() != r {
					t.Errorf("handle %d lost its request", h)
					return
				}
				tb.remove(h)
			}
		}()
	}
	wg.Wait()
	if n := tb.inUse(); n != 0 {
		t.Errorf("%d handles in use after every one was freed", n)
	}
	if n := len(*tb.slots.Load()); n > 64 {
		t.Errorf("%d slots for at most 8 live requests", n)
	}
}

// BenchmarkRequestHandle is a nonpersistent request's handle from birth
// to MPI_REQUEST_NULL, as MPI_Isend and MPI_Wait use it (no message).
func BenchmarkRequestHandle(b *testing.B) {
	r := new(mpi.Request)
	var q _Ctype_MPI_Request
	for b.Loop() {
		putRequest(&q, r, false, nil)
		sl, _ := reqArg(&q, "MPI_Wait")
		done(&q, sl)
	}
	if q != 0 {
		b.Fatal("the handle is not MPI_REQUEST_NULL after done")
	}
}
