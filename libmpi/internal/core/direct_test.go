package core

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// directLink is a socket link whose peer's memory can be read (both ends
// live in this process), or whose remote reads are refused.
type directLink struct {
	sockLink
	refuse bool
	reads  *int
}

func (l *directLink) SingleCopy() int { return 100000 }

func (l *directLink) ReadRemote(dst []byte, addr uint64) error {
	*l.reads++
	if l.refuse {
		return unix.EPERM
	}
	return selfCopy(unix.ProcessVMReadv, dst, addr)
}

// selfCopy copies between local and addr in this process's own memory
// (both ends of the test's links live here) with call.
func selfCopy(call func(int, []unix.Iovec, []unix.RemoteIovec, uint) (int, error), local []byte, addr uint64) error {
	lv := []unix.Iovec{{Base: &local[0]}}
	lv[0].SetLen(len(local))
	rv := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(local)}}
	n, err := call(os.Getpid(), lv, rv, 0)
	if err == nil && n != len(local) {
		err = errors.New("short copy")
	}
	return err
}

func directJob(t *testing.T, refuse bool) ([]*Engine, *int) {
	fds := sockPair(t)
	reads := new(int)
	return pairEngines(t, &directLink{sockLink{fds[0]}, refuse, reads}, &directLink{sockLink{fds[1]}, refuse, reads}), reads
}

// sockPair is a pair of connected nonblocking Unix sockets.
func sockPair(t *testing.T) [2]int {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fds[0], true)
	unix.SetNonblock(fds[1], true)
	return [2]int{fds[0], fds[1]}
}

// pairEngines is a job of two engines, rank 0's link to rank 1 a and
// rank 1's to rank 0 b, closed when the test ends.
func pairEngines(t *testing.T, a, b rpi.Link) []*Engine {
	pace := rpi.Pace{SpinPolls: 16, Spin: 50 * time.Microsecond, Yield: 100 * time.Microsecond}
	es := []*Engine{
		New(Config{Rank: 0, Links: []rpi.Link{nil, a}, Short: 1024, Pace: pace}),
		New(Config{Rank: 1, Links: []rpi.Link{b, nil}, Short: 1024, Pace: pace}),
	}
	t.Cleanup(func() {
		for _, e := range es {
			e.Close(t.Context())
		}
	})
	return es
}

// Long messages move by a direct read of the sender's buffer where the
// link allows it, and by the usual clear-to-send otherwise; both complete
// the send, report truncation, and keep synchronous semantics.
func TestDirectRendezvous(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		es, reads := directJob(t, refuse)
		msg := bytes.Repeat([]byte("0123456789"), 50000)
		for _, mode := range []SendMode{Standard, Sync} {
			for _, early := range []bool{true, false} {
				buf := make([]byte, len(msg))
				var r *Request
				if early {
					r = irecv(es[1], buf, 0, 3)
				}
				done := make(chan struct{})
				go func() { send(t, es[0], msg, 1, 3, mode); close(done) }()
				if !early {
					time.Sleep(5 * time.Millisecond)
					r = irecv(es[1], buf, 0, 3)
				}
				st := wait(t, es[1], r)
				<-done
				if st.Err != nil || st.Count != len(msg) || !bytes.Equal(buf, msg) {
					t.Fatalf("refuse=%v mode=%v early=%v: %+v", refuse, mode, early, st)
				}
			}
		}
		// Truncated: the receiver reads what fits and says so.
		small := make([]byte, 1000)
		r := irecv(es[1], small, 0, 4)
		done := make(chan struct{})
		go func() { send(t, es[0], msg, 1, 4, Standard); close(done) }()
		if st := wait(t, es[1], r); !errors.Is(st.Err, ErrTruncate) || st.Count != 1000 || !bytes.Equal(small, msg[:1000]) {
			t.Fatalf("refuse=%v truncated: %+v", refuse, st)
		}
		<-done
		if *reads == 0 {
			t.Errorf("refuse=%v: the link was never asked to read directly", refuse)
		}
		if refuse && *reads != 1 {
			t.Errorf("a refused direct read was tried %d times; once is enough", *reads)
		}
	}
}

// writingLink is a directLink that can also write into the peer's
// memory (a split copy), or refuses to.
type writingLink struct {
	directLink
	refuseWrite bool
	writes      *int
}

func (l *writingLink) WriteRemote(src []byte, addr uint64) error {
	*l.writes++
	if l.refuseWrite {
		return unix.EPERM
	}
	return selfCopy(unix.ProcessVMWritev, src, addr)
}

// splitJob is directJob with writingLinks: two engines whose links can
// read from and write into the peer's memory (a split copy), or refuse
// to write; writes counts the writes asked for.
func splitJob(t *testing.T, refuseWrite bool) ([]*Engine, *int) {
	fds := sockPair(t)
	reads, writes := new(int), new(int)
	a := &writingLink{directLink{sockLink{fds[0]}, false, reads}, refuseWrite, writes}
	b := &writingLink{directLink{sockLink{fds[1]}, false, reads}, refuseWrite, writes}
	return pairEngines(t, a, b), writes
}

// TestSplitCopy: a long message moves in two parts at once, the sender
// writing the first into the receiver's buffer while the receiver reads
// the rest; where the link refuses the write, the first part comes as
// data. Either way both requests complete once both parts are in, with
// truncation and synchronous sends as usual.
func TestSplitCopy(t *testing.T) {
	for _, refuseWrite := range []bool{false, true} {
		es, writes := splitJob(t, refuseWrite)
		for _, size := range []int{splitMin + 100000, 500001, 1<<20 + 3} {
			msg := make([]byte, size)
			for i := range msg {
				msg[i] = byte(i * 7)
			}
			for _, mode := range []SendMode{Standard, Sync} {
				for _, early := range []bool{true, false} {
					buf := make([]byte, size)
					var r *Request
					if early {
						r = irecv(es[1], buf, 0, 3)
					}
					done := make(chan struct{})
					go func() { send(t, es[0], msg, 1, 3, mode); close(done) }()
					if !early {
						time.Sleep(2 * time.Millisecond)
						r = irecv(es[1], buf, 0, 3)
					}
					st := wait(t, es[1], r)
					<-done
					if st.Err != nil || st.Count != size || st.Source != 0 || st.Tag != 3 || !bytes.Equal(buf, msg) {
						t.Fatalf("refuseWrite=%v size=%d mode=%v early=%v: %+v", refuseWrite, size, mode, early, st)
					}
				}
			}
			// Truncated: the parts split what fits.
			small := make([]byte, size/3)
			r := irecv(es[1], small, 0, 4)
			done := make(chan struct{})
			go func() { send(t, es[0], msg, 1, 4, Standard); close(done) }()
			if st := wait(t, es[1], r); !errors.Is(st.Err, ErrTruncate) || st.Count != len(small) || !bytes.Equal(small, msg[:len(small)]) {
				t.Fatalf("refuseWrite=%v size=%d truncated: %+v", refuseWrite, size, st)
			}
			<-done
		}
		if *writes == 0 {
			t.Errorf("refuseWrite=%v: the sender was never asked to write", refuseWrite)
		}
	}
}

// TestSplitCopyOneAtATime: a sender with a long send under way marks the
// rts of its next one flagWhole, and its receiver copies that body whole
// instead of asking the sender to write half (a Bcast's root sending to
// many would otherwise copy half of every message itself): of two long
// messages started back to back, only the first is split.
func TestSplitCopyOneAtATime(t *testing.T) {
	es, writes := splitJob(t, false)
	const size = 1 << 20
	msgs := [2][]byte{make([]byte, size), make([]byte, size)}
	for i := range size {
		msgs[0][i], msgs[1][i] = byte(i*7), byte(i*13)
	}
	var sends [2]*Request
	for i, m := range msgs {
		sends[i] = es[0].NewSend(m, 1, 1, 0, 3+i, 0, Standard)
		es[0].Start(sends[i])
	}
	sent := make(chan error, 1)
	go func() { // the sender's progress (its half of a split)
		var err error
		for _, r := range sends {
			if err == nil {
				err = es[0].Wait(ctx(t), r)
			}
		}
		sent <- err
	}()
	for i := range msgs {
		buf := make([]byte, size)
		st := wait(t, es[1], irecv(es[1], buf, 0, 3+i))
		if st.Err != nil || st.Count != size || !bytes.Equal(buf, msgs[i]) {
			t.Fatalf("message %d: %+v", i, st)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if *writes != 1 {
		t.Errorf("the sender wrote %d parts of its two messages; want 1 (the first split, the second read whole)", *writes)
	}
}
