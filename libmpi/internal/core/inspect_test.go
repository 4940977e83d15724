package core

import (
	"testing"
)

// Unexpected lists what arrived unmatched, eager and rendezvous, and
// honours its limit.
func TestUnexpected(t *testing.T) {
	es := job(t, 2, 64)
	send(t, es[0], []byte("eager"), 1, 7, Standard)
	go send(t, es[0], make([]byte, 1000), 1, 8, Standard) // rendezvous: waits for the match
	// Probe makes rank 1 read both envelopes.
	if _, err := es[1].Probe(ctx(t), 0, 0, 8); err != nil {
		t.Fatal(err)
	}
	got, err := es[1].Unexpected(ctx(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pending{{Context: 0, Source: 0, From: 0, Tag: 7, Bytes: 5}, {Context: 0, Source: 0, From: 0, Tag: 8, Bytes: 1000, Sync: true}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Unexpected = %+v, want %+v", got, want)
	}
	if got, _ := es[1].Unexpected(ctx(t), 1); len(got) != 1 {
		t.Errorf("limit 1 gave %d", len(got))
	}
	// Receiving them empties the list.
	for _, tag := range []int{7, 8} {
		buf := make([]byte, 1000)
		wait(t, es[1], irecv(es[1], buf, 0, tag))
	}
	if got, _ := es[1].Unexpected(ctx(t), 10); len(got) != 0 {
		t.Errorf("after the receives: %+v", got)
	}
}
