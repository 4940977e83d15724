package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/wire"
)

// clean serves one lamclean phase on this node.
func (k *Kernel) clean(r *request, m *wire.Clean) {
	switch m.Phase {
	case wire.CleanKill:
		n := k.killProcs("")
		k.log.Debug("clean: killed processes", "count", n)
	case wire.CleanMessages:
		k.oob.clear()
	}
	r.finish(&wire.OK{})
}

// haltUniverse serves lamhalt: every other node is told to halt, each
// answer is reported as it comes, then this lamd halts too.
func (k *Kernel) haltUniverse(r *request, m *wire.Halt) {
	timeout := k.cfg.HaltTimeout
	if m.TimeoutMS > 0 {
		timeout = time.Duration(m.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(k.ctx, timeout)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var self wire.Node
	// The table is a copy: lamgrow and lamshrink may change it meanwhile.
	for _, n := range k.nodeTable() {
		if n.ID == k.cfg.Self {
			self = n
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &wire.HaltProgress{Node: n.ID, Host: n.Host, Acked: true}
			if _, err := k.rpc(ctx, n.ID, &wire.HaltNode{}); err != nil {
				p.Acked, p.Err = false, err.Error()
			}
			mu.Lock()
			r.send(p)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.send(&wire.HaltProgress{Node: k.cfg.Self, Host: self.Host, Acked: true})
	r.finish(&wire.OK{})
	k.Stop(errHalted)
}

// haltNode serves a HaltNode from another lamd.
func (k *Kernel) haltNode(r *request) {
	r.finish(&wire.OK{})
	go k.Stop(errHalted)
}

// addNode adds a node to the table. From a local tool (lamgrow) it is
// passed on to every other node first; meanwhile the node's id is claimed,
// so that a second join of it, from here or from another node, fails
// rather than both succeeding with different tables.
func (k *Kernel) addNode(r *request, m *wire.AddNode, fromTool bool) {
	if err := k.claimNode(m.Node.ID, false); err != nil {
		r.fail(wire.CodeFailed, "%v", err)
		return
	}
	if !fromTool {
		k.insertNode(m.Node)
		r.finish(&wire.OK{})
		return
	}
	go func() {
		if err := k.broadcast(m, m.Node.ID); err != nil {
			k.releaseNode(m.Node.ID)
			r.fail(wire.CodeFailed, "%v", err)
			return
		}
		k.insertNode(m.Node)
		r.finish(&wire.OK{})
	}()
}

// claimNode checks, under the lock, that node id may be added (it is not in
// the table) or removed (it is), and that no change to it is under way
// here. The id stays claimed until insertNode, forgetNode or releaseNode:
// at once for a change from another node, after the broadcast for a change
// from a local tool.
func (k *Kernel) claimNode(id int32, remove bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, exists := k.nodes[id]
	switch {
	case k.changing[id]:
		return fmt.Errorf("node n%d is being added or removed by another tool", id)
	case exists && !remove:
		return fmt.Errorf("node n%d is already in the universe", id)
	case !exists && remove:
		return fmt.Errorf("n%d: %w", id, errNoNode)
	}
	k.changing[id] = true
	return nil
}

func (k *Kernel) releaseNode(id int32) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.changing, id)
}

var errNoNode = errors.New("no such node in the universe")

// insertNode puts n in the table and releases its claim.
func (k *Kernel) insertNode(n wire.Node) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n.Flags &^= wire.NodeDead
	k.nodes[n.ID] = &n
	delete(k.changing, n.ID)
}

// removeNode takes a node out of the universe (lamshrink). The node's own
// lamd halts; the others forget it.
func (k *Kernel) removeNode(r *request, m *wire.RemoveNode, fromTool bool) {
	if m.ID == k.cfg.Self { // always in the table
		if fromTool {
			r.fail(wire.CodeFailed, "n%d is the node lamshrink runs on; run it on another node", m.ID)
			return
		}
		go func() {
			if m.WaitMS > 0 {
				signalAll(k.procs.match("", 0), sigFuse)
				time.Sleep(time.Duration(m.WaitMS) * time.Millisecond)
			}
			r.finish(&wire.OK{})
			k.Stop(errHalted)
		}()
		return
	}
	if err := k.claimNode(m.ID, true); err != nil {
		code := wire.CodeFailed
		if errors.Is(err, errNoNode) {
			code = wire.CodeBadNode
		}
		r.fail(code, "%v", err)
		return
	}
	if !fromTool {
		k.forgetNode(m.ID)
		r.finish(&wire.OK{})
		return
	}
	go func() {
		if err := k.broadcast(m, m.ID); err != nil {
			k.releaseNode(m.ID)
			r.fail(wire.CodeFailed, "%v", err)
			return
		}
		// The node itself halts; if its lamd is gone already, there is
		// nobody to tell.
		ctx, cancel := context.WithTimeout(k.ctx, k.cfg.HaltTimeout+time.Duration(m.WaitMS)*time.Millisecond)
		k.rpc(ctx, m.ID, m)
		cancel()
		k.forgetNode(m.ID)
		r.finish(&wire.OK{})
	}()
}

// forgetNode takes node id out of the table, closes its link and releases
// its claim.
func (k *Kernel) forgetNode(id int32) {
	k.mu.Lock()
	delete(k.nodes, id)
	delete(k.changing, id)
	l := k.links[id]
	delete(k.links, id)
	k.mu.Unlock()
	if l != nil {
		l.close(fmt.Errorf("n%d removed", id))
	}
}

// broadcast sends m to every other node (except skip) and waits for all
// answers, bounded by the halt timeout.
func (k *Kernel) broadcast(m wire.Message, skip int32) error {
	ctx, cancel := context.WithTimeout(k.ctx, k.cfg.HaltTimeout)
	defer cancel()
	var wg sync.WaitGroup
	table := k.nodeTable()
	errs := make(chan error, len(table))
	for _, n := range table {
		if n.ID == k.cfg.Self || n.ID == skip || n.Flags&wire.NodeDead != 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := k.rpc(ctx, n.ID, m); err != nil {
				errs <- fmt.Errorf("n%d: %w", n.ID, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
