//go:build ofi && cgo

package ofi

import (
	"fmt"
	"testing"

	"github.com/lamgo/lam/shared/ssi"
)

// creditMsgs sums the credit messages the transports sent.
func creditMsgs(ts []*transport) uint64 {
	var n uint64
	for _, t := range ts {
		t.mu.Lock()
		n += t.creditMsgs
		t.mu.Unlock()
	}
	return n
}

// TestCreditsPiggyback: credits for data read go back in the header of
// the next message the other way; a credit message of its own goes only
// when a quarter of the window is owed and nothing went back, or when
// the writer may be out of room. A ping-pong sends none; a one-way
// stream about one per quarter of the window; the writer is never held
// back for good, and the receiver never overrun (a message beyond the
// credits, or credits returned beyond the window, would fail the link).
func TestCreditsPiggyback(t *testing.T) {
	const rounds = 2000
	for _, tc := range []struct {
		prov    string
		credits int
	}{{"tcp", 16}, {"shm", 16}, {"tcp", 4}, {"shm", 5}} {
		t.Run(fmt.Sprintf("%s/%d", tc.prov, tc.credits), func(t *testing.T) {
			ts, links := openPair(t, tc.prov, ssi.Arg{Key: "rpi_ofi_credits", Value: fmt.Sprint(tc.credits)})
			a, z := links[0][1], links[1][0]
			msg, buf := []byte{1}, make([]byte, 1)
			echo := make(chan error, 1)
			go func() {
				for range rounds {
					if err := readAll(z, buf); err != nil {
						echo <- err
						return
					}
					if err := writeAll(z, buf); err != nil {
						echo <- err
						return
					}
				}
				echo <- nil
			}()
			before := creditMsgs(ts)
			for range rounds {
				if err := writeAll(a, msg); err != nil {
					t.Fatal(err)
				}
				if err := readAll(a, buf); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-echo; err != nil {
				t.Fatal(err)
			}
			if n := creditMsgs(ts) - before; n != 0 {
				t.Errorf("ping-pong: %d credit messages in %d round trips, want none (credits in the replies' headers)", n, rounds)
			}

			// One way: rank 0 writes one-byte messages as fast as its
			// credits allow, rank 1 reads them; count rank 1's credit
			// messages (rank 0 returns the credits of those in halves).
			reader := ts[1:]
			before = creditMsgs(reader)
			got := make(chan error, 1)
			go func() {
				p := make([]byte, 1)
				for i := range rounds {
					if err := readAll(z, p); err != nil {
						got <- err
						return
					}
					if p[0] != byte(i) {
						got <- fmt.Errorf("message %d read %d", i, p[0])
						return
					}
				}
				got <- nil
			}()
			for i := range rounds {
				if err := writeAll(a, []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-got; err != nil {
				t.Fatal(err)
			}
			n := creditMsgs(reader) - before
			quarter := min(max(tc.credits/4, 3), tc.credits-1)
			// At most one per message read (when the writer ran out of
			// room); at least one per window, as nothing else goes back.
			if n > rounds || n < uint64((rounds-tc.credits)/tc.credits) {
				t.Errorf("one way: %d credit messages for %d messages (window %d)", n, rounds, tc.credits)
			}
			t.Logf("one way: %d credit messages for %d messages (window %d, quarter %d)", n, rounds, tc.credits, quarter)
			for i, tr := range ts {
				tr.mu.Lock()
				l := tr.links[1-i]
				if l.dead != nil || l.credits < 0 || l.credits > tc.credits {
					t.Errorf("rank %d: link %v, %d credits of %d", i, l.dead, l.credits, tc.credits)
				}
				tr.mu.Unlock()
			}
		})
	}
}
