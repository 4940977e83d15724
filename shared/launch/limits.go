package launch

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/lamgo/lam/shared/ssi"
)

// ParamMaxPerNode is the SSI parameter that caps the processes a job may
// start on one node; 0 derives the cap from the local lamd's limits
// (PerNodeLimit).
const ParamMaxPerNode = "launch_max_per_node"

func init() {
	ssi.RegisterParams(ssi.Base, "",
		ssi.Param{Name: ParamMaxPerNode, Default: "0", Type: ssi.Int,
			Help: "Most processes mpirun and lamexec start on one node (0: as many as the local lamd's open-file and process limits allow)"},
	)
}

// The cost of one process to the resources its lamd is limited in.
const (
	// filesPerProc: the lamd holds the process's stdout and stderr pipes,
	// its stdin pipe (rank 0), its MPI connection to the lamd and, under
	// the lamd rpi, its message stream (a second connection).
	filesPerProc = 5
	// filesReserved are kept for the lamd's own sockets, links and tools.
	filesReserved = 64
	// threadsPerProc counts against RLIMIT_NPROC (per user, threads
	// included): the process and its runtime's threads, and the lamd's
	// thread waiting for it.
	threadsPerProc = 8
	// lamdThreads is Go's default cap on a program's threads
	// (runtime/debug.SetMaxThreads): past it the lamd dies. The lamd
	// blocks one thread in wait4 per process; the rest are its own.
	lamdThreads = 10000 - 500
)

// Capacity is how many processes one lamd can run, and what limits it.
type Capacity struct {
	PerNode int
	Why     string // "its limit of 1024 open files"
	// Clients says the cap is the lamd's on its clients (every rank is
	// one), which the lamd reads when it boots.
	Clients bool
}

// clientsParam is the lamd's cap on its clients (boot.ParamMaxClients;
// launch does not import the boot framework for one name).
const clientsParam = "boot_base_max_clients"

// PerNodeLimit derives how many processes a lamd can run from its
// limits: RLIMIT_NOFILE and RLIMIT_NPROC of the process lamdPID as
// /proc/<pid>/limits shows them (this process's own if that cannot be
// read), and the thread cap of a Go program. The node table does not
// carry remote lamds' limits: a universe's lamds start alike, so the
// local lamd's stand for all.
func PerNodeLimit(lamdPID int) Capacity {
	files, procs, ok := procLimits(lamdPID)
	if !ok {
		files, procs = ownLimits()
	}
	c := Capacity{PerNode: lamdThreads, Why: fmt.Sprintf("the %d threads a lamd may run", lamdThreads+500)}
	if files > 0 {
		if n := int(min((files-filesReserved)/filesPerProc, lamdThreads)); n < c.PerNode {
			c = Capacity{PerNode: max(n, 1), Why: fmt.Sprintf("its limit of %d open files", files)}
		}
	}
	if procs > 0 {
		if n := int(min(procs/threadsPerProc, lamdThreads)); n < c.PerNode {
			c = Capacity{PerNode: max(n, 1), Why: fmt.Sprintf("its user's limit of %d processes", procs)}
		}
	}
	return c
}

// procLimits reads the soft limits on open files and processes of pid
// (-1: unlimited).
func procLimits(pid int) (files, procs int64, ok bool) {
	if pid <= 0 {
		return 0, 0, false
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var found int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var dst *int64
		rest, isFiles := strings.CutPrefix(sc.Text(), "Max open files ")
		rest, isProcs := strings.CutPrefix(rest, "Max processes ")
		switch {
		case isFiles:
			dst = &files
		case isProcs:
			dst = &procs
		default:
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, 0, false
		}
		if fields[0] == "unlimited" {
			*dst = -1
		} else if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil && n >= 0 {
			*dst = n
		} else {
			return 0, 0, false
		}
		found++
	}
	return files, procs, found == 2
}

// ownLimits is this process's soft limits on open files and processes
// (-1: unlimited).
func ownLimits() (files, procs int64) {
	files, procs = -1, -1
	const unlimited = ^uint64(0) // RLIM_INFINITY
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) == nil && r.Cur != unlimited {
		files = int64(min(r.Cur, 1<<40))
	}
	const rlimitNproc = 6 // RLIMIT_NPROC on Linux
	if syscall.Getrlimit(rlimitNproc, &r) == nil && r.Cur != unlimited {
		procs = int64(min(r.Cur, 1<<40))
	}
	return files, procs
}

// capacity returns the cap for this job: o.MaxPerNode when set, else the
// local lamd's.
func capacity(o Options, lamdPID int) (Capacity, error) {
	switch {
	case o.MaxPerNode < 0:
		return Capacity{}, &UsageError{Err: fmt.Errorf("%s must be 0 or more, not %d", ParamMaxPerNode, o.MaxPerNode)}
	case o.MaxPerNode > 0:
		return Capacity{PerNode: o.MaxPerNode, Why: ParamMaxPerNode}, nil
	}
	c := PerNodeLimit(lamdPID)
	if o.maxClients > 0 && o.maxClients < c.PerNode {
		c = Capacity{PerNode: o.maxClients, Why: fmt.Sprintf("its limit of %d clients, %s", o.maxClients, clientsParam), Clients: true}
	}
	return c, nil
}
