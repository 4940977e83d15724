package mpi

// CallErrhandler runs the communicator's error handler on err and returns
// err (MPI_Comm_call_errhandler). Layers above the Go API (the C
// interface) use it for the errors they find themselves, so those reach
// the same handlers as the Go API's own.
func (c *Comm) CallErrhandler(err error) error {
	if c == nil {
		c = World
	}
	return c.fail(err)
}
