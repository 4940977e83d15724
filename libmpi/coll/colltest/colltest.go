// Package colltest runs coll modules without MPI: a World is a set of
// goroutines, one per "process", that exchange messages in memory with
// MPI's matching rules (per context, source and tag, first in first out,
// wildcards on the receive side), on any node layout. Sends complete at
// once (the data is copied). A receive that waits past the World's time
// limit fails, so a test of a hang ends with an error instead of hanging.
package colltest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/shared/ssi"
)

// ErrHang is what a receive returns when it waited past the time limit.
var ErrHang = errors.New("colltest: a receive waited too long (the collective hangs)")

// World is the processes and their mailboxes.
type World struct {
	mu       sync.Mutex
	cond     *sync.Cond
	nodes    []int32
	boxes    []*box
	settings *ssi.Settings
	deadline time.Time
	ctxs     map[string]int
	splits   map[string]*splitTable // by Split id, the generation being filled or read
	nextGen  int
	nextCtx  int
	done     chan struct{}
	shared   string // path prefix of shared-memory areas; "" for none
	progress *coll.Progress

	// Processors is how many processors a node has, for Oversubscribed
	// (0: this machine's, runtime.NumCPU). Set it before the first
	// collective.
	Processors int
}

// Share lets the world's communicators have shared-memory areas, named
// under prefix (a path and the start of a file name), as a job's processes
// of one node can: the transports then implement coll.Sharer, every
// process having this process's pid.
func (w *World) Share(prefix string) { w.shared = prefix }

// NewSharedWorld is NewWorld whose communicators may share memory (Share),
// with areas named under a prefix of the test's own; at the test's end it
// closes the world and fails the test if an area's name is left.
func NewSharedWorld(t testing.TB, nodes []int32, timeout time.Duration, params ...string) *World {
	t.Helper()
	w := NewWorld(nodes, timeout, params...)
	name := strings.NewReplacer("/", "_", " ", "_", "=", "_").Replace(t.Name())
	prefix := fmt.Sprintf("/dev/shm/lam-test-%d-%s-", os.Getpid(), name)
	w.Share(prefix)
	t.Cleanup(func() {
		w.Close()
		left, _ := filepath.Glob(prefix + "*")
		for _, f := range left {
			os.Remove(f)
		}
		if len(left) > 0 {
			t.Errorf("areas left behind: %v", left)
		}
	})
	return w
}

type box struct {
	msgs  []*message
	recvs []*request
	// sent and received count the process's sends and receives.
	sent, received int
	// most is the most messages that waited in msgs at once.
	most int
}

// Messages reports how many messages world rank r sent and how many
// receives it posted so far.
func (w *World) Messages(r int) (sent, received int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.boxes[r].sent, w.boxes[r].received
}

// MostQueued reports the most messages that ever waited at world rank
// r for their receives (its unexpected queue's high-water mark).
func (w *World) MostQueued(r int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.boxes[r].most
}

type message struct {
	ctx, src, tag int
	data          []byte
}

type request struct {
	w             *World
	ctx, src, tag int
	buf           []byte
	done          atomic.Bool
	st            coll.Status
	truncated     bool
}

// splitTable is one Split's colors and keys, by rank. A communicator's
// processes may make their Splits again (a test that runs the same
// communicator's processes twice, as SendersFirst after Each), so a
// Split's id (the context and the count of Splits before it) can repeat
// within one World: each generation of an id gets a table of its own,
// made by the first process that finds none or a full one, and released
// once every member has read it.
type splitTable struct {
	color, key   []int
	filled, read int
	gen          int // the World's count of tables before it
}

// NewWorld makes a world of len(nodes) processes, process i on node
// nodes[i], whose receives give up after limit. params are -ssi settings
// ("coll_base_crossover", "1", ...).
func NewWorld(nodes []int32, limit time.Duration, params ...string) *World {
	var args []ssi.Arg
	for i := 0; i+1 < len(params); i += 2 {
		args = append(args, ssi.Arg{Key: params[i], Value: params[i+1]})
	}
	w := &World{nodes: nodes, settings: ssi.NewSettings(args, nil), deadline: time.Now().Add(limit),
		ctxs: map[string]int{}, splits: map[string]*splitTable{}, nextCtx: 100, done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	w.progress = coll.NewProgress(w.wait, w.wait, nil)
	for range nodes {
		w.boxes = append(w.boxes, &box{})
	}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				w.cond.Broadcast()
			}
		}
	}()
	return w
}

// wait waits until cond holds (cond reads atomics only) or the time
// limit passes: the progress of the world's nonblocking collectives.
func (w *World) wait(cond func() bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !cond() {
		if time.Now().After(w.deadline) {
			return ErrHang
		}
		w.cond.Wait()
	}
	return nil
}

// Close stops the world's clock.
func (w *World) Close() { close(w.done) }

// Comm returns world rank r's view of the communicator of every process.
func (w *World) Comm(r int) *coll.Comm {
	group := make([]int, len(w.nodes))
	for i := range group {
		group[i] = i
	}
	return w.comm(0, group, nil, r, "world")
}

// Inter returns world rank r's view of an intercommunicator between
// groups a and b (world ranks), r being in one of them.
func (w *World) Inter(a, b []int, r int) *coll.Comm {
	local, remote := a, b
	if index(b, r) >= 0 {
		local, remote = b, a
	}
	side, lctx := "a", 3
	if index(b, r) >= 0 {
		side, lctx = "b", 4
	}
	c := w.comm(1, local, remote, index(local, r), "inter")
	t, ok := c.T.(*transport)
	if !ok {
		t = c.T.(receiving).transport
	}
	t.local = w.comm(lctx, local, nil, index(local, r), "inter local "+side)
	return c
}

func index(g []int, r int) int {
	for i, x := range g {
		if x == r {
			return i
		}
	}
	return -1
}

func (w *World) comm(ctx int, group, remote []int, rank int, name string) *coll.Comm {
	t := &transport{w: w, ctx: ctx, group: group, remote: remote, rank: rank, name: name}
	var ct coll.Transport = t
	if rank%2 == 1 {
		// Odd ranks have the optional blocking receive, so that both
		// ways of receiving are tested, side by side.
		ct = receiving{t}
	}
	t.c = coll.New(ct, w.settings)
	return t.c
}

// receiving is a transport with a blocking receive (coll.Receiver).
type receiving struct{ *transport }

func (t receiving) Recv(buf []byte, src, tag int) (coll.Status, error) {
	r, err := t.Irecv(buf, src, tag)
	if err != nil {
		return coll.Status{}, err
	}
	return r.Wait()
}

type transport struct {
	w      *World
	ctx    int
	group  []int
	remote []int
	rank   int
	name   string
	local  *coll.Comm
	splits int
	c      *coll.Comm
	freed  bool
}

// SharedPath names the communicator's area on its node, if the world has
// shared memory.
func (t *transport) SharedPath() string {
	if t.w.shared == "" || t.remote != nil {
		return ""
	}
	return fmt.Sprintf("%sctx%d-n%d-%d", t.w.shared, t.ctx, t.Node(t.rank), t.group[0])
}

// PID is the pid of every process: they are goroutines of this one.
func (t *transport) PID(int) int { return os.Getpid() }

// Oversubscribed says whether the world's processes on this one's node
// (goroutines of this process) outnumber the processors.
func (t *transport) Oversubscribed() bool {
	n := 0
	for _, node := range t.w.nodes {
		if node == t.Node(t.rank) {
			n++
		}
	}
	cpus := t.w.Processors
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	return n > cpus
}

func (t *transport) Rank() int          { return t.rank }
func (t *transport) Size() int          { return len(t.group) }
func (t *transport) RemoteSize() int    { return len(t.remote) }
func (t *transport) Node(r int) int32   { return t.w.nodes[t.group[r]] }
func (t *transport) Local() *coll.Comm  { return t.local }
func (t *transport) Name() string       { return t.name }
func (t *transport) Free() error        { t.freed = true; return nil }
func (t *transport) world(rank int) int { return t.peers()[rank] }

func (t *transport) peers() []int {
	if t.remote != nil {
		return t.remote
	}
	return t.group
}
func (t *transport) me() int             { return t.group[t.rank] }
func (t *transport) check(rank int) bool { return rank >= 0 && rank < len(t.peers()) }

func (t *transport) Isend(buf []byte, dest, tag int) (coll.Request, error) {
	if !t.check(dest) {
		return nil, fmt.Errorf("colltest: %s: send to rank %d of %d", t.name, dest, len(t.peers()))
	}
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	m := &message{ctx: t.ctx, src: t.rank, tag: tag, data: append([]byte(nil), buf...)}
	w.boxes[t.me()].sent++
	b := w.boxes[t.world(dest)]
	for i, r := range b.recvs {
		if r.matches(m) {
			b.recvs = append(b.recvs[:i], b.recvs[i+1:]...)
			r.fill(m)
			w.cond.Broadcast()
			return sentRequest(w), nil
		}
	}
	b.msgs = append(b.msgs, m)
	b.most = max(b.most, len(b.msgs))
	return sentRequest(w), nil
}

func (t *transport) Irecv(buf []byte, src, tag int) (coll.Request, error) {
	if src != coll.AnySource && !t.check(src) {
		return nil, fmt.Errorf("colltest: %s: receive from rank %d of %d", t.name, src, len(t.peers()))
	}
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &request{w: w, ctx: t.ctx, src: src, tag: tag, buf: buf}
	b := w.boxes[t.me()]
	b.received++
	for i, m := range b.msgs {
		if r.matches(m) {
			b.msgs = append(b.msgs[:i], b.msgs[i+1:]...)
			r.fill(m)
			return r, nil
		}
	}
	b.recvs = append(b.recvs, r)
	return r, nil
}

// sentRequest is a send's request: complete, the data copied.
func sentRequest(w *World) *request {
	r := &request{w: w}
	r.done.Store(true)
	return r
}

// Done reports whether the request has completed (coll.Tester).
func (r *request) Done() bool { return r.done.Load() }

// Progress is the world's progress of nonblocking collectives (one for
// all its processes).
func (t *transport) Progress() *coll.Progress { return t.w.progress }

func (r *request) matches(m *message) bool {
	return r.ctx == m.ctx && (r.src == coll.AnySource || r.src == m.src) && (r.tag == coll.AnyTag || r.tag == m.tag)
}

func (r *request) fill(m *message) {
	n := copy(r.buf, m.data)
	r.st = coll.Status{Source: m.src, Tag: m.tag, Count: n}
	r.truncated = len(m.data) > len(r.buf)
	r.done.Store(true)
}

func (r *request) Wait() (coll.Status, error) {
	w := r.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for !r.done.Load() {
		if time.Now().After(w.deadline) {
			return coll.Status{}, ErrHang
		}
		w.cond.Wait()
	}
	if r.truncated {
		return r.st, coll.ErrTruncated
	}
	return r.st, nil
}

// Split gathers every process's color and key through the world's table
// and makes the sub-communicator with a context all its members agree on.
func (t *transport) Split(color, key int) (*coll.Comm, error) {
	if t.remote != nil {
		return nil, errors.New("colltest: Split of an intercommunicator")
	}
	w := t.w
	id := fmt.Sprintf("%d/%d", t.ctx, t.splits)
	t.splits++
	w.mu.Lock()
	tab := w.splits[id]
	if tab == nil || tab.filled == len(t.group) {
		// None, or an earlier generation's, which its members may still
		// be reading: a new table.
		tab = &splitTable{color: make([]int, len(t.group)), key: make([]int, len(t.group)), gen: w.nextGen}
		w.nextGen++
		w.splits[id] = tab
	}
	tab.color[t.rank], tab.key[t.rank] = color, key
	tab.filled++
	w.cond.Broadcast()
	for tab.filled < len(t.group) {
		if time.Now().After(w.deadline) {
			w.mu.Unlock()
			return nil, ErrHang
		}
		w.cond.Wait()
	}
	// The table is read under the lock (a process of the next generation
	// may be making its own), and the last reader releases it.
	release := func() {
		if tab.read++; tab.read == len(t.group) && w.splits[id] == tab {
			delete(w.splits, id)
		}
		w.mu.Unlock()
	}
	if color < 0 {
		release()
		return nil, nil
	}
	ck := fmt.Sprintf("%s/%d", id, color)
	gk := fmt.Sprintf("%s#%d", ck, tab.gen) // each generation's own context
	ctx, ok := w.ctxs[gk]
	if !ok {
		ctx = w.nextCtx
		w.nextCtx++
		w.ctxs[gk] = ctx
	}
	var members []int
	for i := range t.group {
		if tab.color[i] == color {
			members = append(members, i)
		}
	}
	// Order by key, then rank (a stable insertion sort).
	for i := 1; i < len(members); i++ {
		for j := i; j > 0 && tab.key[members[j]] < tab.key[members[j-1]]; j-- {
			members[j], members[j-1] = members[j-1], members[j]
		}
	}
	release()
	group := make([]int, len(members))
	rank := -1
	for i, m := range members {
		group[i] = t.group[m]
		if m == t.rank {
			rank = i
		}
	}
	return t.w.comm(ctx, group, nil, rank, fmt.Sprintf("%s split %s", t.name, ck)), nil
}

// Leftover reports the messages nobody received (a correct collective
// leaves none).
func (w *World) Leftover() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, b := range w.boxes {
		n += len(b.msgs)
	}
	return n
}

// Run runs f on every process of a new world (each with its world
// communicator) and returns their errors by rank. The world is closed
// after.
func Run(t testing.TB, nodes []int32, limit time.Duration, params []string, f func(c *coll.Comm) error) []error {
	t.Helper()
	w := NewWorld(nodes, limit, params...)
	defer w.Close()
	return w.Each(func(r int) error { return f(w.Comm(r)) })
}

// Each runs f(rank) on a goroutine per process and returns the errors.
func (w *World) Each(f func(r int) error) []error {
	errs := make([]error, len(w.nodes))
	var wg sync.WaitGroup
	for r := range w.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[r] = fmt.Errorf("panic: %v", p)
				}
			}()
			errs[r] = f(r)
		}()
	}
	wg.Wait()
	return errs
}

// SendersFirst runs f(rank) on every process as Each does, but the
// processes for which sends(rank) is false call f only once every one
// for which it is true has returned, or limit later: a test that the
// processes of a collective that only send return without waiting for
// the others (coll_base_check=1) fails if they wait. After the limit the
// others call f anyway, so that the senders end, and report the lateness
// with whatever f returns.
func (w *World) SendersFirst(sends func(r int) bool, limit time.Duration, f func(r int) error) []error {
	var senders sync.WaitGroup
	for r := range w.nodes {
		if sends(r) {
			senders.Add(1)
		}
	}
	sent := make(chan struct{})
	go func() { senders.Wait(); close(sent) }()
	return w.Each(func(r int) error {
		if !sends(r) {
			select {
			case <-sent:
			case <-time.After(limit):
				return errors.Join(errors.New("the senders did not return before the receivers called"), f(r))
			}
			return f(r)
		}
		defer senders.Done()
		return f(r)
	})
}

// ClassOf is the class of a collective's error, -1 for nil or another
// error.
func ClassOf(err error) coll.Class {
	var ce *coll.Error
	if errors.As(err, &ce) {
		return ce.Class
	}
	return -1
}
