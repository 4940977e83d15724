package core

// NewGeneric returns an active request that no transfer completes: the
// caller completes it with Finish (generalized requests, and operations
// that are done at once but must hand back a request).
func (e *Engine) NewGeneric() *Request {
	r := &Request{e: e, peer: -1, rank: ProcNull}
	r.active = true
	return r
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
