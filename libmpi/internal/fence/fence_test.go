package fence

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lamgo/lam/shared/testenv"
)

// The store-buffering litmus test, the writer's side plain (storeLoad, as
// Raise stores where Ready) and the waiter's side fenced by Others: the
// writer stores x, then loads the waiter's count; the waiter adds itself
// to the count (a locked instruction), calls Others, then loads x. At
// least one of them must see the other's store; both seeing none is a
// wake-up lost. Without Others the outcome can show up (the writer's
// store still in its processor's store buffer): the test logs how often
// it did here.
func TestStoreBuffering(t *testing.T) {
	once.Do(setUp)
	if !has || !ready {
		testenv.Skip(t, "membarrier(2) has no global expedited command here")
	}
	if !plainStores || runtime.NumCPU() < 2 {
		t.Skip("needs amd64's plain stores and two processors")
	}
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	if lost := storeBuffering(rounds, Others); lost > 0 {
		t.Fatalf("%d of %d rounds lost both stores", lost, rounds)
	}
	t.Logf("without the fence: %d of %d rounds lost both stores", storeBuffering(rounds, func() {}), rounds)
}

// storeBuffering runs the litmus test rounds times, fence on the waiter's
// side, and counts the rounds in which neither side saw the other's
// store. The two sides meet before each round (both count their
// arrival and spin until both have), so that their stores and loads
// overlap.
func storeBuffering(rounds int, fence func()) int {
	var x, arrived atomic.Uint64
	var count atomic.Int32
	seen := make([][2]int64, rounds) // what the writer and the waiter loaded
	meet := func(i int) {
		arrived.Add(1)
		for arrived.Load() < uint64(2*(i+1)) {
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the writer
		defer wg.Done()
		runtime.LockOSThread()
		for i := range rounds {
			meet(i)
			seen[i][0] = int64(storeLoad(&x, uint64(i+1), &count))
		}
	}()
	go func() { // the waiter
		defer wg.Done()
		runtime.LockOSThread()
		for i := range rounds {
			meet(i)
			count.Add(1)
			fence()
			seen[i][1] = int64(x.Load())
		}
	}()
	wg.Wait()
	lost := 0
	for i, s := range seen {
		if s[0] < int64(i+1) && s[1] < int64(i+1) {
			lost++
		}
	}
	return lost
}
