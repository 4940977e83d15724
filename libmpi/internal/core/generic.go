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
func (e *Engine) Finish(r *Request, s Status) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.Done() {
		return
	}
	r.status = s
	r.complete()
}
