package kernel_test

import (
	"context"
	"os"
	"testing"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

// TestInspect: a lamd asks its MPI process (here a client of this test
// that answers as a rank does), passes its answer on, lists its queue
// without its own questions, and reports a process that does not answer
// as silent, taking its question back.
func TestInspect(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	tool := u.Client(t, 0)
	rank, err := lamclient.Dial(ctx(t), u.Dir(1), "fakerank", wire.RoleMPI)
	if err != nil {
		t.Fatal(err)
	}
	defer rank.Close()
	pid := os.Getpid()
	status := &jobwire.Status{Rank: 3, Size: 4, PID: int32(pid), Node: 1, Program: "fakerank", State: jobwire.StateBlocked,
		Call: jobwire.Call{Func: "Recv", Comm: "WORLD", Peer: 1, PeerW: 1, Tag: 9, Count: 2, Datatype: "INT"}}
	answering, stop := context.WithCancel(ctx(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := rank.Recv(answering, jobwire.RankEvent(pid), jobwire.TypeQuery)
			if err != nil {
				return
			}
			q, err := jobwire.DecodeQuery(m.Data)
			if err != nil {
				t.Errorf("query: %v", err)
				return
			}
			rank.Send(answering, m.From, q.ReplyEvent, q.ReplyType, status.Encode())
		}
	}()
	if err := tool.Send(ctx(t), 1, 555, 1, []byte("queued")); err != nil {
		t.Fatal(err)
	}
	in, err := tool.Inspect(ctx(t), 1, true, 10)
	if err != nil {
		t.Fatal(err)
	}
	if in.Node != 1 || len(in.Procs) != 1 || in.Procs[0].State != wire.ProcAnswered || in.Procs[0].PID != int32(pid) || in.Procs[0].Name != "fakerank" {
		t.Fatalf("inspection %+v", in)
	}
	if got, err := jobwire.DecodeStatus(in.Procs[0].Status); err != nil || got.Call != status.Call {
		t.Errorf("status %+v %v", got, err)
	}
	if len(in.Queue) != 1 || in.Queue[0].Event != 555 || string(in.Queue[0].Head) != "queued" || in.Queue[0].Len != 6 {
		t.Errorf("queue %+v", in.Queue)
	}
	// Without messages: no queue.
	if in, err := tool.Inspect(ctx(t), 1, false, 10); err != nil || len(in.Queue) != 0 || len(in.Procs) != 1 {
		t.Errorf("without messages: %+v %v", in, err)
	}

	stop()
	<-done
	in, err = tool.Inspect(ctx(t), 1, false, 0)
	if err != nil || len(in.Procs) != 1 || in.Procs[0].State != wire.ProcSilent {
		t.Fatalf("silent process: %+v %v", in, err)
	}
	// Its question was taken back: nothing waits for it.
	if _, err := rank.TryRecv(ctx(t), jobwire.RankEvent(pid), jobwire.TypeQuery); lamclient.Code(err) != wire.CodeNoEntry {
		t.Errorf("a question left behind: %v", err)
	}
	// Another node's table does not list it.
	if in, err := tool.Inspect(ctx(t), 0, true, 10); err != nil || len(in.Procs) != 0 {
		t.Errorf("n0: %+v %v", in, err)
	}
}
