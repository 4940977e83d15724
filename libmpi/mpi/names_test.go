package mpi_test

import (
	"strings"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestNames(t *testing.T) {
	if mpi.World.Name() != "MPI_COMM_WORLD" || mpi.Self.Name() != "MPI_COMM_SELF" {
		t.Errorf("predefined communicators: %q %q", mpi.World.Name(), mpi.Self.Name())
	}
	for d, want := range map[*mpi.Datatype]string{
		mpi.Int32: "MPI_INT", mpi.Float64: "MPI_DOUBLE", mpi.Byte: "MPI_BYTE", mpi.Char: "MPI_CHAR",
		mpi.Uint64: "MPI_UNSIGNED_LONG", mpi.Complex128: "MPI_DOUBLE_COMPLEX", nil: "MPI_DATATYPE_NULL",
	} {
		if d.Name() != want {
			t.Errorf("datatype %q, want %q", d.Name(), want)
		}
	}

	c, err := mpi.World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	if err := c.SetName("solver"); err != nil || c.Name() != "solver" {
		t.Errorf("SetName: %q %v", c.Name(), err)
	}
	d, _ := c.Dup()
	defer d.Free()
	if d.Name() == "solver" {
		t.Error("Dup copied the name (MPI says it is not propagated)")
	}
	long := strings.Repeat("é", 40) // 80 bytes
	c.SetName(long)
	if n := c.Name(); len(n) != mpi.MaxObjectName-2 || !strings.HasPrefix(long, n) {
		t.Errorf("a long name became %q (%d bytes)", n, len(n))
	}
	if err := (*mpi.Comm)(nil).SetName("x"); mpi.Class(err) != mpi.ErrComm {
		t.Errorf("nil communicator: %v", err)
	}

	v, _ := mpi.TypeVector(3, 1, 2, mpi.Float32)
	if err := v.SetName("column"); err != nil || v.Name() != "column" {
		t.Errorf("type SetName: %q %v", v.Name(), err)
	}
	if err := (*mpi.Datatype)(nil).SetName("x"); mpi.Class(err) != mpi.ErrType {
		t.Errorf("nil datatype: %v", err)
	}
}
