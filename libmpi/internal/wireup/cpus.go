package wireup

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// nodeCPUs is how many processors the given processes (this node's of the
// job, by pid) may run on between them: the union of their affinity
// masks. A process bound to one processor (taskset, a batch system's
// binding) sees one in its own mask (runtime.NumCPU), but two such
// processes bound to two processors are not oversubscribed; two bound to
// the same one are. A process whose mask cannot be read (it has ended)
// counts for nothing; with none readable, this process's own count.
func nodeCPUs(pids []int) int {
	var all unix.CPUSet
	read := false
	for _, pid := range pids {
		var set unix.CPUSet
		if unix.SchedGetaffinity(pid, &set) != nil {
			continue
		}
		for i := range all {
			all[i] |= set[i]
		}
		read = true
	}
	if !read {
		return runtime.NumCPU()
	}
	return all.Count()
}
