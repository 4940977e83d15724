package core

import (
	"context"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
)

// A test that finds nothing yields to the other processes once
// testsBeforeYield of them in a row found nothing, and each one after
// does, until one finds something, on a node with more processes than
// processors (rpi.Pace.Shared); elsewhere none does.
func TestTestedYields(t *testing.T) {
	yields := 0
	old := yieldOS
	yieldOS = func() { yields++ }
	defer func() { yieldOS = old }()

	e := New(Config{Rank: 0, Links: []rpi.Link{nil}, Pace: rpi.Pace{SpinPolls: 16, YieldOS: true}.Oversubscribed()})
	defer e.Close(context.Background())
	r := e.NewGeneric() // never completed: every Test finds nothing
	for range testsBeforeYield - 1 {
		e.Test(r)
	}
	if yields != 0 {
		t.Fatalf("%d tests that found nothing: %d yields, want 0", testsBeforeYield-1, yields)
	}
	for range 10 {
		e.Test(r)
	}
	if yields != 10 {
		t.Fatalf("10 tests after: %d yields, want 10", yields)
	}
	e.Tested(true) // one found something: the count starts again
	for range testsBeforeYield - 1 {
		if _, ok := e.Iprobe(0, AnySource, AnyTag); ok {
			t.Fatal("Iprobe found a message")
		}
	}
	if yields != 10 {
		t.Fatalf("after a test that found something: %d yields, want 10", yields)
	}
	e.Finish(r, Status{})
	for range 2 * testsBeforeYield {
		if !e.Test(r) {
			t.Fatal("Test of a finished request")
		}
	}
	if yields != 10 {
		t.Fatalf("tests of a finished request: %d yields, want 10", yields)
	}

	quiet := New(Config{Rank: 0, Links: []rpi.Link{nil}, Pace: rpi.Pace{SpinPolls: 16, YieldOS: true}})
	defer quiet.Close(context.Background())
	q := quiet.NewGeneric()
	for range 2 * testsBeforeYield {
		quiet.Test(q)
	}
	if yields != 10 {
		t.Fatalf("an engine not oversubscribed: %d yields, want 10", yields)
	}
}
