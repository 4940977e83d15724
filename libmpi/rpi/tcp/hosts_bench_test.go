package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/nettest"
)

// BenchmarkHostsExchange separates the rpi from the collectives on the
// simulated hosts that BenchmarkCollHosts (shared/integration) uses: two
// network namespaces joined by veth pairs and a bridge (nettest), one
// connection between them made into a link as the rpi makes its links
// (TCP_NODELAY, non-blocking, raw read and writev), and frames of a
// 16-byte header and N bytes driven the way the progress engine drives
// them (header and body in one Write2, the rest as the socket takes it,
// reading whatever has come, poll(2) when nothing moves):
//
//   - pingpong: one side sends, the other answers with as many bytes;
//   - exchange: both send at once, then read (a 2-process Allreduce's
//     step between the hosts' leaders).
//
// "lo" runs the same between two sockets on loopback in the root
// namespace. Per size it reports the median and the 90th percentile of
// an operation's time, and, counted by the kernel in the hosts'
// namespaces (so independent of the machine's load), the tail loss
// probes (TcpExtTCPLossProbes: a sender waited for acknowledgements) and
// the delayed acknowledgements (TcpExtDelayedACKs) per operation:
//
//	go test ./libmpi/rpi/tcp -run '^$' -bench HostsExchange -benchtime 200x
//
// Needs root and nettest's tools; skipped otherwise.
func BenchmarkHostsExchange(b *testing.B) {
	c := nettest.New(b, nettest.Options{Hosts: 2})
	for _, where := range []string{"veth", "lo"} {
		for _, mode := range []string{"pingpong", "exchange"} {
			for _, size := range []int{8 << 10, 32 << 10, 64 << 10, 256 << 10} {
				b.Run(fmt.Sprintf("%s/%s/%d", where, mode, size), func(b *testing.B) {
					var a, z *fdLink
					var err error
					if where == "veth" {
						a, z, err = pairAcross(c)
					} else {
						a, z, err = pairLoopback()
					}
					if err != nil {
						b.Fatal(err)
					}
					defer a.Close()
					defer z.Close()
					before := [2]map[string]int64{netstat(c, 0), netstat(c, 1)}
					times := exchangeLoop(b, a, z, size, mode == "exchange")
					after := [2]map[string]int64{netstat(c, 0), netstat(c, 1)}
					report(b, times)
					if where == "veth" {
						for _, k := range []string{"TCPLossProbes", "DelayedACKs"} {
							d := after[0][k] - before[0][k] + after[1][k] - before[1][k]
							b.ReportMetric(float64(d)/float64(len(times)), k+"/op")
						}
					}
				})
			}
		}
	}
}

// exchangeLoop runs b.N operations between a and z and returns their
// times as a's side saw them.
func exchangeLoop(b *testing.B, a, z *fdLink, size int, both bool) []time.Duration {
	msg := func() ([]byte, []byte, []byte) {
		return make([]byte, 16), make([]byte, size), make([]byte, 16+size)
	}
	var times []time.Duration
	n := b.N
	var wg sync.WaitGroup
	var errZ error
	ready := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		hdr, body, in := msg()
		close(ready)
		for range n {
			if both {
				errZ = move(z, hdr, body, in)
			} else {
				if errZ = move(z, nil, nil, in); errZ == nil {
					errZ = move(z, hdr, body, nil)
				}
			}
			if errZ != nil {
				return
			}
		}
	}()
	<-ready
	runtime.LockOSThread()
	hdr, body, in := msg()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		t0 := time.Now()
		var err error
		if both {
			err = move(a, hdr, body, in)
		} else if err = move(a, hdr, body, nil); err == nil {
			err = move(a, nil, nil, in)
		}
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	runtime.UnlockOSThread()
	wg.Wait()
	if errZ != nil {
		b.Fatal(errZ)
	}
	return times
}

// moveTimeout bounds one operation's side.
const moveTimeout = 10 * time.Second

// move writes hdr+body (when hdr is not nil) and reads len(in) bytes at
// the same time, as the engine does: Write2 first, then whatever either
// direction takes, sleeping in poll(2) when nothing moved; it fails after
// moveTimeout.
func move(l *fdLink, hdr, body, in []byte) error {
	deadline := time.Now().Add(moveTimeout)
	w, r := 0, 0
	total := len(hdr) + len(body)
	if hdr != nil {
		n, err := l.Write2(hdr, body)
		if err != nil {
			return err
		}
		w = n
	}
	for idle := 0; w < total || r < len(in); {
		moved := false
		if w < total {
			var n int
			var err error
			if w < len(hdr) {
				n, err = l.Write2(hdr[w:], body)
			} else {
				n, err = l.Write(body[w-len(hdr):])
			}
			if err != nil {
				return err
			}
			w += n
			moved = moved || n > 0
		}
		if r < len(in) {
			n, err := l.Read(in[r:])
			if err != nil {
				return err
			}
			r += n
			moved = moved || n > 0
		}
		if moved {
			idle = 0
			continue
		}
		if idle++; idle < 64 {
			continue // spin a little, as a waiter does
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d bytes written, %d of %d read after %v", w, total, r, len(in), moveTimeout)
		}
		ev := int16(0)
		if w < total {
			ev |= unix.POLLOUT
		}
		if r < len(in) {
			ev |= unix.POLLIN
		}
		fds := []unix.PollFd{{Fd: int32(l.fd), Events: ev}}
		if _, err := unix.Poll(fds, 100); err != nil && !errors.Is(err, unix.EINTR) {
			return err
		}
	}
	return nil
}

func report(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	s := slices.Clone(times)
	slices.Sort(s)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(s[len(s)/2]), "median-us")
	b.ReportMetric(us(s[len(s)*9/10]), "p90-us")
	b.ReportMetric(0, "ns/op")
}

// inNetns runs f on a thread that has entered host i's network namespace;
// the thread is discarded after (its goroutine ends locked).
func inNetns(c *nettest.Cluster, i int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		fd, err := unix.Open(filepath.Join("/run/netns", c.Hosts[i].Name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			errc <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", c.Hosts[i].Name, err)
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}

// pairAcross connects host 0 to host 1 and makes both ends links.
func pairAcross(c *nettest.Cluster) (*fdLink, *fdLink, error) {
	var l net.Listener
	var err error
	if e := inNetns(c, 0, func() { l, err = net.Listen("tcp", net.JoinHostPort(c.Hosts[0].Addr.String(), "0")) }); e != nil {
		return nil, nil, e
	}
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	var d net.Conn
	if e := inNetns(c, 1, func() { d, err = net.Dial("tcp", l.Addr().String()) }); e != nil {
		return nil, nil, e
	}
	if err != nil {
		return nil, nil, err
	}
	return links(l, d)
}

func pairLoopback() (*fdLink, *fdLink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	d, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	return links(l, d)
}

func links(l net.Listener, d net.Conn) (*fdLink, *fdLink, error) {
	a, err := l.Accept()
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	tr := &transport{short: 65536, sockbuf: -1}
	la, err := tr.link(a)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	lz, err := tr.link(d)
	if err != nil {
		la.Close()
		return nil, nil, err
	}
	return la.(*fdLink), lz.(*fdLink), nil
}

// netstat reads host i's TcpExt counters.
func netstat(c *nettest.Cluster, i int) map[string]int64 {
	m := map[string]int64{}
	inNetns(c, i, func() {
		f, err := os.Open("/proc/thread-self/net/netstat")
		if err != nil {
			return
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			names := strings.Fields(s.Text())
			if !s.Scan() {
				break
			}
			vals := strings.Fields(s.Text())
			if len(names) != len(vals) || names[0] != "TcpExt:" {
				continue
			}
			for k := 1; k < len(names); k++ {
				v, _ := strconv.ParseInt(vals[k], 10, 64)
				m[names[k]] = v
			}
		}
	})
	return m
}
