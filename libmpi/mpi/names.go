package mpi

import "unicode/utf8"

// MaxObjectName is MPI_MAX_OBJECT_NAME as in LAM: a name holds at most
// MaxObjectName-1 bytes (C's terminating NUL takes the last).
const MaxObjectName = 64

// Names (MPI-2 §8.4) label communicators and datatypes in error messages
// and for tools. World and Self are named MPI_COMM_WORLD and
// MPI_COMM_SELF, the predefined datatypes by their MPI names (MPI_INT,
// MPI_DOUBLE, …). Unlike MPI, whose unnamed objects have the empty name, a
// communicator or datatype made by a call carries a name that says where
// it came from ("MPI_COMM_WORLD (dup)", "vector(…)"), which SetName
// replaces. The calls map onto MPI_Comm_set_name/MPI_Comm_get_name and
// MPI_Type_set_name/MPI_Type_get_name.
//
// SetName is a local call; like MPI, it must not run while another
// goroutine uses the same object.

// SetName names the communicator (MPI_Comm_set_name). A name longer than
// MaxObjectName-1 bytes is truncated, as MPI says.
func (c *Comm) SetName(name string) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	c.name = truncateName(name)
	return nil
}

// SetName names the datatype (MPI_Type_set_name), truncating as
// (*Comm).SetName does.
func (d *Datatype) SetName(name string) error {
	if d == nil {
		return errorf(ErrType, "nil datatype")
	}
	d.name = truncateName(name)
	return nil
}

// truncateName cuts name to MaxObjectName-1 bytes, on a character
// boundary.
func truncateName(name string) string {
	if len(name) < MaxObjectName {
		return name
	}
	n := MaxObjectName - 1
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}
