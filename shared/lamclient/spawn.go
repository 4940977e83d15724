package lamclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/lamgo/lam/shared/wire"
)

// Process is a process started through Spawn.
type Process struct {
	c    *Client
	id   uint64
	ch   chan wire.Frame
	Node int32
	PID  int32
}

// Spawn starts a process. It returns once the process runs (or failed to
// start). Unless m.Flags has SpawnNoWait, the caller must then call Wait,
// which delivers its output; the process is killed if this client goes
// away first.
func (c *Client) Spawn(ctx context.Context, m *wire.Spawn) (*Process, error) {
	id, ch, err := c.stream(m, 1024)
	if err != nil {
		return nil, err
	}
	f, err := c.next(ctx, id, ch)
	if err != nil {
		return nil, err
	}
	s, ok := f.Msg.(*wire.Started)
	if !ok {
		c.cancel(id)
		return nil, unexpected("a started process", f.Msg)
	}
	return &Process{c: c, id: id, ch: ch, Node: s.Node, PID: s.PID}, nil
}

// Stdin sends input to the process (started with SpawnStdin).
func (p *Process) Stdin(data []byte, eof bool) error {
	return p.c.conn.Write(p.id, 0, &wire.Stdin{Data: data, EOF: eof}, 0)
}

// Wait delivers the process's output to out (stream is wire.Stdout or
// wire.Stderr, data a line) until it exits, and returns how it ended.
// Cancelling ctx kills the process.
func (p *Process) Wait(ctx context.Context, out func(stream uint8, data []byte)) (*wire.Exited, error) {
	for {
		f, err := p.c.next(ctx, p.id, p.ch)
		if err != nil {
			return nil, err
		}
		switch m := f.Msg.(type) {
		case *wire.Output:
			if out != nil {
				out(m.Stream, m.Data)
			}
		case *wire.Exited:
			return m, nil
		default:
			return nil, unexpected("process output", f.Msg)
		}
		if f.Flags&wire.FlagMore == 0 {
			return nil, errors.New("the process stream ended without an exit report")
		}
	}
}

// String names the process as LAM does: pid on node.
func (p *Process) String() string { return fmt.Sprintf("%d on n%d", p.PID, p.Node) }
