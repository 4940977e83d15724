package core

// NewGeneric returns an active request that no transfer completes: the
// caller completes it with Finish (generalized requests, and operations
// that are done at once but must hand back a request).
func (e *Engine) NewGeneric() *Request {
	r := new(Request)
	e.InitGeneric(r)
	return r
}

// InitGeneric makes r, a zero Request (new memory), what NewGeneric
// returns: for a caller that keeps the request inside an allocation of
// its own. It sets the fields that differ from zero only: writing the
// whole request again, as an assignment of a composite literal does,
// took an eighth of a small nonblocking collective's time.
func (e *Engine) InitGeneric(r *Request) {
	r.e, r.peer, r.rank, r.active = e, -1, ProcNull, true
}

// Finish completes a request of NewGeneric's with status s; a request
// completed already is left as it is.
//
// No link moves for it, so Finish wakes the process's sleeping waiters
// itself (the caller is usually another goroutine: the one that ran a
// nonblocking collective's last step).
func (e *Engine) Finish(r *Request, s Status) {
	e.mu.Lock()
	if r.Done() {
		e.mu.Unlock()
		return
	}
	r.status = s
	r.complete()
	e.ringLocked()
	e.mu.Unlock()
	if e.waiter != nil {
		e.waiter.Wake()
	}
}

// NewDone returns a complete request, of no engine, with status s: what
// a request the program was told of points at once the one it had went
// back to a pool (it is read only from then on).
func NewDone(s Status) *Request {
	r := &Request{peer: -1, rank: ProcNull, status: s}
	r.done = 1
	return r
}
