package mpi

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"strings"
	"testing"
)

// checkpointBytes saves this process's state with f as the checkpoint
// callback.
func checkpointBytes(t testing.TB, f func(*CheckpointWriter) error) []byte {
	t.Helper()
	OnCheckpoint(f)
	defer OnCheckpoint(nil)
	var b bytes.Buffer
	if err := saveState(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckpointRoundTrip: communicators, values, raw bytes and an
// unmatched message come back as they were written.
func TestCheckpointRoundTrip(t *testing.T) {
	d, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	d.SetErrhandler(ErrorsReturn)
	if err := Send(d, []int32{42, 43}, 0, 5); err != nil {
		t.Fatal(err)
	}
	type state struct {
		Iter int
		X    []float64
	}
	b := checkpointBytes(t, func(w *CheckpointWriter) error {
		for _, c := range []*Comm{World, d, nil, Self, d} {
			if err := w.Comm(c); err != nil {
				return err
			}
		}
		if err := w.Encode(state{7, []float64{1.5}}); err != nil {
			return err
		}
		_, err := w.Write([]byte("raw"))
		return err
	})
	// The message is still queued here: take it, as the job would have.
	got := make([]int32, 2)
	if _, err := Recv(d, got, 0, 5); err != nil {
		t.Fatal(err)
	}
	r, err := readState(bytes.NewReader(b), "test")
	if err != nil {
		t.Fatal(err)
	}
	var comms []*Comm
	for range 5 {
		c, err := r.Comm()
		if err != nil {
			t.Fatal(err)
		}
		comms = append(comms, c)
	}
	if comms[0] != World || comms[2] != nil || comms[3] != Self || comms[1] != comms[4] {
		t.Errorf("communicators: %v", comms)
	}
	rd := comms[1]
	if rd.context != d.context || rd.Size() != 1 || rd.Rank() != 0 || rd.Name() != d.Name() || rd.Errhandler() != ErrorsReturn {
		t.Errorf("restored %+v, saved %+v", rd, d)
	}
	var s state
	if err := r.Decode(&s); err != nil || s.Iter != 7 || len(s.X) != 1 || s.X[0] != 1.5 {
		t.Errorf("value: %+v %v", s, err)
	}
	raw := make([]byte, 4)
	if n, _ := r.Read(raw); string(raw[:n]) != "raw" {
		t.Errorf("raw bytes: %q", raw[:n])
	}
	if r.Messages() != 1 {
		t.Fatalf("%d saved messages, want 1", r.Messages())
	}
	st.engine.Restore(r.msgs)
	got = make([]int32, 2)
	if _, err := Recv(rd, got, 0, 5); err != nil || got[0] != 42 || got[1] != 43 {
		t.Errorf("restored message: %v %v", got, err)
	}
	// A new communicator does not take a restored one's context.
	n, err := World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Free()
	if n.context <= rd.context {
		t.Errorf("new context %d, restored %d", n.context, rd.context)
	}
}

// TestCheckpointBadFiles: what is not a rank's checkpoint is refused with
// a reason.
func TestCheckpointBadFiles(t *testing.T) {
	good := checkpointBytes(t, nil)
	lib := func(l crLibrary) []byte {
		var body bytes.Buffer
		gob.NewEncoder(&body).Encode(&l)
		var h [len(crMagic) + 8]byte
		copy(h[:], crMagic)
		binary.LittleEndian.PutUint64(h[len(crMagic):], uint64(body.Len()))
		return append(h[:], body.Bytes()...)
	}
	inter, _ := World.Dup()
	defer inter.Free()
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a LAM/Go checkpoint"},
		{"magic", append([]byte("LAMGOCR\x02"), good[8:]...), "not a LAM/Go checkpoint"},
		{"truncated", good[:len(good)-3], "the library's state"},
		{"huge", append([]byte(crMagic), 0, 0, 0, 0, 0, 0, 0, 0x7f), "library state of"},
		{"rank", lib(crLibrary{Rank: 3, Size: 4}), "holds rank 3 of 4"},
		{"group", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{5}}}}), "world rank 5"},
		{"notmine", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 8, Group: []int{}}}}), "not one of this process's"},
		{"context", lib(crLibrary{Size: 1, Comms: []crComm{{Name: "c", Context: 0, Group: []int{0}}}}), "not one of this process's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readState(bytes.NewReader(c.b), "f")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	// An intercommunicator cannot be saved.
	w := &CheckpointWriter{}
	inter.inter = &interInfo{}
	defer func() { inter.inter = nil }()
	if err := w.Comm(inter); Class(err) != ErrComm {
		t.Errorf("saving an intercommunicator: %v", err)
	}
}

// FuzzReadState: no rank file, however damaged, panics the reader.
func FuzzReadState(f *testing.F) {
	f.Add(checkpointBytes(f, func(w *CheckpointWriter) error {
		w.Comm(World)
		return w.Encode([]int{1, 2, 3})
	}))
	f.Add([]byte(crMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := readState(bytes.NewReader(b), "f")
		if err != nil {
			return
		}
		for {
			if _, err := r.Comm(); err != nil {
				break
			}
		}
	})
}
