package mpi

import (
	"context"
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/task"
)

// Elem is the element types a buffer may hold.
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~int | ~uint |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// bytesOf views a buffer as bytes without copying.
func bytesOf[T Elem](b []T) []byte {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*int(unsafe.Sizeof(zero)))
}

// Status describes a received message.
type Status struct {
	Source    int
	Tag       int
	Bytes     int // size of the message received
	Cancelled bool
	Err       error
}

// GetCount returns the number of elements of type T a status describes,
// or Undefined if the size is not a whole number of them.
func GetCount[T Elem](s Status) int {
	var zero T
	n := int(unsafe.Sizeof(zero))
	if s.Bytes%n != 0 {
		return Undefined
	}
	return s.Bytes / n
}

func statusOf(s core.Status) Status {
	return Status{Source: s.Source, Tag: s.Tag, Bytes: s.Count, Cancelled: s.Cancelled, Err: fromCore(s.Err)}
}

// Request is a non-blocking or persistent operation.
//
// A request that has been waited for (or tested complete) is inactive, as
// is a persistent one not started since: Wait and Test return an empty
// status for it at once, and the Wait/Test any/some functions skip it as
// they skip nil requests (MPI_REQUEST_NULL).
type Request struct {
	r    *core.Request
	comm *Comm
	// sched is a nonblocking collective's schedule, which Wait and Test
	// advance themselves (icoll.go).
	sched *coll.Schedule
	// parts are a nonblocking collective's pooled parts, and pooled
	// says r is a pooled send's or receive's (pooledSend), until the
	// request is reported (retire).
	parts *nbParts
	x     *reqExtra // what a few requests have besides (nil for the rest)
	// The flags come last, together, and the rarer fields are in x: 48
	// bytes a request (every nonblocking call allocates its Request: the
	// program keeps it; and while the heap grows to its first goal each
	// new page costs a fault).
	pooled   bool
	buffered bool // a persistent buffered send: each Start copies
	waited   bool // completed and reported: inactive until started again
	landed   bool // land ran since the request was started
}

// reqExtra is what a generalized request, a request over a derived
// datatype and a value receive have besides a Request's fields.
type reqExtra struct {
	gen   *grequest // a generalized request's callbacks (grequest.go)
	typed *typedIO  // a send or receive over a derived datatype (datatype_p2p.go)
	// decode turns a value receive's message into its value (IrecvValue).
	decode  func(s core.Status) error
	landErr error // what land said
}

// more is r's extra fields, made when first needed.
func (r *Request) more() *reqExtra {
	if r.x == nil {
		r.x = new(reqExtra)
	}
	return r.x
}

// land runs what a completed request does before it is reported, once
// per start: a receive over a datatype unpacks, a value receive decodes
// (its error, a message that is not a value of the type, goes into the
// status).
func (r *Request) land() error {
	x := r.x
	if x == nil {
		return nil // nothing to do
	}
	if r.landed {
		return x.landErr
	}
	r.landed = true
	switch {
	case x.typed != nil:
		x.typed.land(r.r.Status().Count)
	case x.decode != nil:
		x.landErr = x.decode(r.r.Status())
	}
	return x.landErr
}

// status is a completed request's status, once it has landed.
func (r *Request) status() Status {
	err := r.land()
	s := statusOf(r.r.Status())
	if s.Err == nil {
		s.Err = err
	}
	if r.waited && (r.parts != nil || r.pooled) {
		r.retire() // reported: inactive from now on
	}
	return s
}

// done reports a completed request: its status, and its error handed to
// the communicator's error handler.
func (r *Request) done() (Status, error) {
	s := r.status()
	if s.Err != nil {
		return s, r.comm.fail(s.Err)
	}
	return s, nil
}

// inactive reports whether r is nil, finished and reported, or a
// persistent request not started since.
func (r *Request) inactive() bool {
	return r == nil || r.waited || (r.r.Persistent && !r.r.Active())
}

// bornDone reports whether r completed as it was made, without the
// engine, with nothing to land (a nonblocking collective that moved
// nothing, doneNow): its status is emptyStatus.
func (r *Request) bornDone() bool { return r.r == retired && r.x == nil }

// emptyStatus is the status of a null or inactive request.
var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

// sendArgs checks a send's arguments and returns the destination's world
// rank.
func sendArgs(c *Comm, dest, tag int) (*core.Engine, int, error) {
	e, err := engine()
	if err != nil {
		return nil, 0, err
	}
	if err := c.check(); err != nil {
		return nil, 0, World.fail(err)
	}
	world, err := c.peer(dest, false)
	if err != nil {
		return nil, 0, c.fail(err)
	}
	if err := checkTag(tag, false); err != nil {
		return nil, 0, c.fail(err)
	}
	return e, world, nil
}

// recvArgs checks a receive's arguments.
func recvArgs(c *Comm, source, tag int) (*core.Engine, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	if _, err := c.peer(source, true); err != nil {
		return nil, c.fail(err)
	}
	if err := checkTag(tag, true); err != nil {
		return nil, c.fail(err)
	}
	return e, nil
}

func newSend[T Elem](c *Comm, buf []T, dest, tag int, mode core.SendMode) (*Request, error) {
	return sendOn(new(core.Request), c, buf, dest, tag, mode)
}

func newRecv[T Elem](c *Comm, buf []T, source, tag int) (*Request, error) {
	return recvOn(new(core.Request), c, buf, source, tag)
}

// sendOn is newSend on the core request q.
func sendOn[T Elem](q *core.Request, c *Comm, buf []T, dest, tag int, mode core.SendMode) (*Request, error) {
	e, world, err := sendArgs(c, dest, tag)
	if err != nil {
		return nil, err
	}
	e.InitSend(q, bytesOf(buf), world, dest, c.rank, tag, c.context, mode)
	return &Request{r: q, comm: c}, nil
}

// recvOn is newRecv on the core request q.
func recvOn[T Elem](q *core.Request, c *Comm, buf []T, source, tag int) (*Request, error) {
	e, err := recvArgs(c, source, tag)
	if err != nil {
		return nil, err
	}
	e.InitRecv(q, bytesOf(buf), source, tag, c.context)
	return &Request{r: q, comm: c}, nil
}

// pooledSend and pooledRecv are newSend and newRecv for Isend, Issend,
// Irsend and Irecv: the core request (264 bytes) is one of the blocking
// calls' (requests), and goes back once the request is reported
// (retire), so that a start allocates its Request alone.
func pooledSend[T Elem](c *Comm, buf []T, dest, tag int, mode core.SendMode) (*Request, error) {
	return pooled(sendOn(requests.Get().(*core.Request), c, buf, dest, tag, mode))
}

func pooledRecv[T Elem](c *Comm, buf []T, source, tag int) (*Request, error) {
	return pooled(recvOn(requests.Get().(*core.Request), c, buf, source, tag))
}

func pooled(r *Request, err error) (*Request, error) {
	if r != nil {
		r.pooled = true
	}
	return r, err
}

// Blocking calls borrow their requests from a pool, so that a send or
// receive allocates nothing.
var requests = sync.Pool{New: func() any { return new(core.Request) }}

func sendNow[T Elem](c *Comm, buf []T, dest, tag int, mode core.SendMode) error {
	e, world, err := sendArgs(c, dest, tag)
	if err != nil {
		return err
	}
	defer task.TraceSend(sendFn(mode), c.context, int32(world), int32(tag), len(buf)).End()
	if mode == core.Standard && e.SendNow(bytesOf(buf), world, c.rank, tag, c.context) {
		return nil
	}
	defer enterP2P[T](sendFn(mode), c, dest, tag, len(buf)).Leave()
	r := requests.Get().(*core.Request)
	defer requests.Put(r)
	e.InitSend(r, bytesOf(buf), world, dest, c.rank, tag, c.context, mode)
	e.Start(r)
	_, err = report(c, r, e.Wait(context.Background(), r))
	return err
}

func recvNow[T Elem](c *Comm, buf []T, source, tag int) (Status, error) {
	e, err := recvArgs(c, source, tag)
	if err != nil {
		return Status{}, err
	}
	if task.Tracing() { // a trace has every receive, waiting or not
		defer enterP2P[T](task.Recv, c, source, tag, len(buf)).Leave()
		src, rtag, n, err := e.RecvNow(context.Background(), bytesOf(buf), source, tag, c.context, nil)
		return result(c, src, rtag, n, false, err)
	}
	var m task.Mark // mpitask's record, only while the receive waits
	src, rtag, n, err := e.RecvNow(context.Background(), bytesOf(buf), source, tag, c.context, func(begin bool) {
		if begin {
			m = enterP2P[T](task.Recv, c, source, tag, len(buf))
		} else {
			m.Leave()
		}
	})
	return result(c, src, rtag, n, false, err)
}

// report returns the status of a request waited for (with the wait's
// error, if it failed).
func report(c *Comm, r *core.Request, waitErr error) (Status, error) {
	if waitErr != nil {
		return Status{}, c.fail(fromCore(waitErr))
	}
	src, tag, n, cancelled, err := r.Result()
	return result(c, src, tag, n, cancelled, err)
}

// result is a finished request's status, and its error handed to c's
// error handler. The status comes field by field (see core.RecvNow).
func result(c *Comm, src, tag, n int, cancelled bool, err error) (Status, error) {
	if err != nil {
		err = fromCore(err)
		return Status{Source: src, Tag: tag, Bytes: n, Cancelled: cancelled, Err: err}, c.fail(err)
	}
	return Status{Source: src, Tag: tag, Bytes: n, Cancelled: cancelled}, nil
}

func start(r *Request, err error) (*Request, error) {
	if err != nil {
		return nil, err
	}
	st.engine.Start(r.r)
	return r, nil
}

// Send sends buf to rank dest of c with tag (standard mode: it returns
// when buf may be reused).
func Send[T Elem](c *Comm, buf []T, dest, tag int) error {
	return sendNow(c, buf, dest, tag, core.Standard)
}

// Ssend sends in synchronous mode: it returns once the receive has
// matched.
func Ssend[T Elem](c *Comm, buf []T, dest, tag int) error {
	return sendNow(c, buf, dest, tag, core.Sync)
}

// Rsend sends in ready mode (the receive must already be posted).
func Rsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	return sendNow(c, buf, dest, tag, core.Ready)
}

// Recv receives into buf from rank source of c (or AnySource) with tag (or
// AnyTag).
func Recv[T Elem](c *Comm, buf []T, source, tag int) (Status, error) {
	return recvNow(c, buf, source, tag)
}

// Isend starts a standard-mode send.
func Isend[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return start(pooledSend(c, buf, dest, tag, core.Standard))
}

// Issend starts a synchronous-mode send.
func Issend[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return start(pooledSend(c, buf, dest, tag, core.Sync))
}

// Irsend starts a ready-mode send.
func Irsend[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return start(pooledSend(c, buf, dest, tag, core.Ready))
}

// Irecv starts a receive.
func Irecv[T Elem](c *Comm, buf []T, source, tag int) (*Request, error) {
	return start(pooledRecv(c, buf, source, tag))
}

// SendInit makes a persistent standard-mode send; Start runs it.
func SendInit[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return persistent(newSend(c, buf, dest, tag, core.Standard))
}

// RecvInit makes a persistent receive; Start runs it.
func RecvInit[T Elem](c *Comm, buf []T, source, tag int) (*Request, error) {
	return persistent(newRecv(c, buf, source, tag))
}

// Start starts a persistent request.
func (r *Request) Start() error {
	if r == nil || !r.r.Persistent {
		return errorf(ErrRequest, "Start needs a persistent request")
	}
	if r.r.Active() && !r.r.Done() {
		return r.comm.fail(errorf(ErrRequest, "the request is already active"))
	}
	if r.x != nil {
		if r.x.typed != nil {
			if err := r.x.typed.start(); err != nil {
				return r.comm.fail(err)
			}
		}
		r.x.landErr = nil
	}
	r.landed = false
	if r.buffered {
		if err := startBuffered(r); err != nil {
			return r.comm.fail(err)
		}
		r.waited = false
		st.engine.Complete(r.r)
		return nil
	}
	r.waited = false
	st.engine.Start(r.r)
	return nil
}

// Sendrecv sends and receives at once.
func Sendrecv[T, U Elem](c *Comm, sendbuf []T, dest, sendtag int, recvbuf []U, source, recvtag int) (Status, error) {
	rr, err := Irecv(c, recvbuf, source, recvtag)
	if err != nil {
		return Status{}, err
	}
	sr, err := Isend(c, sendbuf, dest, sendtag)
	if err != nil {
		return Status{}, err
	}
	if _, err := sr.Wait(); err != nil {
		return Status{}, err
	}
	return rr.Wait()
}

// Wait waits for the request to complete and returns its status; the
// request is inactive afterwards. For a nil or inactive request it
// returns an empty status at once.
func (r *Request) Wait() (Status, error) {
	if r.inactive() {
		return emptyStatus, nil
	}
	r.waited = true
	if r.bornDone() {
		return emptyStatus, nil
	}
	defer enterWaitFor(task.Wait, r.comm, r.r).Leave()
	if r.sched != nil {
		r.sched.Wait()
	}
	if err := st.engine.Wait(context.Background(), r.r); err != nil {
		return Status{}, r.comm.fail(fromCore(err))
	}
	return r.done()
}

// Test reports whether the request completed, with its status if so (the
// request is then inactive). A nil or inactive request has completed,
// with an empty status.
func (r *Request) Test() (Status, bool, error) {
	if r.inactive() {
		return emptyStatus, true, nil
	}
	if r.bornDone() {
		r.waited = true
		return emptyStatus, true, nil
	}
	if r.sched != nil {
		r.sched.Test()
	}
	if !st.engine.Test(r.r) {
		return Status{}, false, nil
	}
	r.waited = true
	s, err := r.done()
	return s, true, err
}

// Cancel cancels a pending receive (a send already under way cannot be).
func (r *Request) Cancel() error {
	if r == nil {
		return errorf(ErrRequest, "cancel of a null request")
	}
	if r.inactive() {
		return nil // nothing under way: MPI allows it and nothing happens
	}
	if r.x != nil && r.x.gen != nil {
		return r.x.gen.cancel(r)
	}
	st.engine.Cancel(r.r)
	return nil
}

// Waitall waits for every request (nil and inactive ones have empty
// statuses) and returns their statuses; if any failed, the error has class
// ErrInStatus and each status carries its own request's error.
func Waitall(reqs ...*Request) ([]Status, error) {
	var m task.Mark // recorded at the first request that is not done yet
	defer func() { m.Leave() }()
	out := make([]Status, len(reqs))
	var failed *Comm
	for i, r := range reqs {
		if r.inactive() {
			out[i] = emptyStatus
			continue
		}
		if m == (task.Mark{}) {
			m = enterWaitFor(task.Waitall, nil, r.r)
		}
		r.waited = true
		if r.sched != nil {
			r.sched.Wait()
		}
		if err := st.engine.Wait(context.Background(), r.r); err != nil {
			out[i] = Status{Err: fromCore(err)}
		} else {
			out[i] = r.status()
		}
		if out[i].Err != nil && failed == nil {
			failed = r.comm
		}
	}
	if failed != nil {
		return out, failed.fail(errorf(ErrInStatus, "a request failed; its status says why"))
	}
	return out, nil
}

// Waitany waits until one of the requests completes and returns its index
// (Undefined, with an empty status, if every request is nil or inactive).
func Waitany(reqs ...*Request) (int, Status, error) {
	active := false
	for _, r := range reqs {
		active = active || !r.inactive()
	}
	if !active {
		return Undefined, emptyStatus, nil
	}
	idx := -1
	waitUntil(reqs, func() bool {
		for i, r := range reqs {
			if !r.inactive() && r.r.Done() {
				idx = i
				return true
			}
		}
		return false
	})
	s, err := reqs[idx].Wait()
	return idx, s, err
}

// Probe waits for a message and describes it without receiving it.
func Probe(c *Comm, source, tag int) (Status, error) {
	return ProbeContext(context.Background(), c, source, tag)
}

// Iprobe reports whether a message is there, and describes it.
func Iprobe(c *Comm, source, tag int) (Status, bool, error) {
	e, err := engine()
	if err != nil {
		return Status{}, false, err
	}
	if err := c.check(); err != nil {
		return Status{}, false, World.fail(err)
	}
	if _, err := c.peer(source, true); err != nil {
		return Status{}, false, c.fail(err)
	}
	if err := checkTag(tag, true); err != nil {
		return Status{}, false, c.fail(err)
	}
	if source == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, true, nil
	}
	s, ok := e.Iprobe(c.context, source, tag)
	return statusOf(s), ok, nil
}
