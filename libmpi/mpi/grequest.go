package mpi

import (
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// grequest is a generalized request's callbacks and state.
type grequest struct {
	queryFn  func() (Status, error)
	freeFn   func() error
	cancelFn func(complete bool) error
	mu       sync.Mutex
	done     bool // GrequestComplete was called
}

// GrequestStart starts a generalized request (MPI_Grequest_start): an
// operation the program carries out itself, which Wait, Test and the
// other request functions treat as any other, and which completes when
// the program calls GrequestComplete. The callbacks (nil for none) close
// over what C passes as extra_state:
//
//   - query returns the request's status (Source, Tag, Bytes, Cancelled)
//     and error, which Wait and Test report;
//   - free releases the program's state: once the request has completed;
//   - cancel is called by Request.Cancel, with complete saying whether
//     GrequestComplete was called already; a cancel that succeeds makes
//     query report Cancelled (MPI_Status_set_cancelled).
//
// Here query and free run in GrequestComplete, one after the other (MPI
// runs them when Wait or Test returns the request, or at Request.Free):
// Wait then needs nothing of the program's and may run on any goroutine.
// An error of free is reported by Wait if query reported none.
func GrequestStart(query func() (Status, error), free func() error, cancel func(complete bool) error) (*Request, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	return &Request{r: e.NewGeneric(), comm: World, x: &reqExtra{gen: &grequest{queryFn: query, freeFn: free, cancelFn: cancel}}}, nil
}

// GrequestComplete says the operation of a generalized request is
// complete (MPI_Grequest_complete): Wait on it returns.
func GrequestComplete(r *Request) error {
	if r == nil || r.x == nil || r.x.gen == nil {
		return errorf(ErrRequest, "GrequestComplete of a request that is not a generalized one")
	}
	g := r.x.gen
	g.mu.Lock()
	if g.done {
		g.mu.Unlock()
		return errorf(ErrRequest, "GrequestComplete called twice")
	}
	g.done = true
	g.mu.Unlock()
	s := Status{Source: AnySource, Tag: AnyTag}
	var err error
	if g.queryFn != nil {
		s, err = g.queryFn()
	}
	if g.freeFn != nil {
		if ferr := g.freeFn(); err == nil {
			err = ferr
		}
	}
	st.engine.Finish(r.r, core.Status{Source: s.Source, Tag: s.Tag, Count: s.Bytes, Cancelled: s.Cancelled, Err: err})
	return nil
}

// cancel runs the cancel callback of a generalized request.
func (g *grequest) cancel(r *Request) error {
	g.mu.Lock()
	complete := g.done
	g.mu.Unlock()
	if g.cancelFn == nil {
		return nil
	}
	if err := g.cancelFn(complete); err != nil {
		return r.comm.fail(fromCore(err))
	}
	return nil
}
