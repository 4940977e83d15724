package wire

import (
	"bytes"
	"testing"
)

// AppendPost writes what AppendFrame writes for the same Post.
func TestAppendPost(t *testing.T) {
	for _, c := range []struct {
		node, event, typ int32
		head, data       []byte
	}{
		{1, -77, 16, []byte{0, 0, 0, 3}, []byte("payload")},
		{LocalNode, 0, 0, nil, nil},
		{MaxNodes - 1, -1 << 31, 1<<31 - 1, []byte{1}, nil},
		{0, 5, 1, nil, bytes.Repeat([]byte{9}, 70000)},
	} {
		joined := append(append([]byte{}, c.head...), c.data...)
		want := AppendFrame([]byte("x"), 42, 0, &Post{Node: c.node, Event: c.event, Type: c.typ, Data: joined})
		got := AppendPost([]byte("x"), 42, c.node, c.event, c.typ, c.head, c.data)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendPost(%d, %d, %d, %d+%d bytes):\n got %x\nwant %x", c.node, c.event, c.typ, len(c.head), len(c.data), got[:min(len(got), 64)], want[:min(len(want), 64)])
		}
	}
}

// AppendMsg writes what AppendFrame writes for the same Msg, without
// allocating.
func TestAppendMsg(t *testing.T) {
	for _, m := range []Msg{{1, -77, 16, []byte("payload")}, {0, 0, 0, nil}, {MaxNodes - 1, -1 << 31, 1<<31 - 1, bytes.Repeat([]byte{9}, 70000)}} {
		want := AppendFrame([]byte("x"), 0, 0, &m)
		if got := AppendMsg([]byte("x"), m.From, m.Event, m.Type, m.Data); !bytes.Equal(got, want) {
			t.Errorf("AppendMsg(%d, %d, %d, %d bytes):\n got %x\nwant %x", m.From, m.Event, m.Type, len(m.Data), got[:min(len(got), 64)], want[:min(len(want), 64)])
		}
	}
	buf := make([]byte, 0, 256)
	if allocs := testing.AllocsPerRun(100, func() { buf = AppendMsg(buf[:0], 1, 2, 3, []byte("abc")) }); allocs != 0 {
		t.Errorf("AppendMsg allocates %v times", allocs)
	}
}

// Msg.Unmarshal checks what Decode checks and reads without allocating.
func TestMsgUnmarshal(t *testing.T) {
	frame := AppendFrame(nil, 0, 0, &Msg{From: 2, Event: -9, Type: 16, Data: []byte("abc")})
	body := frame[HeaderSize:]
	var m Msg
	if err := m.Unmarshal(body); err != nil || m.From != 2 || m.Event != -9 || m.Type != 16 || string(m.Data) != "abc" {
		t.Fatalf("Unmarshal: %+v, %v", m, err)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = m.Unmarshal(body) }); allocs != 0 {
		t.Errorf("Unmarshal allocates %v times", allocs)
	}
	if err := m.Unmarshal(body[:len(body)-1]); err == nil {
		t.Error("a truncated Msg decoded")
	}
	bad := AppendFrame(nil, 0, 0, &Msg{From: 0, Data: []byte("abc")})[HeaderSize:]
	bad[0] = 0xff // From -1...: not a node
	if err := m.Unmarshal(bad); err == nil {
		t.Error("a Msg from node -16777216 decoded")
	}
}
