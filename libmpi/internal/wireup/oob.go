package wireup

import (
	"context"
	"fmt"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

// oob is the lamds' out-of-band channel as the rpi framework sees it:
// processes are addressed by node and pid (their event in the lamds is
// jobwire.RankEvent(pid)), and a full lamd is rpi.ErrOOBFull.
type oob struct {
	cl  *lamclient.Client
	pid int // this process
}

// NewOOB adapts a connection to the local lamd, of the process pid, to
// rpi.OOB (and rpi.OOBStreamer).
func NewOOB(cl *lamclient.Client, pid int) rpi.OOB { return oob{cl: cl, pid: pid} }

func (o oob) Send(ctx context.Context, node int32, pid int, typ int32, msg []byte) error {
	err := o.cl.Send(ctx, node, jobwire.RankEvent(pid), typ, msg)
	if err != nil && lamclient.Code(err) == wire.CodeFull {
		return fmt.Errorf("%w: %w", rpi.ErrOOBFull, err)
	}
	return err
}

func (o oob) Recv(ctx context.Context, typ int32) ([]byte, error) {
	m, err := o.cl.Recv(ctx, jobwire.RankEvent(o.pid), typ)
	if err != nil {
		return nil, err
	}
	return m.Data, nil
}

// OOBStream attaches a stream of this process's messages of type typ.
func (o oob) OOBStream(ctx context.Context, typ int32) (rpi.OOBStream, error) {
	s, err := o.cl.DialStream(ctx, jobwire.RankEvent(o.pid), typ)
	if err != nil {
		return nil, err
	}
	return oobStream{Stream: s, typ: typ}, nil
}

// oobStream addresses a lamclient.Stream's posts by pid.
type oobStream struct {
	*lamclient.Stream
	typ int32
}

func (s oobStream) Post(node int32, pid int, head, data []byte) (bool, error) {
	return s.Stream.Post(node, jobwire.RankEvent(pid), s.typ, head, data)
}
