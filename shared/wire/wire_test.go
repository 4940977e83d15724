package wire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func samples() []Message {
	n := Node{ID: 3, Host: "alpha", Addr: "10.0.0.3", Link: "10.0.0.3:4000", CPUs: 2, Flags: NodeOrigin}
	return []Message{
		&Hello{Version: Version, Role: RoleTool, PID: 42, Name: "lamnodes"},
		&Welcome{Version: Version, Node: 0, LamdPID: 7, Universe: "u1"},
		&Error{Code: CodeBadNode, Msg: "no node n9"},
		&OK{},
		&NodesReq{},
		&Nodes{Self: 3, Nodes: []Node{n, {ID: 4, Host: "b", CPUs: 1}}},
		&Echo{Node: LocalNode, Data: []byte("x")},
		&EchoReply{Data: []byte{}},
		&Halt{TimeoutMS: 1500},
		&HaltNode{},
		&HaltProgress{Node: 1, Host: "b", Acked: true},
		&Spawn{Node: 2, Job: "0:77", Argv: []string{"hostname"}, Env: []string{"A=1"}, Dir: "/tmp", Flags: SpawnTryDir},
		&Started{Node: 2, PID: 1234},
		&Output{Stream: Stderr, Data: []byte("line\n")},
		&Exited{Status: 3},
		&Exited{Signal: 9},
		&Signal{Node: LocalNode, Job: "j", Signal: 15},
		&Clean{Node: 0, Phase: CleanKill},
		&Send{Node: 1, Event: -5, Type: 3, Data: bytes.Repeat([]byte{1}, 1000)},
		&Recv{Event: 9, Type: 0, Try: true},
		&Msg{From: 1, Event: 9, Type: 1, Data: []byte("hi")},
		&Cancel{},
		&AddNode{Node: n},
		&RemoveNode{ID: 5, WaitMS: 10},
		&Heartbeat{},
		&LinkHello{Version: Version, Universe: "u", Node: 9},
		&BootHello{Version: Version, Node: 1, Link: "h:1", CPUs: -1, PID: 9, Host: "h"},
		&Universe{ID: "u", Nodes: []Node{n}, HeartbeatMS: 1000},
		&Stdin{Data: []byte("in"), EOF: true},
		&SecretReq{},
		&Secret{Key: "00ff"},
		&FileGet{Node: 1, Path: "prog"},
		&FileChunk{Data: []byte{1, 2}},
		&FilePut{Node: 2, Name: "prog", Append: true, Data: []byte{3}},
		&FilePath{Path: "/tmp/x"},
		&Inspect{Node: 1, Msgs: true, MaxMsgs: 100},
		&Inspection{Node: 1, Procs: []InspectedProc{{PID: 77, Name: "ring", Rank: 0, Job: "0:5", State: ProcAnswered, Status: []byte{1}}},
			Queue: []QueuedMsg{{Seq: 1, From: 0, Event: -77, Type: 16, Len: 3, Head: []byte("abc")}}, More: true},
		&Attach{Event: -77, Type: 16},
		&Post{Node: 1, Event: -77, Type: 16, Data: []byte{0, 0, 0, 1, 9}},
		&Credit{Bytes: 1 << 20},
	}
}

func TestRoundTrip(t *testing.T) {
	seen := map[Kind]bool{}
	var stream []byte
	for i, m := range samples() {
		seen[m.Kind()] = true
		stream = AppendFrame(stream, uint64(i), FlagMore, m)
	}
	for k := Kind(1); k < kindEnd; k++ {
		if !seen[k] {
			t.Errorf("no sample of %v", k)
		}
		if kinds[k].new == nil || kinds[k].new().Kind() != k {
			t.Errorf("kind %v not decodable", k)
		}
	}
	r := bytes.NewReader(stream)
	for i, want := range samples() {
		f, err := ReadFrame(r)
		if err != nil {
			t.Fatalf("frame %d (%v): %v", i, want.Kind(), err)
		}
		if f.ID != uint64(i) || f.Flags != FlagMore || f.Kind != want.Kind() {
			t.Errorf("header %+v", f.Header)
		}
		if !reflect.DeepEqual(normalize(f.Msg), normalize(want)) {
			t.Errorf("%v: got %+v, want %+v", want.Kind(), f.Msg, want)
		}
	}
	if _, err := ReadFrame(r); err != io.EOF {
		t.Errorf("after the last frame: %v", err)
	}
}

// normalize maps nil and empty byte slices alike.
func normalize(m Message) Message {
	v := reflect.ValueOf(m).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Slice && f.Len() == 0 && f.CanSet() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return m
}

func TestMalformed(t *testing.T) {
	frame := func(m Message) []byte { return AppendFrame(nil, 1, 0, m) }
	patch := func(b []byte, off int, v ...byte) []byte { c := bytes.Clone(b); copy(c[off:], v); return c }
	hello := frame(&Hello{Version: 1, Role: RoleTool, Name: "x"})
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"short header", []byte{0, 0, 0, 4, 0, 1}, "EOF"},
		{"length below header", []byte{0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "shorter than its header"},
		{"too large", []byte{0x7f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "too large"},
		{"unknown kind", patch(hello, 4, 0xff, 0xff), "unknown message kind"},
		{"unknown flags", patch(hello, 6, 0x80, 0), "unknown flags"},
		{"truncated body", hello[:len(hello)-1], "unexpected EOF"},
		{"bad role", patch(hello, 18, 99), "unknown role"},
		{"left over", append(patch(hello, 3, hello[3]+1), 0), "left over"},
		{"string too long", patch(frame(&Hello{Version: 1, Role: 1}), 23, 0xff, 0xff, 0xff, 0xff), "exceeds"},
		{"bad node id", frame(&Echo{Node: -7}), "out of range"},
		{"no program", frame(&Spawn{Node: 1}), "no program"},
		{"bad stream", frame(&Output{Stream: 3}), "unknown stream"},
		{"bad bool", patch(frame(&Recv{}), HeaderSize+8, 2), "bad boolean"},
		{"duplicate node", frame(&Nodes{Nodes: []Node{{ID: 1, CPUs: 1}, {ID: 1, CPUs: 1}}}), "listed twice"},
		{"huge node count", patch(frame(&Nodes{}), HeaderSize+4, 0, 0x10, 0, 0), "exceed"},
		{"lying node count", patch(frame(&Nodes{}), HeaderSize+4, 0, 0, 0x10, 0), "do not fit"},
		{"zero cpus", frame(&Nodes{Nodes: []Node{{ID: 1}}}), "cpu count"},
		{"error code range", frame(&Error{Code: 0}), "out of range"},
		{"bad put name", frame(&FilePut{Node: 1, Name: "../x"}), "bad file name"},
		{"lying string count", patch(frame(&Spawn{Node: 1, Argv: []string{"a"}}), HeaderSize+8, 0, 0x10, 0, 0), "exceed"},
	}
	for _, tt := range tests {
		_, err := ReadFrame(bytes.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := ReadFrame(bytes.NewReader(patch(hello, 4, 0xff, 0xff))); !errors.Is(err, ErrMalformed) {
		t.Errorf("unknown kind error %v does not wrap ErrMalformed", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	for _, m := range samples() {
		f.Add(AppendFrame(nil, 9, 0, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ReadFrame(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Whatever decodes must encode back to the same bytes, and so to a
		// frame that decodes the same.
		enc := AppendFrame(nil, fr.ID, fr.Flags, fr.Msg)
		if !bytes.Equal(enc, b[:HeaderSize+fr.Len]) {
			t.Fatalf("%v re-encodes as %x, not %x", fr.Kind, enc, b[:HeaderSize+fr.Len])
		}
		again, err := ReadFrame(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-encoded %v does not decode: %v", fr.Kind, err)
		}
		if !reflect.DeepEqual(normalize(again.Msg), normalize(fr.Msg)) {
			t.Fatalf("%v does not round-trip", fr.Kind)
		}
	})
}

// Encoding only reads a message: one message may be sent on several
// connections at once (run with -race; the Codecs are made here, since
// the pool's own synchronisation would hide a race from the detector).
func TestConcurrentEncode(t *testing.T) {
	ms := goldenSamples()
	done := make(chan []byte)
	for range 2 {
		go func() {
			c := &Codec{}
			for _, m := range ms {
				m.fields(c)
			}
			done <- c.buf
		}()
	}
	if a, b := <-done, <-done; !bytes.Equal(a, b) {
		t.Error("two encodings of the same messages differ")
	}
}
