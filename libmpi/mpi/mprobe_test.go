package mpi_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Four goroutines receive with Mprobe(AnySource, AnyTag) and Mrecv at
// once: every message exactly once.
func TestMprobeGoroutines(t *testing.T) {
	c, err := mpi.World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	const n = 400
	var mu sync.Mutex
	got := make([]int, n)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 4 {
				m, st, err := mpi.Mprobe(c, mpi.AnySource, mpi.AnyTag)
				if err != nil {
					t.Error(err)
					return
				}
				buf := make([]int32, mpi.GetCount[int32](st))
				rs, err := mpi.Mrecv(buf, m)
				if err != nil || rs.Tag != st.Tag || rs.Bytes != st.Bytes || int(buf[0]) != st.Tag {
					t.Errorf("mrecv: %+v %+v %v", st, rs, err)
					return
				}
				if _, err := mpi.Mrecv(buf, m); mpi.Class(err) != mpi.ErrRequest {
					t.Errorf("a second Mrecv of one message: %v", err)
				}
				mu.Lock()
				got[buf[0]]++
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		buf := make([]int32, 1+i%5*1000)
		buf[0] = int32(i)
		if err := mpi.Send(c, buf, 0, i); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for i, k := range got {
		if k != 1 {
			t.Errorf("message %d received %d times", i, k)
		}
	}
}

func TestImprobe(t *testing.T) {
	if _, _, ok, err := mpi.Improbe(mpi.World, 0, 61); ok || err != nil {
		t.Fatalf("improbe of nothing: %v %v", ok, err)
	}
	mpi.Send(mpi.World, []float64{1, 2}, 0, 61)
	mpi.Send(mpi.World, []float64{3}, 0, 61)
	m, st, ok, err := mpi.Improbe(mpi.World, 0, 61)
	if !ok || err != nil || st.Bytes != 16 || st.Source != 0 {
		t.Fatalf("improbe: %+v %v %v", st, ok, err)
	}
	// The matched message is no longer there for others: Recv gets the
	// next one.
	one := make([]float64, 1)
	if st, err := mpi.Recv(mpi.World, one, 0, 61); err != nil || st.Bytes != 8 || one[0] != 3 {
		t.Errorf("recv after improbe: %+v %v %v", st, one, err)
	}
	r, err := mpi.Imrecv(one, m)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Wait(); mpi.Class(err) != mpi.ErrTruncate || st.Bytes != 8 || one[0] != 1 {
		t.Errorf("imrecv truncated: %+v %v %v", st, one, err)
	}
}

func TestMprobeProcNull(t *testing.T) {
	m, st, err := mpi.Mprobe(mpi.World, mpi.ProcNull, 3)
	if m != mpi.MessageNoProc || err != nil || st.Source != mpi.ProcNull {
		t.Fatalf("mprobe of ProcNull: %v %+v %v", m, st, err)
	}
	m2, _, ok, err := mpi.Improbe(mpi.World, mpi.ProcNull, mpi.AnyTag)
	if m2 != mpi.MessageNoProc || !ok || err != nil {
		t.Fatalf("improbe of ProcNull: %v %v %v", m2, ok, err)
	}
	for range 2 { // MessageNoProc can be received any number of times
		st, err := mpi.Mrecv([]int32{5}, m)
		if err != nil || st.Source != mpi.ProcNull || st.Tag != mpi.AnyTag || st.Bytes != 0 {
			t.Errorf("mrecv of MessageNoProc: %+v %v", st, err)
		}
	}
	if _, err := mpi.Mrecv[int32](nil, nil); mpi.Class(err) != mpi.ErrRequest {
		t.Errorf("mrecv of a nil message: %v", err)
	}
	if _, _, err := mpi.Mprobe(mpi.World, 5, 0); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("mprobe of rank 5: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := mpi.MprobeContext(ctx, mpi.World, 0, 62); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("MprobeContext: %v", err)
	}
}
