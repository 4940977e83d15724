package kernel

import (
	"github.com/lamgo/lam/shared/wire"
)

// dispatch serves one request frame from a client or a link. It runs on the
// source's reader goroutine: quick work is done here, in order, and work
// that waits runs in its own goroutine.
func (k *Kernel) dispatch(src *source, to replier, f wire.Frame, fromLink *link) {
	switch m := f.Msg.(type) {
	case *wire.Cancel:
		if a := src.lookup(f.ID); a != nil {
			if a.fwd != nil {
				k.cancelCall(a.fwd)
			}
			src.forget(f.ID)
		}
		return
	case *wire.Stdin:
		a := src.lookup(f.ID)
		switch {
		case a == nil:
		case a.fwd != nil:
			k.forwardFrame(a.fwd, f.ID, m)
		case a.stdin != nil:
			_ = a.stdin(m)
		}
		return
	case *wire.Heartbeat:
		return // a link's reader already noted that the peer is alive
	case *wire.Post:
		if full := k.post(to, fromLink, f.ID, m); full != nil {
			full.waitRoom()
		}
		return
	case *wire.Credit:
		if fromLink != nil {
			fromLink.credited(m.Bytes)
		}
		return
	case *wire.Attach:
		if c, ok := to.(*client); ok {
			k.attach(c, f.ID, m)
			return
		}
	}

	ctx, a, err := src.start(k.ctx, f.ID)
	if err != nil {
		_ = to.reply(f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeHalting, Msg: err.Error()})
		return
	}
	r := &request{id: f.ID, msg: f.Msg, to: to, src: src, ctx: ctx}

	// Requests addressed to a node are forwarded unless the node is us.
	if node, ok := targetOf(f.Msg); ok {
		if t := k.target(node); t != k.cfg.Self {
			k.forward(r, a, t)
			return
		}
	}
	switch m := f.Msg.(type) {
	case *wire.NodesReq:
		r.finish(&wire.Nodes{Self: k.cfg.Self, Nodes: k.nodeTable(), HeartbeatMS: k.cfg.Universe.HeartbeatMS})
	case *wire.SecretReq:
		if fromLink != nil {
			r.fail(wire.CodePerm, "the secret is only for local clients")
			return
		}
		r.finish(&wire.Secret{Key: k.cfg.Secret.String()})
	case *wire.Echo:
		r.finish(&wire.EchoReply{Data: m.Data})
	case *wire.Send:
		k.deliver(r, fromLink, m)
	case *wire.Recv:
		go k.receive(r, m)
	case *wire.Spawn:
		k.spawn(r, a, m)
	case *wire.Signal:
		k.signal(r, m)
	case *wire.Clean:
		go k.clean(r, m)
	case *wire.FileGet:
		go k.fileGet(r, m)
	case *wire.FilePut:
		k.filePut(r, m)
	case *wire.Halt:
		if fromLink != nil {
			r.fail(wire.CodeFailed, "halt must come from a local client")
			return
		}
		go k.haltUniverse(r, m)
	case *wire.HaltNode:
		k.haltNode(r)
	case *wire.AddNode:
		k.addNode(r, m, fromLink == nil)
	case *wire.RemoveNode:
		k.removeNode(r, m, fromLink == nil)
	case *wire.Inspect:
		go k.inspect(r, m)
	default:
		r.fail(wire.CodeFailed, "a lamd does not serve %v requests", f.Kind)
	}
}

// targetOf returns the node a request is addressed to, for the kinds that
// name one.
func targetOf(m wire.Message) (int32, bool) {
	switch m := m.(type) {
	case *wire.Echo:
		return m.Node, true
	case *wire.Spawn:
		return m.Node, true
	case *wire.Signal:
		return m.Node, true
	case *wire.Clean:
		return m.Node, true
	case *wire.Send:
		return m.Node, true
	case *wire.FileGet:
		return m.Node, true
	case *wire.FilePut:
		return m.Node, true
	case *wire.Inspect:
		return m.Node, true
	}
	return 0, false
}
