package wireup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/cr"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

func TestDrainMsg(t *testing.T) {
	for _, m := range []drainMsg{{seq: 1, phase: phaseCounters, rank: 0, round: 1, sent: 0}, {seq: 1<<31 - 1, phase: phaseDrained, rank: 1 << 20, round: 3, sent: 1<<64 - 1, read: 1 << 40}} {
		got, err := decodeDrain(m.encode())
		if err != nil || got != m {
			t.Errorf("%+v: got %+v, %v", m, got, err)
		}
	}
	for _, n := range []int{0, drainMsgSize - 1, drainMsgSize + 1} {
		if _, err := decodeDrain(make([]byte, n)); err == nil {
			t.Errorf("%d bytes decoded", n)
		}
	}
}

func FuzzDrainMsg(f *testing.F) {
	f.Add(drainMsg{seq: 3, phase: 1, rank: 2, round: 2, sent: 99, read: 7}.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeDrain(b)
		if err == nil && string(m.encode()) != string(b) {
			t.Errorf("%x decoded to %+v, which encodes differently", b, m)
		}
	})
}

// TestSort: the drain messages of the checkpoint under way go to it, a
// later checkpoint's are kept for it, older ones dropped.
func TestSort(t *testing.T) {
	c := &crState{in: make(chan drainMsg, 8)}
	c.early = []drainMsg{{seq: 2, phase: phaseCounters, rank: 1, round: 2, sent: 5, read: 4}}
	for _, m := range []drainMsg{{seq: 1, phase: phaseCounters, rank: 2}, {seq: 2, phase: phaseDrained, rank: 3}, {seq: 3, phase: phaseCounters, rank: 1}} {
		c.in <- m
	}
	announced, drained, stop := make(chan core.Announcement, 4), make(chan int32, 4), make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); c.sort(2, announced, drained, stop) }()
	if a := <-announced; a != (core.Announcement{Rank: 1, Round: 2, Sent: 5, Read: 4}) {
		t.Errorf("announced %+v", a)
	}
	if r := <-drained; r != 3 {
		t.Errorf("drained %d", r)
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		kept := len(c.early) == 1 && c.early[0].seq == 3
		c.mu.Unlock()
		if kept || time.Now().After(end) {
			break
		}
	}
	close(stop)
	<-done
	if len(announced) != 0 || len(c.early) != 1 || c.early[0].seq != 3 {
		t.Errorf("left: %d announced, early %+v", len(announced), c.early)
	}
}

// fakeTransport is an rpi transport that may or may not be drainable.
type fakeTransport struct {
	rpi.Transport
	err error
}

func (f fakeTransport) Drainable() error { return f.err }

// TestCRSetup: a job is checkpointable with a cr module and a drainable
// rpi; otherwise Init says why.
func TestCRSetup(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		t    rpi.Transport
		want string
	}{
		{"ok", []string{"LAM_MPI_SSI_cr=self"}, fakeTransport{}, ""},
		{"no cr", nil, fakeTransport{}, "no cr module selected (run the job with -ssi cr self)"},
		{"rpi", []string{"LAM_MPI_SSI_cr=self"}, fakeTransport{err: errors.New("cannot")}, "rpi fake cannot"},
		{"no drainer", []string{"LAM_MPI_SSI_cr=self"}, struct{ rpi.Transport }{}, "rpi fake cannot be drained for a checkpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := crSetup(context.Background(), ssi.NewSettings(nil, c.env), "fake", c.t)
			if err != nil {
				t.Fatal(err)
			}
			if s.noCR != c.want {
				t.Errorf("noCR %q, %v; want %q", s.noCR, err, c.want)
			}
			if (s.job != nil) != (c.name != "no cr") {
				t.Errorf("cr module selected: %v", s.job)
			}
		})
	}
	_, err := crSetup(context.Background(), ssi.NewSettings(nil, []string{"LAM_MPI_SSI_cr=blcr"}), "fake", fakeTransport{})
	if err == nil || !strings.Contains(err.Error(), "blcr") || errors.Is(err, cr.ErrNone) {
		t.Errorf("cr blcr: %v", err)
	}
}
