//go:build ofi && cgo

package ofi

import (
	"fmt"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// BenchmarkPingPong: one round trip of a message between two ranks of
// this process over bare links (no MPI core), each side spinning on its
// link; ns/op is a round trip. cgo/op counts the crossings into C on the
// message path (posts, sends, injects, completion-queue polls) of both
// sides per round trip, and busy-cgo/op those that were not polls that
// found nothing (which depend on how long a side waits, not on the
// protocol); credit-msgs/op the credit messages of their own (the
// others' credits go back in the replies' headers), completions/op the
// completions read.
func BenchmarkPingPong(b *testing.B) {
	for _, prov := range []string{"shm", "tcp"} {
		for _, size := range []int{1, 4096, 65536, 1 << 20} {
			b.Run(fmt.Sprintf("%s/%d", prov, size), func(b *testing.B) {
				ts, links := openPair(b, prov)
				a, z := links[0][1], links[1][0]
				msg, buf := make([]byte, size), make([]byte, size)
				done := make(chan error)
				go func() {
					for range b.N {
						if err := readAll(z, buf); err != nil {
							done <- err
							return
						}
						if err := writeAll(z, buf); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
				b.SetBytes(int64(2 * size))
				calls, empty := crossings(ts)
				credits, comps := creditMsgs(ts), completions(ts)
				b.ResetTimer()
				for range b.N {
					if err := writeAll(a, msg); err != nil {
						b.Fatal(err)
					}
					if err := readAll(a, buf); err != nil {
						b.Fatal(err)
					}
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c, e := crossings(ts)
				b.ReportMetric(float64(c-calls)/float64(b.N), "cgo/op")
				b.ReportMetric(float64((c-e)-(calls-empty))/float64(b.N), "busy-cgo/op")
				b.ReportMetric(float64(creditMsgs(ts)-credits)/float64(b.N), "credit-msgs/op")
				b.ReportMetric(float64(completions(ts)-comps)/float64(b.N), "completions/op")
			})
		}
	}
}

// completions sums the completions the transports read.
func completions(ts []*transport) uint64 {
	var n uint64
	for _, t := range ts {
		t.mu.Lock()
		if t.fb != nil {
			n += t.fb.completions
		}
		t.mu.Unlock()
	}
	return n
}

// crossings sums the transports' crossings into C and empty polls.
func crossings(ts []*transport) (calls, empty uint64) {
	for _, t := range ts {
		t.mu.Lock()
		if t.fb != nil {
			calls += t.fb.calls
			empty += t.fb.empty
		}
		t.mu.Unlock()
	}
	return calls, empty
}

func readAll(l rpi.Link, p []byte) error {
	for len(p) > 0 {
		n, err := l.Read(p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func writeAll(l rpi.Link, p []byte) error {
	for len(p) > 0 {
		n, err := l.Write(p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// TestOnePollPerPass: a process that polls its links one after the
// other (as the MPI core does in every pass) polls the completion queue
// once per pass, not once per link.
func TestOnePollPerPass(t *testing.T) {
	if _, err := probe("shm"); err != nil {
		t.Skipf("libfabric provider shm: %v", err)
	}
	ts, links := hybridJob(t, ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "shm"}}, nil), []int32{0, 0, 0, 0})
	tr := ts[0].(*transport)
	before, _ := crossings([]*transport{tr})
	const passes = 1000
	buf := make([]byte, 64)
	for range passes {
		for _, l := range links[0][1:] {
			if _, err := l.Read(buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	after, _ := crossings([]*transport{tr})
	// The background progress may poll a few times meanwhile.
	if n := after - before; n > passes+passes/5 {
		t.Errorf("%d crossings into C for %d passes over 3 links, want about one per pass", n, passes)
	}
}
