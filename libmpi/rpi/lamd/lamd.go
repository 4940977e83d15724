// Package lamd is the lamd rpi module: point-to-point messages travel
// through the lamds as out-of-band messages, like LAM's lamd rpi. A send
// is done once the local lamd has taken it, whether or not the receiver is
// in an MPI call: progress is truly asynchronous, at the price of a trip
// through two daemons per message.
package lamd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// msgType marks rpi traffic among a process's out-of-band messages (the
// wire-up uses other bits).
const msgType int32 = 16

// chunk bounds one out-of-band message.
const chunk = 1 << 20

// Module is the lamd rpi module.
type Module struct{}

func init() { rpi.Register(Module{}) }

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.RPI, Name: "lamd", API: ssi.APIVersion[ssi.RPI], Version: buildinfo.ModuleVersion, Priority: 20}
}

// Query: available wherever a lamd is.
func (m Module) Query(context.Context, *ssi.Settings) (int, error) { return m.SSI().Priority, nil }

// Open needs the local lamd.
func (Module) Open(ctx context.Context, job *rpi.Job) (rpi.Transport, error) {
	if job.OOB == nil {
		return nil, errors.New("rpi lamd: no lamd (the program was not started by mpirun)")
	}
	return &transport{job: job}, nil
}

type transport struct {
	job   *rpi.Job
	links []*link

	// A goroutine waits in the lamd for this process's messages and files
	// them under their senders; a byte on the wake pipe tells poll(2).
	mu           sync.Mutex
	err          error
	wakeR, wakeW int
	stop         context.CancelFunc
	done         chan struct{}
}

// Addr is where peers send: this process's node and pid.
func (t *transport) Addr() string { return fmt.Sprintf("lamd:%d:%d", t.job.Node, t.job.PID) }

// Short: messages up to this size are sent eagerly; through the lamds the
// rendezvous only saves buffering in them.
func (t *transport) Short() int { return 64 << 10 }

// Close stops the receiving goroutine.
func (t *transport) Close() error {
	if t.stop != nil {
		t.stop()
		<-t.done
		unix.Close(t.wakeR)
		unix.Close(t.wakeW)
		t.stop = nil
	}
	return nil
}

// Connect needs no connection: it only learns where each peer is.
func (t *transport) Connect(ctx context.Context, peers []rpi.Peer, _ []byte) ([]rpi.Link, error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("rpi lamd: %w", err)
	}
	t.wakeR, t.wakeW = fds[0], fds[1]
	t.links = make([]*link, len(peers))
	out := make([]rpi.Link, len(peers))
	for _, p := range peers {
		if p.Rank == t.job.Rank {
			continue
		}
		node, pid, err := parseAddr(p.Addr)
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", p.Rank, err)
		}
		l := &link{t: t, node: node, pid: pid}
		t.links[p.Rank] = l
		out[p.Rank] = l
	}
	ctx, t.stop = context.WithCancel(context.Background())
	t.done = make(chan struct{})
	go t.receive(ctx)
	return out, nil
}

// receive waits in the lamd for this process's messages.
func (t *transport) receive(ctx context.Context) {
	defer close(t.done)
	wake := []byte{1}
	for {
		data, err := t.job.OOB.Recv(ctx, msgType)
		if err != nil {
			t.mu.Lock()
			if ctx.Err() == nil {
				t.err = err
			}
			t.mu.Unlock()
			unix.Write(t.wakeW, wake)
			return
		}
		if len(data) < 4 {
			continue
		}
		from := int(binary.BigEndian.Uint32(data))
		if from < 0 || from >= len(t.links) || t.links[from] == nil {
			continue
		}
		t.mu.Lock()
		t.links[from].in = append(t.links[from].in, data[4:]...)
		t.mu.Unlock()
		unix.Write(t.wakeW, wake)
	}
}

func parseAddr(a string) (int32, int, error) {
	parts := strings.Split(a, ":")
	if len(parts) != 3 || parts[0] != "lamd" {
		return 0, 0, fmt.Errorf("bad lamd rpi address %q", a)
	}
	node, err1 := strconv.ParseInt(parts[1], 10, 32)
	pid, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || node < 0 || pid <= 0 {
		return 0, 0, fmt.Errorf("bad lamd rpi address %q", a)
	}
	return int32(node), pid, nil
}

// link is the stream to one peer, carried in out-of-band messages that
// start with the sender's rank.
type link struct {
	t      *transport
	node   int32
	pid    int
	in     []byte // received, not yet read
	closed bool
}

// Fd is the wake pipe: readable when a message came.
func (l *link) Fd() int { return l.t.wakeR }

func (l *link) Close() error {
	l.closed = true
	return nil
}

// Write hands up to one chunk to the local lamd. A full lamd is "not
// now", not an error.
func (l *link) Write(p []byte) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	n := min(len(p), chunk)
	msg := make([]byte, 4+n)
	binary.BigEndian.PutUint32(msg, uint32(l.t.job.Rank))
	copy(msg[4:], p[:n])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := l.t.job.OOB.Send(ctx, l.node, l.pid, msgType, msg)
	if errors.Is(err, rpi.ErrOOBFull) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Read returns the bytes received from this peer.
func (l *link) Read(p []byte) (int, error) {
	var drain [64]byte
	for {
		if n, _ := unix.Read(l.t.wakeR, drain[:]); n <= 0 {
			break
		}
	}
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if len(l.in) == 0 && l.t.err != nil {
		return 0, l.t.err
	}
	n := copy(p, l.in)
	l.in = l.in[n:]
	if len(l.in) == 0 {
		l.in = nil
	}
	return n, nil
}

// Pace: a message reaches this process only after the lamd has run, so
// spinning or yielding would take the processor the lamd needs; a waiter
// polls once and sleeps in poll(2) until the arrival wakes it.
func (t *transport) Pace() rpi.Pace { return rpi.Pace{SpinPolls: 1} }
