package kernel

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/wire"
)

const clientWriteTimeout = 60 * time.Second

// client is a local tool or process connected to the session socket.
type client struct {
	k    *Kernel
	uc   *net.UnixConn
	c    *wire.Conn // once the client has said hello
	cred localsock.Cred
	role uint8
	name string
	src  source
	// placed: the client holds one of the Config.MaxClients+toolReserve
	// places (addClient); counted: also one of the Config.MaxClients
	// places of clients other than tools (admit). release gives both back.
	placed, counted bool
	// stream is set once the client attached (a RoleStream client): then
	// every frame to it goes through the stream, in order.
	stream atomic.Pointer[stream]
}

func (c *client) reply(id uint64, flags uint16, m wire.Message) error {
	if s := c.stream.Load(); s != nil {
		s.push(wire.AppendFrame(nil, id, flags, m), nil, 0)
		return nil
	}
	err := c.c.Write(id, flags, m, clientWriteTimeout)
	if err != nil {
		c.c.Close() // the reader notices and cleans up
	}
	return err
}

// acceptLocal accepts local clients until the listener closes. Beyond
// Config.MaxClients connections (and toolReserve more kept for tools) a
// client is refused at once.
func (k *Kernel) acceptLocal() {
	refusal := wire.AppendFrame(nil, 0, wire.FlagReply, &wire.Error{Code: wire.CodeFull, Msg: k.fullMsg()})
	k.acceptLoop("local", func() error {
		uc, err := k.local.AcceptUnix()
		if err != nil {
			return err
		}
		c, err := k.addClient(uc)
		switch {
		case errors.Is(err, errFull):
			k.full.fail("refusing local clients (logged once per burst)", "max", k.cfg.MaxClients, "kept for tools", toolReserve)
			_ = uc.SetWriteDeadline(time.Now().Add(refuseTimeout))
			_, _ = uc.Write(refusal)
			uc.Close()
			return nil
		case err != nil:
			uc.Close()
			return nil
		}
		k.wg.Add(1)
		go func() { defer k.wg.Done(); k.serveClient(c) }()
		return nil
	})
}

// fullMsg is what a client refused for lack of room is told.
func (k *Kernel) fullMsg() string {
	return fmt.Sprintf("this lamd serves at most %d local clients at once (%s; %d more are kept for tools)", k.cfg.MaxClients, boot.ParamMaxClients, toolReserve)
}

// serveClient checks who the client is, then reads its hello, and only
// then gives it a buffered connection and serves its requests. Every
// stage before the hello is bounded by Config.HelloTimeout, and every
// frame after it by Config.FrameTimeout once it has begun.
func (k *Kernel) serveClient(c *client) {
	defer k.dropClient(c)
	uc := c.uc
	cred, err := localsock.PeerCred(uc)
	if err != nil {
		k.log.Warn("local peer credentials", "err", err)
		return
	}
	// A client refused below learns it from the frame written to it, and
	// may dial again at once: its place is given back before (release).
	c.cred = cred
	if cred.UID != k.uid {
		// Only the universe's owner may talk to its daemons.
		k.log.Warn("refused a local connection from another user", "uid", cred.UID, "pid", cred.PID)
		k.release(c)
		writeFrame(uc, 0, wire.FlagReply, &wire.Error{Code: wire.CodePerm,
			Msg: fmt.Sprintf("this lamd belongs to uid %d; uid %d may not use it", k.uid, cred.UID)}, time.Second)
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(k.cfg.HelloTimeout))
	f, err := readFirst(uc, wire.KindHello)
	if err != nil {
		k.log.Debug("local client gave no hello", "pid", cred.PID, "err", err)
		k.release(c)
		if f.Kind != 0 { // a frame, but not a hello
			writeFrame(uc, f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeFailed, Msg: err.Error()}, time.Second)
		}
		return
	}
	h := f.Msg.(*wire.Hello)
	if h.Version != wire.Version {
		k.release(c)
		writeFrame(uc, f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeVersion,
			Msg: fmt.Sprintf("protocol version %d; this lamd speaks %d", h.Version, wire.Version)}, time.Second)
		return
	}
	c.role, c.name = h.Role, h.Name
	if err := k.admit(c); err != nil {
		k.full.fail("refusing local clients (logged once per burst)", "max", k.cfg.MaxClients, "kept for tools", toolReserve)
		k.release(c)
		writeFrame(uc, f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeFull, Msg: k.fullMsg()}, time.Second)
		return
	}
	_ = uc.SetReadDeadline(time.Time{})
	c.c = wire.NewConn(uc)
	c.src.init()
	if err := c.reply(f.ID, wire.FlagReply, &wire.Welcome{Version: wire.Version, Node: k.cfg.Self,
		LamdPID: int32(os.Getpid()), Universe: k.cfg.Universe.ID}); err != nil {
		return
	}
	k.log.Debug("client attached", "name", c.name, "pid", cred.PID)
	for {
		f, err := c.c.ReadWithin(k.cfg.FrameTimeout)
		if err != nil {
			switch {
			case errors.Is(err, wire.ErrMalformed) || errors.Is(err, wire.ErrTooLarge):
				k.log.Warn("closed a local client that sent a bad frame", "name", c.name, "pid", cred.PID, "err", err)
			case errors.Is(err, os.ErrDeadlineExceeded):
				k.log.Warn("closed a local client that left a frame unfinished", "name", c.name, "pid", cred.PID, "limit", k.cfg.FrameTimeout)
			}
			break
		}
		if f.Flags&wire.FlagReply != 0 {
			continue // clients do not answer
		}
		k.dispatch(&c.src, c, f, nil)
		if s := c.stream.Load(); s != nil {
			<-s.ended // the relay serves the connection now
			break
		}
	}
	// The client is gone (or closed): its place is free now, not once its
	// requests are cleaned up.
	k.release(c)
	if s := c.stream.Load(); s != nil {
		k.detach(s)
	}
	for _, a := range c.src.closeAll() {
		if a.fwd != nil {
			k.cancelCall(a.fwd)
		}
	}
	k.leftMPI(c)
	k.log.Debug("client detached", "name", c.name, "pid", cred.PID)
}

// errFull refuses a connection beyond a cap.
var errFull = errors.New("too many connections")

// toolReserve is how many local connections beyond Config.MaxClients are
// kept for tools (lamnodes, lamhalt, mpirun), so that a lamd full of MPI
// processes can still be inspected and halted.
const toolReserve = 16

// addClient records a new connection so that Stop can close it. It fails
// when the lamd is halting or already has Config.MaxClients+toolReserve
// connections.
func (k *Kernel) addClient(uc *net.UnixConn) (*client, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.halting {
		return nil, errHalting
	}
	if k.places >= k.cfg.MaxClients+toolReserve {
		return nil, errFull
	}
	c := &client{k: k, uc: uc, placed: true}
	k.clients[c] = struct{}{}
	k.places++
	return c, nil
}

// admit counts a client that said hello: a tool or a stream is always
// admitted (it got a connection; a stream is an MPI process's second
// one), any other only while fewer than Config.MaxClients others are
// attached.
func (k *Kernel) admit(c *client) error {
	if c.role == wire.RoleTool || c.role == wire.RoleStream {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.nonTools >= k.cfg.MaxClients {
		return errFull
	}
	k.nonTools++
	c.counted = true
	return nil
}

// release gives back the client's places, once: a client that is refused
// or gone no longer counts against the caps, though its connection stays
// in k.clients (for Stop to close) until dropClient.
func (k *Kernel) release(c *client) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if c.placed {
		k.places--
	}
	if c.counted {
		k.nonTools--
	}
	c.placed, c.counted = false, false
}

// dropClient frees the client's places, then closes its connection (so
// that the places are free once the peer sees the close).
func (k *Kernel) dropClient(c *client) {
	k.release(c)
	k.mu.Lock()
	delete(k.clients, c)
	k.mu.Unlock()
	c.uc.Close()
}
