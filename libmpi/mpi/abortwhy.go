package mpi

import "github.com/lamgo/lam/libmpi/internal/core"

// AbortWhy is Abort saying why: mpirun reports why beside the rank that
// aborted, where Abort reports only the code. Error handlers that end
// the job use it (the C interface's MPI_ERRORS_ARE_FATAL does, with the
// error's text).
func AbortWhy(c *Comm, code int, why string) {
	abort(c, code, why, -1)
}

// AbortOn is AbortWhy for a call that failed with err: when err is the
// death of another process (ErrProcFailed), mpirun is told which, so that
// it reports that process's end, not this abort, as the job's failure.
func AbortOn(c *Comm, code int, why string, err error) {
	abort(c, code, why, core.DeadRank(err))
}
