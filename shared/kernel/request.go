package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/lamgo/lam/shared/wire"
)

// A replier carries replies back to where a request came from: a local
// client's connection, or the link to the lamd that forwarded it.
type replier interface {
	reply(id uint64, flags uint16, m wire.Message) error
}

// request is one request being served.
type request struct {
	id  uint64
	msg wire.Message
	to  replier
	src *source
	ctx context.Context
}

// send sends one frame of a reply stream.
func (r *request) send(m wire.Message) error {
	return r.to.reply(r.id, wire.FlagReply|wire.FlagMore, m)
}

// finish sends the final reply and forgets the request.
func (r *request) finish(m wire.Message) error {
	r.src.forget(r.id)
	return r.to.reply(r.id, wire.FlagReply, m)
}

// fail sends an Error as the final reply.
func (r *request) fail(code int32, format string, args ...any) error {
	return r.finish(&wire.Error{Code: code, Msg: fmt.Sprintf(format, args...)})
}

// active is a request in progress, as its source knows it.
type active struct {
	cancel context.CancelFunc
	fwd    *call                   // set when it was forwarded to another node
	stdin  func(*wire.Stdin) error // set for a spawned process reading stdin
}

// source is where requests come from (a client or a link): it tracks the
// requests in progress so that Cancel and Stdin frames reach them, and so
// that they end when the source goes away.
type source struct {
	mu     sync.Mutex
	active map[uint64]*active
	closed bool
}

func (s *source) init() { s.active = map[uint64]*active{} }

// start registers request id and returns its context. It fails if the
// source is closed or the id is in use.
func (s *source) start(parent context.Context, id uint64) (context.Context, *active, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errHalting
	}
	if _, dup := s.active[id]; dup {
		return nil, nil, fmt.Errorf("request id %d is already in use", id)
	}
	ctx, cancel := context.WithCancel(parent)
	a := &active{cancel: cancel}
	s.active[id] = a
	return ctx, a, nil
}

func (s *source) lookup(id uint64) *active {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[id]
}

func (s *source) forget(id uint64) {
	s.mu.Lock()
	a := s.active[id]
	delete(s.active, id)
	s.mu.Unlock()
	if a != nil {
		a.cancel()
	}
}

// closeAll ends every request of the source and returns them.
func (s *source) closeAll() []*active {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	out := make([]*active, 0, len(s.active))
	for id, a := range s.active {
		a.cancel()
		out = append(out, a)
		delete(s.active, id)
	}
	return out
}

// call is a request this lamd forwarded to another node.
type call struct {
	id     uint64 // the id it travels under
	node   int32
	origin *request        // a request being relayed, or
	ch     chan wire.Frame // the lamd's own call (rpc)
}
