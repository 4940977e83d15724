package basic

import (
	"cmp"
	"math/bits"

	"github.com/lamgo/lam/libmpi/coll"
)

// The small rooted collectives at coll_base_check=1 (coll.Comm.SendsCall):
// every message of data starts with the sender's call (coll.CallSize
// bytes), and every process that receives one compares it with its own
// (coll.Comm.JudgeCall). Data go one way, so a process that only sends
// returns once its messages left: a Bcast's or Scatter's root, a
// Gather's other processes. A process that receives a message of another
// call still passes on what it received (a Bcast's tree), so that
// nobody below it waits for ever, and returns the error; its buffer is
// then left as it was.

// sendsCall is lam_basic's coll.Actions.SendsCall: the small Bcast,
// Gather and Scatter that carries says it carries.
func sendsCall(_ *coll.Comm, sig coll.Sig) bool {
	switch sig.Kind {
	case coll.Bcast, coll.Gather, coll.Scatter:
		return true
	}
	return false
}

// bcastSent: the root sends its call and buf to every other process
// (linear), or down the binomial tree (above coll_base_crossover
// processes), each process passing on the message as it came.
func bcastSent(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	m := c.Scratch(coll.ScratchWindow, coll.CallSize+len(buf))
	var judged error
	if v == 0 {
		c.PutCall(m)
		copy(m[coll.CallSize:], buf)
	} else {
		src := root
		if !isLinear(c) {
			src = (parent(v) + root) % n
		}
		clear(m[:coll.CallSize])
		whole, err := c.RecvAny(m, src)
		if err != nil {
			return err
		}
		judged = c.JudgeCall(m, whole)
	}
	sends := bits.Len(uint(n)) // a binomial tree's children at most
	if isLinear(c) {
		sends = n - 1
	}
	b := newBatch(c, sends)
	switch {
	case isLinear(c) && v == 0:
		for k := 1; k < n; k++ {
			b.send(m, (k+root)%n)
		}
	case !isLinear(c):
		for bit := 1; bit < n && v&bit == 0; bit <<= 1 {
			if v|bit < n {
				b.send(m, (v|bit+root)%n)
			}
		}
	}
	if err := b.wait(); err != nil {
		return err
	}
	if judged == nil && v != 0 {
		copy(buf, m[coll.CallSize:])
	}
	return judged
}

// gatherSent: every other process sends its call and its block to the
// root, which receives them in rank order and compares each call with
// its own.
func gatherSent(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		m := c.Scratch(coll.ScratchWindow, coll.CallSize+len(send))
		c.PutCall(m)
		copy(m[coll.CallSize:], send)
		return c.Send(m, root)
	}
	bs := len(recv) / n
	if send != nil {
		copy(recv[r*bs:(r+1)*bs], send[:bs])
	}
	m := c.Scratch(coll.ScratchWindow, coll.CallSize+bs)
	var first error
	for i := range n {
		if i == r {
			continue
		}
		clear(m[:coll.CallSize])
		whole, err := c.RecvAny(m, i)
		if err != nil {
			return err
		}
		if err := c.JudgeCall(m, whole); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		copy(recv[i*bs:(i+1)*bs], m[coll.CallSize:])
	}
	return first
}

// scatterMessages writes into m the root's messages of a Scatter: the
// call and block i of send for every other process i, and returns
// message i.
func scatterMessages(c *coll.Comm, m, send []byte) func(i int) []byte {
	n, r := c.Size(), c.Rank()
	bs := len(send) / n
	msg := func(i int) []byte { return m[i*(coll.CallSize+bs) : (i+1)*(coll.CallSize+bs)] }
	c.PutCall(msg(r))
	for i := range n {
		if i != r {
			copy(msg(i), msg(r)[:coll.CallSize])
			copy(msg(i)[coll.CallSize:], send[i*bs:(i+1)*bs])
		}
	}
	return msg
}

// scatterSent: the root sends its call and block i to every other
// process i.
func scatterSent(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r == root {
		bs := len(send) / n
		msg := scatterMessages(c, c.Scratch(coll.ScratchWindow, n*(coll.CallSize+bs)), send)
		b := newBatch(c, n-1)
		for i := range n {
			if i != r {
				b.send(msg(i), i)
			}
		}
		if recv != nil {
			copy(recv, send[r*bs:(r+1)*bs])
		}
		return b.wait()
	}
	m := c.Scratch(coll.ScratchWindow, coll.CallSize+len(recv))
	clear(m[:coll.CallSize])
	whole, err := c.RecvAny(m, root)
	if err != nil {
		return err
	}
	if err := c.JudgeCall(m, whole); err != nil {
		return err
	}
	copy(recv, m[coll.CallSize:])
	return nil
}

// The nonblocking forms (coll.Comm.Start at coll_base_check=1): the same
// messages as schedules. A receiver's comparison is a step after its
// receive (and, in a Bcast's tree, after it passed the message on), and
// the data go to the caller's buffer only when the calls agree.

func nbBcastSent(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	s := sched(c)
	var m []byte
	if v == 0 {
		m = c.SentMessage(buf)
	} else {
		m = coll.Buffer(coll.CallSize + len(buf))
		src := root
		if !isLinear(c) {
			src = (parent(v) + root) % n
		}
		s.RecvAny(c, m, src)
		s.Next()
	}
	switch {
	case isLinear(c) && v == 0:
		for k := 1; k < n; k++ {
			s.Send(c, m, (k+root)%n)
		}
	case !isLinear(c):
		ch := children(v, n)
		for i := len(ch) - 1; i >= 0; i-- { // the largest subtree first
			s.Send(c, m, (ch[i]+root)%n)
		}
	}
	if v != 0 {
		c.JudgeStep(m, buf)
	}
	return nil
}

func nbGatherSent(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Send(c, c.SentMessage(send), root)
		return nil
	}
	bs := len(recv) / n
	if send != nil {
		s.Copy(recv[r*bs:(r+1)*bs], send[:bs])
	}
	s.Next()
	ms := coll.Buffer(n * (coll.CallSize + bs))
	for i := range n {
		if i != r {
			s.RecvAny(c, ms[i*(coll.CallSize+bs):(i+1)*(coll.CallSize+bs)], i)
		}
	}
	s.Do(func() error {
		var first error
		for i := range n {
			if i == r {
				continue
			}
			m := ms[i*(coll.CallSize+bs) : (i+1)*(coll.CallSize+bs)]
			if err := c.JudgeCall(m, true); err != nil {
				first = cmp.Or(first, err)
				continue
			}
			copy(recv[i*bs:(i+1)*bs], m[coll.CallSize:])
		}
		c.Judged(first)
		return nil
	})
	return nil
}

func nbScatterSent(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		m := coll.Buffer(coll.CallSize + len(recv))
		s.RecvAny(c, m, root)
		c.JudgeStep(m, recv)
		return nil
	}
	bs := len(send) / n
	msg := scatterMessages(c, coll.Buffer(n*(coll.CallSize+bs)), send)
	for i := range n {
		if i != r {
			s.Send(c, msg(i), i)
		}
	}
	if recv != nil {
		s.Copy(recv, send[r*bs:(r+1)*bs])
	}
	return nil
}

// nbReduceSent is the small Ireduce at coll_base_check=1: every process
// puts its call in front of its contribution and the messages are
// reduced whole, as nbReduce reduces the data (linear or binomial), by
// coll.WithCall, which merges the calls on their way. Only the root
// compares: once the merged call is in, against its own (JudgeCall,
// which then says what differs among all of them), and it takes the
// data only when they agree. The others only send (a process of the
// binomial tree receives its children's messages on the way, and
// returns the error of one of another size).
func nbReduceSent(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	return c.ReduceSent(send, recv, op, root, func(m, out []byte, op *coll.Op) error {
		return nbReduceWhole(c, m, out, op, root)
	})
}

// nbReduceWhole reduces send into the root's recv with lam_basic's
// linear or binomial reduction, which combine the messages whole.
func nbReduceWhole(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	if isLinear(c) {
		return nbReduceLinear(c, send, recv, op, root)
	}
	return nbReduceLog(c, send, recv, op, root)
}

// nbAllreduceSent is the small Iallreduce at coll_base_check=1: the
// calls go with the data as in nbReduceSent, to rank 0, which broadcasts
// the merged call with the result (two processes: one exchange of the
// messages). So every process compares the merged call with its own,
// and every one returns the error when they differ, without a check of
// its own; the data are combined in nbAllreduce's order.
func nbAllreduceSent(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	mine := send
	if mine == nil {
		mine = recv
	}
	mine = mine[:len(recv)]
	m := c.SentMessage(mine)
	out := c.Scratch(coll.ScratchCall2, len(m)) // the view's own: it is this collective's
	wop := coll.WithCall(op, len(mine))
	var err error
	switch {
	case c.Size() == 2:
		err = nbAllreduceExchange(c, m, out, wop)
	default:
		if err = nbReduceWhole(c, m, out, wop, 0); err == nil {
			err = nbBcastData(c, out, 0)
		}
	}
	if err != nil {
		return err
	}
	c.JudgeStep(out, recv)
	return nil
}
