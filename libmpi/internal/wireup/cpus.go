package wireup

import (
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/jobwire"
)

// here is where this process may run (jobwire.Where): the machine's boot
// id and this process's affinity mask.
func here() jobwire.Where {
	var w jobwire.Where
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		w.Machine = strings.TrimSpace(string(b))
		if len(w.Machine) > 64 {
			w.Machine = w.Machine[:64]
		}
	}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		w.CPUs = maskBytes(&set)
	}
	return w
}

// maskBytes is set as a little-endian bit mask, without trailing zero
// bytes and at most jobwire.MaxCPUMask bytes.
func maskBytes(set *unix.CPUSet) []byte {
	var b []byte
	for cpu := range jobwire.MaxCPUMask * 8 {
		if set.IsSet(cpu) {
			for len(b) <= cpu/8 {
				b = append(b, 0)
			}
			b[cpu/8] |= 1 << (cpu % 8)
		}
	}
	return b
}

// oversubscribed reports whether the job's processes that share this
// process's processors outnumber them: those of its machine (the same
// boot id; the same LAM node where a process did not say), counted
// against the processors in the union of their affinity masks. A process
// bound to one processor (taskset, a batch system's binding) sees one in
// its own mask, but two such processes bound to two processors are not
// oversubscribed; two bound to the same one are; and two LAM nodes that
// are network namespaces or containers of one machine share its
// processors. A process whose mask is unknown adds none; with none known,
// this process's own count (runtime.NumCPU).
func oversubscribed(procs []jobwire.Proc, me int) bool {
	self := procs[me]
	var union []byte
	n := 0
	for _, p := range procs {
		same := p.Node == self.Node
		if self.Where.Machine != "" && p.Where.Machine != "" {
			same = p.Where.Machine == self.Where.Machine
		}
		if !same {
			continue
		}
		n++
		for len(union) < len(p.Where.CPUs) {
			union = append(union, 0)
		}
		for i, b := range p.Where.CPUs {
			union[i] |= b
		}
	}
	cpus := 0
	for _, b := range union {
		for ; b != 0; b &= b - 1 {
			cpus++
		}
	}
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	return n > cpus
}
