package main

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// These tests call the exported functions directly, in a world of one
// process (this test binary), with mpi.h's handle numbers.
const (
	hWorld = 1

	hChar, hByte, hInt, hLongDouble, hFloat, hDouble = 1, 4, 7, 15, 13, 14
	hDoubleInt, hTwoInt, hCBool, hFloatComplex       = 21, 24, 26, 35

	hMax, hSum, hLand, hBand, hBxor, hMaxloc, hReplace = 1, 3, 5, 6, 10, 11, 13

	errType, errOp = 3, 10
)

var errorsReturn sync.Once

// initWorld starts MPI once for the tests (initSingleton), with errors
// returned on MPI_COMM_WORLD.
func initWorld(t *testing.T) {
	t.Helper()
	initSingleton(t)
	errorsReturn.Do(func() {
		if err := mpi.World.SetErrhandler(mpi.ErrorsReturn); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReductionTypes checks which predefined op each type allows: MPI's
// table (MPI-3 §5.9.2), MPI_ERR_OP otherwise.
func TestReductionTypes(t *testing.T) {
	initWorld(t)
	tests := []struct {
		name     string
		op       int
		datatype int
		want     int
	}{
		{"SUM on MPI_INT", hSum, hInt, 0},
		{"SUM on MPI_BYTE", hSum, hByte, errOp},
		{"BXOR on MPI_BYTE", hBxor, hByte, 0},
		{"BAND on MPI_FLOAT", hBand, hFloat, errOp},
		{"MAX on MPI_DOUBLE", hMax, hDouble, 0},
		{"LAND on MPI_C_BOOL", hLand, hCBool, 0},
		{"SUM on MPI_C_BOOL", hSum, hCBool, errOp},
		{"SUM on MPI_LONG_DOUBLE", hSum, hLongDouble, errOp},
		{"SUM on MPI_CHAR", hSum, hChar, errOp},
		{"MAX on MPI_C_FLOAT_COMPLEX", hMax, hFloatComplex, errOp},
		{"SUM on MPI_C_FLOAT_COMPLEX", hSum, hFloatComplex, 0},
		{"MAXLOC on MPI_INT", hMaxloc, hInt, errOp},
		{"MAXLOC on MPI_DOUBLE_INT", hMaxloc, hDoubleInt, 0},
		{"SUM on MPI_2INT", hSum, hTwoInt, errOp},
		{"REPLACE on MPI_INT", hReplace, hInt, errOp},
		{"an invalid op", 999, hInt, errOp},
		{"an invalid datatype", hSum, 999, errType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, r [64]byte
			rc := capiGo_Allreduce(unsafe.Pointer(&s[0]), unsafe.Pointer(&r[0]), 2, _Ctype_int(tt.datatype), _Ctype_int(tt.op), hWorld)
			if int(rc) != tt.want {
				t.Errorf("MPI_Allreduce: %d, want %d", rc, tt.want)
			}
			rc = capi_Reduce_local(unsafe.Pointer(&s[0]), unsafe.Pointer(&r[0]), 2, _Ctype_int(tt.datatype), _Ctype_int(tt.op))
			if int(rc) != tt.want {
				t.Errorf("MPI_Reduce_local: %d, want %d", rc, tt.want)
			}
		})
	}
}

// TestCollAllocs checks that a blocking collective of a basic type
// allocates no more through the C interface than through the Go API, and
// nothing at all (zero) for the ones that must not: every one here but
// Alltoallv in place, which copies the blocks it sends. The world
// has one process; coll_allocs.c checks more processes (TestCCollAllocs).
func TestCollAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	initWorld(t)
	var d [4]float64
	var e [4]float64
	p, q := unsafe.Pointer(&d[0]), unsafe.Pointer(&e[0])
	counts, displs := []_Ctype_int{4}, []_Ctype_int{0}
	goCounts, goDispls := []int{4}, []int{0}
	inPlace := *(*unsafe.Pointer)(unsafe.Pointer(&[]uintptr{1}[0])) // MPI_IN_PLACE, (void *)1
	f := []float32{1, 2}
	g := []float32{0, 0}
	pf, qf := unsafe.Pointer(&f[0]), unsafe.Pointer(&g[0])
	tests := []struct {
		name string
		c    func()
		goF  func()
		some bool // the Go API allocates: C must allocate no more
	}{
		{"Barrier", func() { capiGo_Barrier(hWorld) }, func() { _ = mpi.Barrier(mpi.World) }, false},
		{"Bcast", func() { capiGo_Bcast(p, 4, hDouble, 0, hWorld) }, func() { _ = mpi.Bcast(mpi.World, d[:], 0) }, false},
		{"Allreduce", func() { capiGo_Allreduce(p, q, 4, hDouble, hSum, hWorld) },
			func() { _ = mpi.Allreduce(mpi.World, d[:], e[:], mpi.Sum) }, false},
		{"Allreduce MPI_FLOAT", func() { capiGo_Allreduce(pf, qf, 2, hFloat, hSum, hWorld) },
			func() { _ = mpi.Allreduce(mpi.World, f, g, mpi.Sum) }, false},
		{"Allreduce in place", func() { capiGo_Allreduce(inPlace, q, 4, hDouble, hSum, hWorld) },
			func() { _ = mpi.Allreduce(mpi.World, nil, e[:], mpi.Sum) }, false},
		{"Reduce", func() { capiGo_Reduce(p, q, 4, hDouble, hMax, 0, hWorld) },
			func() { _ = mpi.Reduce(mpi.World, d[:], e[:], mpi.Max, 0) }, false},
		{"Gather", func() { capiGo_Gather(p, 4, hDouble, q, 4, hDouble, 0, hWorld) },
			func() { _ = mpi.Gather(mpi.World, d[:], e[:], 0) }, false},
		{"Scatter", func() { capiGo_Scatter(p, 4, hDouble, q, 4, hDouble, 0, hWorld) },
			func() { _ = mpi.Scatter(mpi.World, d[:], e[:], 0) }, false},
		{"Allgather", func() { capiGo_Allgather(p, 4, hDouble, q, 4, hDouble, hWorld) },
			func() { _ = mpi.Allgather(mpi.World, d[:], e[:]) }, false},
		{"Alltoall", func() { capiGo_Alltoall(p, 4, hDouble, q, 4, hDouble, hWorld) },
			func() { _ = mpi.Alltoall(mpi.World, d[:], e[:]) }, false},
		{"Gatherv", func() { capi_Gatherv(p, 4, hDouble, q, &counts[0], &displs[0], hDouble, 0, hWorld) },
			func() { _ = mpi.Gatherv(mpi.World, d[:], e[:], goCounts, goDispls, 0) }, false},
		{"Scatterv", func() { capi_Scatterv(p, &counts[0], &displs[0], hDouble, q, 4, hDouble, 0, hWorld) },
			func() { _ = mpi.Scatterv(mpi.World, d[:], goCounts, goDispls, e[:], 0) }, false},
		{"Allgatherv", func() { capi_Allgatherv(p, 4, hDouble, q, &counts[0], &displs[0], hDouble, hWorld) },
			func() { _ = mpi.Allgatherv(mpi.World, d[:], e[:], goCounts, goDispls) }, false},
		{"Alltoallv", func() { capi_Alltoallv(p, &counts[0], &displs[0], hDouble, q, &counts[0], &displs[0], hDouble, hWorld) },
			func() { _ = mpi.Alltoallv(mpi.World, d[:], goCounts, goDispls, e[:], goCounts, goDispls) }, false},
		{"Alltoallv in place", func() { capi_Alltoallv(inPlace, nil, nil, hDouble, q, &counts[0], &displs[0], hDouble, hWorld) },
			func() { _ = mpi.Alltoallv(mpi.World, nil, nil, nil, e[:], goCounts, goDispls) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c() // the first call may make the communicator's coll module
			tt.goF()
			c, g := testing.AllocsPerRun(200, tt.c), testing.AllocsPerRun(200, tt.goF)
			if c > g || !tt.some && c > 0 {
				t.Errorf("%v allocations per call through C, %v through Go", c, g)
			}
			t.Logf("%v allocations per call through C, %v through Go", c, g)
		})
	}
}
