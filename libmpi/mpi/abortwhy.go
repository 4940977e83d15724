package mpi

// AbortWhy is Abort saying why: mpirun reports why beside the rank that
// aborted, where Abort reports only the code. Error handlers that end
// the job use it (the C interface's MPI_ERRORS_ARE_FATAL does, with the
// error's text).
func AbortWhy(c *Comm, code int, why string) {
	abort(c, code, why)
}
