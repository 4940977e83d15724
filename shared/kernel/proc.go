package kernel

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/wire"
)

// proc is a user process this lamd started.
type proc struct {
	pid  int
	job  string
	cmd  *exec.Cmd
	done chan struct{} // closed when it has been reaped
	// removeProgram: the program was loaded (mpirun -s); delete it after.
	removeProgram bool
	name          string      // the program, for mpitask
	rank          int         // its MPI rank (LAMRANK), or -1
	leftMPI       atomic.Bool // it was attached as an MPI process and detached
}

// procTable is every user process of this lamd.
type procTable struct {
	mu     sync.Mutex
	byPID  map[int]*proc
	closed bool
}

func (t *procTable) init() { t.byPID = map[int]*proc{} }

func (t *procTable) add(p *proc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.byPID[p.pid] = p
	return true
}

func (t *procTable) remove(p *proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byPID, p.pid)
}

// select returns the processes of a job ("" = every process), or the one
// with pid (if pid > 0).
func (t *procTable) match(job string, pid int) []*proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*proc
	for _, p := range t.byPID {
		if (pid > 0 && p.pid == pid) || (pid == 0 && (job == "" || p.job == job)) {
			out = append(out, p)
		}
	}
	return out
}

// signal sends sig to each process's group.
func signalAll(ps []*proc, sig syscall.Signal) {
	for _, p := range ps {
		// Every process leads its own group; signal the whole group so
		// that its children go too.
		if err := syscall.Kill(-p.pid, sig); err != nil {
			_ = syscall.Kill(p.pid, sig)
		}
	}
}

// terminate sends SIGTERM, waits up to grace, then SIGKILLs the rest and
// waits (bounded) for them to be reaped.
func terminate(ps []*proc, grace time.Duration) {
	if len(ps) == 0 {
		return
	}
	signalAll(ps, syscall.SIGTERM)
	deadline := time.After(grace)
	for _, p := range ps {
		select {
		case <-p.done:
		case <-deadline:
		}
	}
	var left []*proc
	for _, p := range ps {
		select {
		case <-p.done:
		default:
			left = append(left, p)
		}
	}
	signalAll(left, syscall.SIGKILL)
	reap := time.After(5 * time.Second)
	for _, p := range left {
		select {
		case <-p.done:
		case <-reap:
		}
	}
}

// killAll ends every user process and refuses new ones.
func (t *procTable) killAll(grace time.Duration) {
	t.mu.Lock()
	t.closed = true
	ps := make([]*proc, 0, len(t.byPID))
	for _, p := range t.byPID {
		ps = append(ps, p)
	}
	t.mu.Unlock()
	terminate(ps, grace)
}

// lookPath finds a program the way a shell with the given PATH would.
func lookPath(prog, path, dir string) (string, error) {
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) && dir != "" {
			prog = filepath.Join(dir, prog)
		}
		return prog, checkExec(prog)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, prog)
		if checkExec(p) == nil {
			return p, nil
		}
	}
	return "", fs.ErrNotExist
}

func checkExec(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

// mergeEnv returns base with extra's variables added or replaced.
func mergeEnv(base, extra []string) []string {
	idx := map[string]int{}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range append(base, extra...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// spawn serves a Spawn on this node.
func (k *Kernel) spawn(r *request, a *active, m *wire.Spawn) {
	// The process finds this lamd through its session (MPI processes,
	// tools run by lamexec), whatever options the lamd was started with.
	env := mergeEnv(mergeEnv(os.Environ(), m.Env), []string{
		"LAM_MPI_SESSION_PREFIX=" + k.cfg.Session.Prefix,
		"LAM_MPI_SESSION_SUFFIX=" + k.cfg.Session.Suffix,
	})
	dir := m.Dir
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			if m.Flags&wire.SpawnTryDir == 0 {
				r.fail(wire.CodeNoEntry, "cannot start %s on n%d: no directory %s", m.Argv[0], k.cfg.Self, dir)
				return
			}
			dir = envValue(env, "HOME")
		}
	}
	path, err := lookPath(m.Argv[0], envValue(env, "PATH"), dir)
	if err != nil {
		code, why := wire.CodeNoEntry, "No such file or directory"
		if errors.Is(err, fs.ErrPermission) {
			code, why = wire.CodePerm, "Permission denied"
		}
		r.fail(code, "cannot start %s on n%d: %s", m.Argv[0], k.cfg.Self, why)
		return
	}
	cmd := &exec.Cmd{Path: path, Args: m.Argv, Env: env, Dir: dir,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	noWait := m.Flags&wire.SpawnNoWait != 0
	var outR, errR, inW *os.File
	var closeAfterStart []*os.File
	if noWait {
		devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		if err != nil {
			r.fail(wire.CodeFailed, "cannot start %s: %v", m.Argv[0], err)
			return
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
		closeAfterStart = append(closeAfterStart, devnull)
	} else {
		var outW, errW *os.File
		if outR, outW, err = os.Pipe(); err == nil {
			if errR, errW, err = os.Pipe(); err != nil {
				outR.Close()
				outW.Close()
			}
		}
		if err != nil {
			r.fail(wire.CodeFailed, "cannot start %s: %v", m.Argv[0], err)
			return
		}
		cmd.Stdout, cmd.Stderr = outW, errW
		closeAfterStart = append(closeAfterStart, outW, errW)
		if m.Flags&wire.SpawnStdin != 0 {
			var inR *os.File
			if inR, inW, err = os.Pipe(); err != nil {
				outR.Close()
				errR.Close()
				outW.Close()
				errW.Close()
				r.fail(wire.CodeFailed, "cannot start %s: %v", m.Argv[0], err)
				return
			}
			cmd.Stdin = inR
			closeAfterStart = append(closeAfterStart, inR)
		}
	}
	err = startProc(cmd)
	for _, f := range closeAfterStart {
		f.Close()
	}
	if err != nil {
		for _, f := range []*os.File{outR, errR, inW} {
			if f != nil {
				f.Close()
			}
		}
		r.fail(wire.CodeFailed, "cannot start %s on n%d: %v", m.Argv[0], k.cfg.Self, err)
		return
	}
	p := &proc{pid: cmd.Process.Pid, job: m.Job, cmd: cmd, done: make(chan struct{}),
		removeProgram: m.Flags&wire.SpawnRemoveProgram != 0, name: progName(m.Argv), rank: rankOf(m.Env)}
	if !k.procs.add(p) {
		syscall.Kill(-p.pid, syscall.SIGKILL)
		cmd.Wait()
		r.fail(wire.CodeHalting, "n%d is halting", k.cfg.Self)
		return
	}
	k.log.Debug("started", "pid", p.pid, "argv", m.Argv, "job", m.Job)
	started := &wire.Started{Node: k.cfg.Self, PID: int32(p.pid)}
	if noWait {
		go func() {
			cmd.Wait()
			close(p.done)
			k.procs.remove(p)
		}()
		r.finish(started)
		return
	}
	r.send(started)
	if inW != nil {
		k.feedStdin(r, a, inW)
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		k.watch(r, p, outR, errR)
	}()
}

// A process a lamd starts dies with it: every process gets the
// parent-death signal SIGKILL (prctl PR_SET_PDEATHSIG), so that a lamd
// killed outright (kill -9, the OOM killer), which cannot end its
// processes, does not leave them running under init. SIGKILL because the
// lamd is gone: nobody is left to forward a clean exit, and an MPI
// process also watches its lamd connection and reports the loss itself
// where it is not killed first (a rank behind a wrapper script, which
// the signal does not reach).
//
// Linux sends that signal when the *thread* that forked the child ends,
// not the process (prctl(2); golang/go#27505). Go runs a goroutine on
// whatever thread is free and ends a thread whose locked goroutine
// returns, so which thread forks, and how long it lives, is not the
// caller's to know: a process could be killed while the lamd lives on
// (spawn_internal_test.go shows it). Every process is therefore started
// from one goroutine locked to an OS thread of its own that never
// returns: that thread ends only with the lamd (containerd's go-runc
// locks for the same reason).
// If the lamd dies between fork and the child's prctl, the child notices
// that its parent changed and signals itself (syscall's
// forkAndExecInChild checks getppid after the prctl), so no window is
// left.
var spawner = sync.OnceValue(func() chan<- spawnReq {
	reqs := make(chan spawnReq)
	go func() {
		runtime.LockOSThread() // never unlocked: this goroutine never returns
		for r := range reqs {
			r.done <- r.cmd.Start()
		}
	}()
	return reqs
})

// spawnReq asks the spawner thread to start cmd.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startProc starts cmd from the spawner thread. Starting is fork and
// exec, short whatever the program does, so spawns simply queue.
func startProc(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	spawner() <- spawnReq{cmd: cmd, done: done}
	return <-done
}

// feedStdin passes Stdin frames to the process through a goroutine, so a
// process that does not read cannot stall the connection's reader.
func (k *Kernel) feedStdin(r *request, a *active, w *os.File) {
	ch := make(chan *wire.Stdin, 64)
	r.src.mu.Lock()
	a.stdin = func(m *wire.Stdin) error {
		select {
		case ch <- m:
			return nil
		default:
			return errors.New("stdin backlog full")
		}
	}
	r.src.mu.Unlock()
	go func() {
		defer w.Close()
		for {
			select {
			case m := <-ch:
				if len(m.Data) > 0 {
					if _, err := w.Write(m.Data); err != nil {
						return
					}
				}
				if m.EOF {
					return
				}
			case <-r.ctx.Done():
				return
			}
		}
	}()
}

// watch forwards a process's output line by line, reports its exit, and
// kills it if whoever started it goes away first.
func (k *Kernel) watch(r *request, p *proc, outR, errR *os.File) {
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); forwardLines(r, wire.Stdout, outR) }()
	go func() { defer readers.Done(); forwardLines(r, wire.Stderr, errR) }()
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-r.ctx.Done():
		// The requester is gone: no orphans.
		k.log.Debug("requester gone, killing", "pid", p.pid)
		terminate([]*proc{{pid: p.pid, done: waitDone(waited)}}, k.cfg.KillGrace)
		err = <-waited
	}
	close(p.done)
	// Output still in the pipes belongs before the exit report; but a
	// background child may hold them open forever, so the wait is bounded.
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(time.Second):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	k.procs.remove(p)
	if p.removeProgram {
		os.Remove(p.cmd.Path)
	}
	k.sweepProcess(p.pid)
	k.sweepJob(p.job)
	ex := &wire.Exited{}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = int32(ws.Signal())
		} else {
			ex.Status = int32(ee.ExitCode() & 0xff)
		}
	} else if err != nil {
		ex.Status = 1
	}
	k.log.Debug("exited", "pid", p.pid, "status", ex.Status, "signal", ex.Signal)
	r.finish(ex)
}

// waitDone turns a wait result channel into a done channel without
// consuming the result.
func waitDone(waited chan error) chan struct{} {
	done := make(chan struct{})
	go func() {
		err := <-waited
		waited <- err
		close(done)
	}()
	return done
}

// forwardLines sends f's content as Output frames of whole lines (a line
// longer than the buffer goes in pieces).
func forwardLines(r *request, stream uint8, f *os.File) {
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if r.send(&wire.Output{Stream: stream, Data: append([]byte(nil), line...)}) != nil {
				io.Copy(io.Discard, br) // keep the pipe flowing
				return
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// signal serves a Signal on this node.
func (k *Kernel) signal(r *request, m *wire.Signal) {
	ps := k.procs.match(m.Job, int(m.PID))
	if m.PID > 0 && len(ps) == 0 {
		r.fail(wire.CodeNoEntry, "n%d: no process %d started by this lamd", k.cfg.Self, m.PID)
		return
	}
	if m.Signal == 0 {
		r.finish(&wire.OK{})
		return
	}
	signalAll(ps, syscall.Signal(m.Signal))
	r.finish(&wire.OK{})
}

// kill ends processes (lamclean, job kill): SIGTERM, then SIGKILL.
func (k *Kernel) killProcs(job string) int {
	ps := k.procs.match(job, 0)
	terminate(ps, k.cfg.KillGrace)
	for _, p := range ps {
		k.sweepJob(p.job)
	}
	return len(ps)
}

// sweepProcess removes the regions libfabric's shm provider made for a
// process that has exited (the ofi rpi module over the shm provider):
// one that was killed before it closed its endpoint leaves them.
func (k *Kernel) sweepProcess(pid int) {
	if n, err := jobwire.RemoveProcessRegions(os.Getuid(), pid); err != nil {
		k.log.Warn("removing a process's shm regions", "pid", pid, "err", err)
	} else if n > 0 {
		k.log.Debug("removed a dead process's shm regions", "pid", pid, "regions", n)
	}
}

// sweepJob removes what an MPI job left in shared memory on this node
// (segments whose processes died before all of them attached) once none
// of the job's processes run here any more.
func (k *Kernel) sweepJob(job string) {
	id, err := jobwire.ParseJobID(job)
	if err != nil || len(k.procs.match(job, 0)) > 0 {
		return
	}
	if n, err := jobwire.RemoveSegments(os.Getuid(), &id); err != nil {
		k.log.Warn("removing a job's shared memory", "job", job, "err", err)
	} else if n > 0 {
		k.log.Debug("removed a job's shared memory", "job", job, "segments", n)
	}
}
