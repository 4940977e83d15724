package mpi

// Active reports whether the request is active: started (a nonblocking
// call, or Start of a persistent request) and not yet completed by a
// Wait or Test call. A nil request is not active (MPI_REQUEST_NULL).
// Testsome's callers tell "nothing completed yet" from "nothing to
// complete" with it.
func (r *Request) Active() bool { return !r.inactive() }
