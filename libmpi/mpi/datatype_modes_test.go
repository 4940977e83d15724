package mpi_test

import (
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The persistent typed sends in every mode, to oneself: each Start sends
// what the buffer holds then, and the column lands where the receive's
// datatype puts it.
func TestTypedSendModesInit(t *testing.T) {
	col, err := mpi.TypeVector(3, 1, 3, mpi.Int32)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	if err := mpi.BufferAttach(buf); err != nil {
		t.Fatal(err)
	}
	defer mpi.BufferDetach()
	tests := []struct {
		name string
		init func(c *mpi.Comm, b []byte, n int, d *mpi.Datatype, dest, tag int) (*mpi.Request, error)
	}{
		{"standard", mpi.SendTypeInit},
		{"synchronous", mpi.SsendTypeInit},
		{"ready", mpi.RsendTypeInit},
		{"buffered", mpi.BsendTypeInit},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := make([]int32, 9)
			out, _ := mpi.AsBytes(m)
			s, err := tt.init(mpi.Self, out, 1, col, 0, k)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Free()
			for round := int32(1); round <= 3; round++ {
				for i := range m {
					m[i] = round*100 + int32(i)
				}
				in := make([]int32, 3)
				r, err := mpi.Irecv(mpi.Self, in, 0, k)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Start(); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Wait(); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Wait(); err != nil {
					t.Fatal(err)
				}
				if want := []int32{round * 100, round*100 + 3, round*100 + 6}; in[0] != want[0] || in[1] != want[1] || in[2] != want[2] {
					t.Errorf("round %d: got %v, want %v", round, in, want)
				}
			}
		})
	}
}

// A matched receive into a datatype: the column lands in place, and the
// message is gone once received.
func TestMrecvType(t *testing.T) {
	col, err := mpi.TypeVector(3, 1, 3, mpi.Int32)
	if err != nil {
		t.Fatal(err)
	}
	for _, nonblocking := range []bool{false, true} {
		if err := mpi.Send(mpi.Self, []int32{7, 8, 9}, 0, 40); err != nil {
			t.Fatal(err)
		}
		m, _, err := mpi.Mprobe(mpi.Self, 0, 40)
		if err != nil {
			t.Fatal(err)
		}
		in := make([]int32, 9)
		b, _ := mpi.AsBytes(in)
		var st mpi.Status
		if nonblocking {
			r, err := mpi.ImrecvType(b, 1, col, m)
			if err != nil {
				t.Fatal(err)
			}
			st, err = r.Wait()
		} else {
			st, err = mpi.MrecvType(b, 1, col, m)
		}
		if err != nil || st.Bytes != 12 || in[0] != 7 || in[3] != 8 || in[6] != 9 || in[1] != 0 {
			t.Errorf("nonblocking %v: %v %+v %v", nonblocking, err, st, in)
		}
		if _, err := mpi.MrecvType(b, 1, col, m); err == nil {
			t.Errorf("nonblocking %v: a message received twice", nonblocking)
		}
	}
}
