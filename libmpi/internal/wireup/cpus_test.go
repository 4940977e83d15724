package wireup

import (
	"os"
	"os/exec"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// nodeCPUs counts the processors in the union of the processes' masks:
// two processes bound to different processors have two between them,
// two bound to the same one have one.
func TestNodeCPUs(t *testing.T) {
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := 0; c < len(own)*64; c++ {
		if own.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	bound := func(cpu int) int {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(cmd.Process.Pid, &set); err != nil {
			t.Fatal(err)
		}
		return cmd.Process.Pid
	}
	if got := nodeCPUs([]int{os.Getpid()}); got != own.Count() {
		t.Errorf("this process alone: %d processors, want %d", got, own.Count())
	}
	if got := nodeCPUs([]int{1 << 30}); got != runtime.NumCPU() {
		t.Errorf("no process readable: %d, want this process's %d", got, runtime.NumCPU())
	}
	a, b := bound(cpus[0]), bound(cpus[0])
	if got := nodeCPUs([]int{a, b, 1 << 30}); got != 1 {
		t.Errorf("two processes bound to processor %d: %d processors, want 1", cpus[0], got)
	}
	if len(cpus) < 2 {
		t.Skipf("this test may run on one processor only (%v)", cpus)
	}
	c := bound(cpus[1])
	if got := nodeCPUs([]int{a, c}); got != 2 {
		t.Errorf("processes bound to %d and %d: %d processors, want 2", cpus[0], cpus[1], got)
	}
}
