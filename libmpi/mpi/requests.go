package mpi

import (
	"context"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
)

// Testall reports whether every request completed (nil and inactive ones
// count as completed), and their statuses if so.
func Testall(reqs ...*Request) ([]Status, bool, error) {
	testSchedules(reqs)
	st.engine.Progress()
	for _, r := range reqs {
		if !r.inactive() && !r.r.Done() {
			st.engine.Tested(false)
			return nil, false, nil
		}
	}
	st.engine.Tested(true)
	s, err := Waitall(reqs...)
	return s, true, err
}

// Testany reports whether one of the requests completed, and which;
// when every request is nil or inactive it reports true with index
// Undefined and an empty status.
func Testany(reqs ...*Request) (int, Status, bool, error) {
	testSchedules(reqs)
	st.engine.Progress()
	active := false
	for i, r := range reqs {
		if r.inactive() {
			continue
		}
		active = true
		if r.r.Done() {
			st.engine.Tested(true)
			s, err := r.Wait()
			return i, s, true, err
		}
	}
	st.engine.Tested(!active)
	if !active {
		return Undefined, emptyStatus, true, nil
	}
	return Undefined, Status{}, false, nil
}

// Waitsome waits until at least one request completes and returns the
// indices of all that have (nil and inactive requests are skipped; none
// are returned, at once, when every request is nil or inactive).
func Waitsome(reqs ...*Request) ([]int, []Status, error) {
	if allInactive(reqs) {
		return nil, nil, nil
	}
	waitUntil(reqs, func() bool {
		for _, r := range reqs {
			if !r.inactive() && r.r.Done() {
				return true
			}
		}
		return false
	})
	return collectDone(reqs)
}

// testSchedules advances the nonblocking collectives among reqs as far
// as they go without waiting, on the caller's goroutine (as Test does).
func testSchedules(reqs []*Request) {
	for _, r := range reqs {
		if !r.inactive() && r.sched != nil {
			r.sched.Test()
		}
	}
}

// waitUntil waits until cond holds (it reads the requests' atomics),
// advancing the nonblocking collectives among reqs on the caller's
// goroutine meanwhile (coll.Until), as Wait does for one.
func waitUntil(reqs []*Request, cond func() bool) {
	var ss []*coll.Schedule
	for _, r := range reqs {
		if !r.inactive() && r.sched != nil && !r.sched.Done() {
			ss = append(ss, r.sched)
		}
	}
	if len(ss) == 0 {
		st.engine.WaitAny(context.Background(), cond)
		return
	}
	coll.Until(ss, cond)
}

// Testsome returns the indices of the requests that have completed.
func Testsome(reqs ...*Request) ([]int, []Status, error) {
	testSchedules(reqs)
	st.engine.Progress()
	idx, sts, err := collectDone(reqs)
	st.engine.Tested(len(idx) > 0 || allInactive(reqs))
	return idx, sts, err
}

// allInactive reports whether every request of reqs is nil or inactive.
func allInactive(reqs []*Request) bool {
	for _, r := range reqs {
		if !r.inactive() {
			return false
		}
	}
	return true
}

func collectDone(reqs []*Request) ([]int, []Status, error) {
	var idx []int
	var sts []Status
	var first error
	for i, r := range reqs {
		if r.inactive() || !r.r.Done() {
			continue
		}
		s, err := r.Wait()
		idx, sts = append(idx, i), append(sts, s)
		if err != nil && first == nil {
			first = err
		}
	}
	return idx, sts, first
}

// Startall starts persistent requests.
func Startall(reqs ...*Request) error {
	for _, r := range reqs {
		if err := r.Start(); err != nil {
			return err
		}
	}
	return nil
}

// Free releases a request. An active one completes on its own (its
// result is dropped); a persistent one can no longer be started.
func (r *Request) Free() {
	if r != nil && r.r.Persistent {
		r.r.Persistent = false
	}
}

// SsendInit makes a persistent synchronous-mode send.
func SsendInit[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return persistent(newSend(c, buf, dest, tag, core.Sync))
}

// RsendInit makes a persistent ready-mode send.
func RsendInit[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return persistent(newSend(c, buf, dest, tag, core.Ready))
}

func persistent(r *Request, err error) (*Request, error) {
	if r != nil {
		r.r.Persistent = true
	}
	return r, err
}

// SendrecvReplace sends buf and receives into it.
func SendrecvReplace[T Elem](c *Comm, buf []T, dest, sendtag, source, recvtag int) (Status, error) {
	tmp := append([]T(nil), buf...)
	return Sendrecv(c, tmp, dest, sendtag, buf, source, recvtag)
}
