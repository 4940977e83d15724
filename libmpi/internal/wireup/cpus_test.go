package wireup

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/jobwire"
)

// oversubscribed counts the job's processes of this process's machine
// (its node where a machine is not known) against the processors in the
// union of their masks.
func TestOversubscribed(t *testing.T) {
	at := func(node int32, machine string, cpus ...int) jobwire.Proc {
		var set unix.CPUSet
		for _, c := range cpus {
			set.Set(c)
		}
		return jobwire.Proc{Node: node, Where: jobwire.Where{Machine: machine, CPUs: maskBytes(&set)}}
	}
	for _, tt := range []struct {
		name  string
		procs []jobwire.Proc
		me    int
		want  bool
	}{
		{"alone", []jobwire.Proc{at(0, "m", 0, 1)}, 0, false},
		{"two bound to two processors", []jobwire.Proc{at(0, "m", 0), at(0, "m", 1)}, 0, false},
		{"two bound to one processor", []jobwire.Proc{at(0, "m", 0), at(0, "m", 0)}, 1, true},
		{"three on two processors", []jobwire.Proc{at(0, "m", 0, 1), at(0, "m", 0, 1), at(0, "m", 0, 1)}, 2, true},
		{"2x2: two nodes of one machine", []jobwire.Proc{at(0, "m", 0, 1), at(0, "m", 0, 1), at(1, "m", 0, 1), at(1, "m", 0, 1)}, 0, true},
		{"2x2: two machines", []jobwire.Proc{at(0, "a", 0, 1), at(0, "a", 0, 1), at(1, "b", 0, 1), at(1, "b", 0, 1)}, 3, false},
		{"machines unknown: by node", []jobwire.Proc{at(0, "", 0, 1), at(0, "", 0, 1), at(1, "", 0, 1), at(1, "", 0, 1)}, 2, false},
		{"processor 1000", []jobwire.Proc{at(0, "m", 1000), at(0, "m", 1001)}, 0, false},
		{"processor 1000 twice", []jobwire.Proc{at(0, "m", 1000), at(0, "m", 1000)}, 0, true},
	} {
		if got := oversubscribed(tt.procs, tt.me); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// No mask known: this process's processor count.
	none := make([]jobwire.Proc, runtime.NumCPU()+1)
	if !oversubscribed(none, 0) {
		t.Errorf("%d processes without masks on %d processors: not oversubscribed", len(none), runtime.NumCPU())
	}
	if oversubscribed(none[:runtime.NumCPU()], 0) {
		t.Errorf("%d processes without masks on as many processors: oversubscribed", runtime.NumCPU())
	}
}

// maskBytes is the mask's bits in order, without trailing zero bytes.
func TestMaskBytes(t *testing.T) {
	var set unix.CPUSet
	if got := maskBytes(&set); len(got) != 0 {
		t.Errorf("empty set: %x", got)
	}
	set.Set(0)
	set.Set(9)
	set.Set(1023)
	got := maskBytes(&set)
	want := make([]byte, jobwire.MaxCPUMask)
	want[0], want[1], want[127] = 0x01, 0x02, 0x80
	if !slices.Equal(got, want) {
		t.Errorf("processors 0, 9, 1023: %x", got)
	}
	// This process's own, as MPI_Init reports it.
	if w := here(); len(w.CPUs) == 0 || len(w.Machine) == 0 {
		t.Errorf("here: %+v", w)
	}
}
