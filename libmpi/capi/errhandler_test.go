package main

import "testing"

// TestSplitFn checks which MPI function a fatal error's message names.
func TestSplitFn(t *testing.T) {
	for _, c := range []struct{ in, comm, fn, rest string }{
		{"MPI_Send: rank 9 out of range", "MPI_COMM_WORLD", "MPI_Send", "rank 9 out of range"},
		{"MPI_COMM_WORLD: MPI_Bcast: the processes gave different sizes", "MPI_COMM_WORLD", "MPI_Bcast", "the processes gave different sizes"},
		{"MPI_COMM_WORLD: rank 1 died during a collective", "MPI_COMM_WORLD", "", "rank 1 died during a collective"},
		{"MPI_ADDRESS: invalid argument: the address does not fit", "MPI_COMM_WORLD", "MPI_ADDRESS", "invalid argument: the address does not fit"},
		{"MPI_Type_vector: count -1", "", "MPI_Type_vector", "count -1"},
		{"grid: MPI_Allreduce: sizes differ", "grid", "MPI_Allreduce", "sizes differ"},
		{"the processes called different collectives", "MPI_COMM_WORLD", "", "the processes called different collectives"},
		{"MPI_ERR_OTHER happened: x", "", "", "MPI_ERR_OTHER happened: x"},
	} {
		fn, rest := splitFn(c.in, c.comm)
		if fn != c.fn || rest != c.rest {
			t.Errorf("splitFn(%q, %q) = %q, %q; want %q, %q", c.in, c.comm, fn, rest, c.fn, c.rest)
		}
	}
}
