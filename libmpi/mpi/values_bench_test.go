package mpi_test

import (
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// BenchmarkValueStructs sends 1000 structs of 32 bytes to this process
// and receives them, four ways (the proof item of issue 15):
//
//	gob       SendValue/RecvValue of a type gob must encode (a struct
//	          holding the slice)
//	fast      SendValue/RecvValue of the []particle itself: its memory,
//	          no encoding, received straight into a new slice
//	bytes     Send/Recv of the slice's memory as []byte into a buffer
//	          allocated beforehand (the typed-slice form)
//	datatype  SendType/RecvType with a TypeStruct of particle
//
//	go test ./libmpi/mpi -run '^$' -bench ValueStructs -benchmem
//
// The world is this one process (the tests run without mpirun), so the
// numbers are the library's own cost (encoding, copying, allocating)
// without a network between.
func BenchmarkValueStructs(b *testing.B) {
	const n = 1000
	data := make([]particle, n)
	for i := range data {
		data[i] = particle{float64(i), float64(2 * i), float64(3 * i), int64(i)}
	}
	w := mpi.World
	size := n * int(unsafe.Sizeof(particle{}))
	check := func(b *testing.B, got []particle) {
		if len(got) != n || got[n-1] != data[n-1] {
			b.Fatalf("got %d particles", len(got))
		}
	}
	b.Run("gob", func(b *testing.B) {
		type wrapped struct{ P []particle }
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.SendValue(w, wrapped{data}, 0, 1); err != nil {
				b.Fatal(err)
			}
			got, _, err := mpi.RecvValue[wrapped](w, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			check(b, got.P)
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.SendValue(w, data, 0, 1); err != nil {
				b.Fatal(err)
			}
			got, _, err := mpi.RecvValue[[]particle](w, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			check(b, got)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		out := make([]particle, n)
		view := func(p []particle) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), size) }
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.Send(w, view(data), 0, 1); err != nil {
				b.Fatal(err)
			}
			if _, err := mpi.Recv(w, view(out), 0, 1); err != nil {
				b.Fatal(err)
			}
			check(b, out)
		}
	})
	b.Run("datatype", func(b *testing.B) {
		dt, err := mpi.TypeStruct([]int{3, 1}, []int{0, 24}, []*mpi.Datatype{mpi.Float64, mpi.Int64})
		if err != nil {
			b.Fatal(err)
		}
		if dt.Extent() != 32 {
			b.Skipf("the datatype's extent is %d, not 32", dt.Extent())
		}
		out := make([]particle, n)
		view := func(p []particle) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), size) }
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := mpi.SendType(w, view(data), n, dt, 0, 1); err != nil {
				b.Fatal(err)
			}
			if _, err := mpi.RecvType(w, view(out), n, dt, 0, 1); err != nil {
				b.Fatal(err)
			}
			check(b, out)
		}
	})
}
