// Package rpitest is a conformance suite for rpi modules: every module
// runs it in-process from a test of its own,
//
//	func TestConformance(t *testing.T) { rpitest.Run(t, rpitest.Factory{Module: ...}) }
//
// The suite opens the module for several processes of one job (goroutines
// of the test process, each with its own rpi.Job), connects them and
// checks what the MPI core relies on, first on the bare links and then
// through the core itself:
//
//   - streams arrive in order and intact, in both directions at once,
//     whatever the sizes of the writes and reads (0 B to several MiB);
//   - writes and reads move part of a buffer and report "not now" as 0,
//     not as an error; a writer whose peer does not read is held back and
//     resumes when the peer drains the link;
//   - a closed link fails its own calls, and its peer (where the module
//     can tell) fails once it has read what came before the close; a
//     peer process that dies is noticed within a bound;
//   - the optional interfaces a link or transport implements (Peeker,
//     VectorWriter, RemoteReader, RemoteWriter, Shorter, Waiter, Pacer)
//     do what package rpi says;
//   - MPI messages of every size class (eager, rendezvous, direct copy)
//     move through the core in order, with more processes than
//     processors too.
//
// Every wait is bounded, so a broken module fails the suite instead of
// hanging it.
package rpitest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

var long = flag.Bool("rpitest.long", false, "run the rpi conformance suite with larger transfers and more processes")

// Factory tells the suite how to make jobs of a module in this process.
type Factory struct {
	// Module is the module under test.
	Module rpi.Module
	// Job, if set, completes the jobs of one job's processes before the
	// suite opens the module for each: module settings, the connection to
	// a lamd, the nodes of the ranks. The suite has filled in Rank, Size,
	// Node (0), Host (127.0.0.1), Settings (no parameters set), Timeout,
	// PID (this process's) and Shared (a fresh prefix). Cleanups go to t.
	Job func(t testing.TB, jobs []*rpi.Job)
	// Bounded: a writer whose peer does not read is held back (Write
	// returns 0) once the link's buffers are full. A module that buffers
	// without bound at the receiver leaves it false.
	Bounded bool
	// CloseSeen: the peer of a closed link sees the close: its Read fails
	// once it has read what was written before.
	CloseSeen bool
	// DeathSeen: the links to a process that dies fail within a bound
	// (for links without a descriptor, through the transport's Waiter).
	// The suite checks it with a child process (this test binary run
	// again) that it kills.
	DeathSeen bool
	// RoomWhenFull: a reader tells the writer it made room only once
	// the writer may be waiting for it (its window nearly spent; ofi
	// returns credits in the header of its next message otherwise). The
	// Waiter test then fills the link before it checks that a peer's
	// read ends a writer's Sleep.
	RoomWhenFull bool
}

// secret is every test job's secret.
var secret = []byte("rpitest job secret 0123456789abcdef")

// timeout bounds every test of the suite; stall bounds a loop of one
// that moves no byte (a lost byte, a link that refuses forever).
const (
	timeout = 60 * time.Second
	stall   = 15 * time.Second
)

// Run runs the suite on the module f makes. Run from a top-level test;
// it runs that test again in a child process for DeathSeen.
func Run(t *testing.T, f Factory) {
	if f.Module == nil {
		t.Fatal("rpitest: the factory has no module")
	}
	if os.Getenv(childEnv) != "" {
		runChild(t, f)
		return
	}
	for _, tc := range []struct {
		name string
		run  func(*testing.T, Factory)
	}{
		{"Connect", testConnect},
		{"Nothing", testNothing},
		{"Stream", testStream},
		{"Large", testLarge},
		{"Fill", testFill},
		{"SmallReads", testSmallReads},
		{"AllPairs", testAllPairs},
		{"Fd", testFd},
		{"Peeker", testPeeker},
		{"Remote", testRemote},
		{"Waiter", testWaiter},
		{"Close", testClose},
		{"Messages", testMessages},
		{"Crowd", testCrowd},
		{"CloseSeenByCore", testCloseSeenByCore},
		{"PeerDeath", testPeerDeath},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, f) })
	}
}

// deadline is a context that ends with the test's bound.
func deadline(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// job is one job of the module in this process.
type job struct {
	jobs  []*rpi.Job
	ts    []rpi.Transport
	peers []rpi.Peer
	links [][]rpi.Link // links[i][j]: rank i's link to rank j
}

// jobs makes the rpi.Jobs of n processes, as the factory completes them.
func (f Factory) jobs(t testing.TB, n int, shared string) []*rpi.Job {
	t.Helper()
	jobs := make([]*rpi.Job, n)
	for i := range jobs {
		jobs[i] = &rpi.Job{Rank: i, Size: n, Host: "127.0.0.1", Settings: ssi.NewSettings(nil, nil),
			Timeout: 20 * time.Second, PID: os.Getpid(), Shared: shared}
	}
	if f.Job != nil {
		f.Job(t, jobs)
	}
	return jobs
}

// sharedPrefix is a fresh prefix for what the processes of a job share.
func sharedPrefix(t testing.TB) string {
	return filepath.Join(t.TempDir(), "rpitest-")
}

// open opens the module for every process of a job of n and connects
// them; everything is closed when the test ends.
func (f Factory) open(t testing.TB, n int) *job {
	t.Helper()
	j := &job{jobs: f.jobs(t, n, sharedPrefix(t))}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, jb := range j.jobs {
		tr, err := f.Module.Open(ctx, jb)
		if err != nil {
			t.Fatalf("open rank %d: %v", i, err)
		}
		t.Cleanup(func() {
			if err := tr.Close(); err != nil {
				t.Errorf("close rank %d's transport: %v", i, err)
			}
		})
		j.ts = append(j.ts, tr)
		j.peers = append(j.peers, rpi.Peer{Rank: i, Node: jb.Node, Addr: tr.Addr()})
	}
	j.links = make([][]rpi.Link, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, tr := range j.ts {
		wg.Go(func() { j.links[i], errs[i] = tr.Connect(ctx, j.peers, secret) })
	}
	wg.Wait()
	// Links close before their transports (cleanups run last first).
	t.Cleanup(func() {
		for _, ls := range j.links {
			for _, l := range ls {
				if l != nil {
					l.Close()
				}
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("connect rank %d: %v", i, err)
		}
	}
	for i, ls := range j.links {
		if len(ls) != n {
			t.Fatalf("rank %d has %d links in a job of %d", i, len(ls), n)
		}
		for k, l := range ls {
			if (l == nil) != (k == i) {
				t.Fatalf("rank %d's link to rank %d is %v", i, k, l)
			}
		}
	}
	return j
}

// short is the eager limit on rank i's link to rank k.
func (j *job) short(i, k int) int {
	if s, ok := j.links[i][k].(rpi.Shorter); ok {
		return s.Short()
	}
	return j.ts[i].Short()
}

// idle paces a loop that moved nothing: it yields at first, then sleeps
// a little, so that many goroutines polling on few processors let the
// ones with work run.
type idle int

func (n *idle) wait() {
	*n++
	switch {
	case *n < 64:
		runtime.Gosched()
	case *n < 1024:
		time.Sleep(20 * time.Microsecond)
	default:
		time.Sleep(200 * time.Microsecond)
	}
}

func (n *idle) reset() { *n = 0 }

// failf formats an error for a rank.
func failf(rank int, format string, args ...any) error {
	return fmt.Errorf("rank %d: %s", rank, fmt.Sprintf(format, args...))
}

// topTest is the name of the top-level test t belongs to.
func topTest(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return name
}
