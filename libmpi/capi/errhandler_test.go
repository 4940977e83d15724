package main

import "testing"

// TestSplitFn checks which MPI function a fatal error's message names.
func TestSplitFn(t *testing.T) {
	for _, c := range []struct{ in, fn, rest string }{
		{"MPI_Send: rank 9 out of range", "MPI_Send", "rank 9 out of range"},
		{"MPI_COMM_WORLD: MPI_Bcast: the processes gave different sizes", "MPI_Bcast", "the processes gave different sizes"},
		{"MPI_COMM_WORLD: rank 1 died during a collective", "", "rank 1 died during a collective"},
		{"MPI_Type_vector: count -1", "MPI_Type_vector", "count -1"},
		{"the processes called different collectives", "", "the processes called different collectives"},
		{"MPI_ERR_OTHER happened: x", "", "MPI_ERR_OTHER happened: x"},
		{"MPI_A: MPI_B: MPI_C: x", "", "MPI_C: x"},
	} {
		fn, rest := splitFn(c.in)
		if fn != c.fn || rest != c.rest {
			t.Errorf("splitFn(%q) = %q, %q; want %q, %q", c.in, fn, rest, c.fn, c.rest)
		}
	}
}
