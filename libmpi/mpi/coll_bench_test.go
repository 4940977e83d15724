package mpi_test

import (
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// BenchmarkCollCall is the Go path's own cost of a blocking collective
// (mpi's call, the coll framework's Run with its argument check, the
// record for mpitask), on World of one process (lam_basic, which has
// nobody to wait for and is watched from start to end): what a
// collective from Go costs above the module's rounds. It must not
// allocate.
func BenchmarkCollCall(b *testing.B) {
	buf, out := make([]byte, 8), make([]byte, 8)
	for _, bench := range []struct {
		name string
		f    func() error
	}{
		{"Bcast/8", func() error { return mpi.Bcast(mpi.World, buf, 0) }},
		{"Bcast/0", func() error { return mpi.Bcast(mpi.World, buf[:0], 0) }},
		{"Gather/8", func() error { return mpi.Gather(mpi.World, buf, out, 0) }},
		{"Allreduce/8", func() error { return mpi.Allreduce(mpi.World, buf, out, mpi.Bor) }},
		{"Allreduce/0", func() error { return mpi.Allreduce(mpi.World, buf[:0], out[:0], mpi.Bor) }},
		{"Barrier", func() error { return mpi.Barrier(mpi.World) }},
		{"Ibarrier", func() error { return wait(mpi.Ibarrier(mpi.World)) }},
		{"Iallreduce/8", func() error { return wait(mpi.Iallreduce(mpi.World, buf, out, mpi.Bor)) }},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bench.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// wait waits for the request of a nonblocking call that started.
func wait(r *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}
