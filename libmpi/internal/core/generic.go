package core

// NewGeneric returns an active request that no transfer completes: the
// caller completes it with Finish (generalized requests, and operations
// that are done at once but must hand back a request).
func (e *Engine) NewGeneric() *Request {
	r := new(Request)
	e.InitGeneric(r)
	return r
}

// InitGeneric makes r, a request not in use, what NewGeneric returns: for
// a caller that keeps the request inside an allocation of its own.
func (e *Engine) InitGeneric(r *Request) {
	*r = Request{e: e, peer: -1, rank: ProcNull}
	r.active = true
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
