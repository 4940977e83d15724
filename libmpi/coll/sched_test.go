package coll_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// A schedule's steps run in the order they were added: a round's local
// steps after its transfers, rounds one after another, and the rounds a
// Then step adds right after it, before what was added after the Then;
// Fail ends the schedule there.
func TestScheduleOrder(t *testing.T) {
	errStop := errors.New("stop")
	for _, tt := range []struct {
		name  string
		build func(s *coll.Schedule, v *coll.Comm, log func(string))
		want  []string
		err   error
	}{
		{"rounds", func(s *coll.Schedule, v *coll.Comm, log func(string)) {
			peer := 1 - v.Rank()
			in := make([]byte, 1)
			s.Send(v, []byte{byte(v.Rank() + 10)}, peer)
			s.Recv(v, in, peer)
			s.Do(func() error { log(fmt.Sprint("got ", in[0])); return nil })
			s.Next()
			s.Do(func() error { log("second"); return nil })
		}, []string{"got %d", "second"}, nil},
		{"then", func(s *coll.Schedule, v *coll.Comm, log func(string)) {
			s.Do(func() error { log("a"); return nil })
			s.Then(func(s *coll.Schedule) error {
				log("then")
				s.Do(func() error { log("inserted 1"); return nil })
				s.Next()
				s.Do(func() error { log("inserted 2"); return nil })
				return nil
			})
			s.Do(func() error { log("after"); return nil })
		}, []string{"a", "then", "inserted 1", "inserted 2", "after"}, nil},
		{"fail", func(s *coll.Schedule, v *coll.Comm, log func(string)) {
			s.Do(func() error { log("a"); return nil })
			s.Fail(errStop)
			s.Next()
			s.Do(func() error { log("not run"); return nil })
		}, []string{"a"}, errStop},
		{"copy and reduce", func(s *coll.Schedule, v *coll.Comm, log func(string)) {
			a, b := colltest.Ints(1, 2), coll.Buffer(16)
			s.Copy(b, a)
			s.Reduce(&colltest.Sum, a, b)
			s.Do(func() error { log(fmt.Sprint(colltest.I64(b))); return nil })
		}, []string{fmt.Sprint([]int64{2 * colltest.Val(1, 0), 2 * colltest.Val(1, 1)})}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := colltest.NewWorld([]int32{0, 0}, 5*time.Second, "coll_base_check", "0")
			defer w.Close()
			errs := w.Each(func(r int) error {
				v, err := w.Comm(r).Reserve(coll.Barrier)
				if err != nil {
					return err
				}
				var got []string
				err = v.RunView(coll.Sig{Kind: coll.Barrier}, func(*coll.Actions) error {
					tt.build(v.Schedule(), v, func(s string) { got = append(got, s) })
					return nil
				})
				if !errors.Is(err, tt.err) {
					return fmt.Errorf("error %v, want %v", err, tt.err)
				}
				want := slices.Clone(tt.want)
				if tt.name == "rounds" {
					want[0] = fmt.Sprint("got ", 1-r+10)
				}
				if !slices.Equal(got, want) {
					return fmt.Errorf("ran %q, want %q", got, want)
				}
				return nil
			})
			for r, err := range errs {
				if err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}

// A receive of the wrong size is the schedule's ErrCount; the schedule
// goes on to its end, as a blocking collective does.
func TestScheduleCount(t *testing.T) {
	w := colltest.NewWorld([]int32{0, 0}, 5*time.Second, "coll_base_check", "0")
	defer w.Close()
	errs := w.Each(func(r int) error {
		v, err := w.Comm(r).Reserve(coll.Bcast)
		if err != nil {
			return err
		}
		ran := false
		err = v.RunView(coll.Sig{Kind: coll.Bcast}, func(*coll.Actions) error {
			s := v.Schedule()
			if r == 0 {
				s.Send(v, make([]byte, 3), 1)
			} else {
				s.Recv(v, make([]byte, 4), 0)
			}
			s.Next()
			s.Do(func() error { ran = true; return nil })
			return nil
		})
		var ce *coll.Error
		switch {
		case r == 1 && (!errors.As(err, &ce) || ce.Class != coll.ErrCount):
			return fmt.Errorf("error %v, want ErrCount", err)
		case r == 0 && err != nil:
			return err
		case !ran:
			return fmt.Errorf("the last step did not run")
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// Until advances several schedules on the caller's goroutine until its
// condition holds: here, until every one of three has run its last step,
// each a round of messages both ways (large enough to need the
// receiver) then a local step; rank 1 waits for them in the reverse
// order of rank 0, one Until each after one for them all.
func TestUntil(t *testing.T) {
	w := colltest.NewWorld([]int32{0, 0}, 5*time.Second, "coll_base_check", "0")
	defer w.Close()
	const n, size = 3, 200 << 10
	errs := w.Each(func(r int) error {
		var ss []*coll.Schedule
		ran := make([]bool, n)
		ins := make([][]byte, n)
		for i := range n {
			v, err := w.Comm(r).Reserve(coll.Alltoall)
			if err != nil {
				return err
			}
			s := v.Schedule()
			out := bytes.Repeat([]byte{byte(10*i + r)}, size)
			ins[i] = make([]byte, size)
			s.Recv(v, ins[i], 1-r)
			s.Send(v, out, 1-r)
			s.Next()
			s.Do(func() error { ran[i] = true; return nil })
			v.Launch(coll.Alltoall, nil)
			ss = append(ss, s)
		}
		if r == 1 {
			slices.Reverse(ss)
		}
		coll.Until(ss[:1], ss[0].Done)
		if !ss[0].Done() {
			return fmt.Errorf("Until returned before its condition held")
		}
		coll.Until(ss, func() bool { return ss[0].Done() && ss[1].Done() && ss[2].Done() })
		for i := range n {
			if !ran[i] || ins[i][0] != byte(10*i+1-r) || ins[i][size-1] != byte(10*i+1-r) {
				return fmt.Errorf("schedule %d: ran %v, received %d...%d", i, ran[i], ins[i][0], ins[i][size-1])
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
