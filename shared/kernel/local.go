package kernel

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/wire"
)

const (
	helloTimeout       = 10 * time.Second
	clientWriteTimeout = 60 * time.Second
)

// client is a local tool or process connected to the session socket.
type client struct {
	k    *Kernel
	c    *wire.Conn
	cred localsock.Cred
	role uint8
	name string
	src  source
}

func (c *client) reply(id uint64, flags uint16, m wire.Message) error {
	err := c.c.Write(id, flags, m, clientWriteTimeout)
	if err != nil {
		c.c.Close() // the reader notices and cleans up
	}
	return err
}

// acceptLocal accepts local clients until the listener closes.
func (k *Kernel) acceptLocal() {
	for {
		uc, err := k.local.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				k.log.Warn("accept local", "err", err)
			}
			return
		}
		k.wg.Add(1)
		go func() { defer k.wg.Done(); k.serveClient(uc) }()
	}
}

func (k *Kernel) serveClient(uc *net.UnixConn) {
	c := &client{k: k, c: wire.NewConn(uc)}
	c.src.init()
	if !k.addClient(c) {
		uc.Close()
		return
	}
	defer k.dropClient(c)
	cred, err := localsock.PeerCred(uc)
	if err != nil {
		k.log.Warn("local peer credentials", "err", err)
		return
	}
	c.cred = cred
	if cred.UID != k.uid {
		// Only the universe's owner may talk to its daemons.
		k.log.Warn("refused a local connection from another user", "uid", cred.UID, "pid", cred.PID)
		c.c.Write(0, wire.FlagReply, &wire.Error{Code: wire.CodePerm,
			Msg: fmt.Sprintf("this lamd belongs to uid %d; uid %d may not use it", k.uid, cred.UID)}, time.Second)
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(helloTimeout))
	f, err := c.c.Read()
	if err != nil {
		k.log.Debug("local client gave no hello", "pid", cred.PID, "err", err)
		return
	}
	h, ok := f.Msg.(*wire.Hello)
	if !ok {
		c.c.Write(f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeFailed, Msg: "expected a hello"}, time.Second)
		return
	}
	if h.Version != wire.Version {
		c.c.Write(f.ID, wire.FlagReply, &wire.Error{Code: wire.CodeVersion,
			Msg: fmt.Sprintf("protocol version %d; this lamd speaks %d", h.Version, wire.Version)}, time.Second)
		return
	}
	c.role, c.name = h.Role, h.Name
	_ = uc.SetReadDeadline(time.Time{})
	if err := c.reply(f.ID, wire.FlagReply, &wire.Welcome{Version: wire.Version, Node: k.cfg.Self,
		LamdPID: int32(os.Getpid()), Universe: k.cfg.Universe.ID}); err != nil {
		return
	}
	k.log.Debug("client attached", "name", c.name, "pid", cred.PID)
	for {
		f, err := c.c.Read()
		if err != nil {
			if errors.Is(err, wire.ErrMalformed) || errors.Is(err, wire.ErrTooLarge) {
				k.log.Warn("closed a local client that sent a bad frame", "name", c.name, "pid", cred.PID, "err", err)
			}
			break
		}
		if f.Flags&wire.FlagReply != 0 {
			continue // clients do not answer
		}
		k.dispatch(&c.src, c, f, nil)
	}
	for _, a := range c.src.closeAll() {
		if a.fwd != nil {
			k.cancelCall(a.fwd)
		}
	}
	k.log.Debug("client detached", "name", c.name, "pid", cred.PID)
}

// addClient records a client so Stop can close it; false if halting.
func (k *Kernel) addClient(c *client) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.halting {
		return false
	}
	k.clients[c] = struct{}{}
	return true
}

func (k *Kernel) dropClient(c *client) {
	c.c.Close()
	k.mu.Lock()
	delete(k.clients, c)
	k.mu.Unlock()
}
