package rpitest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// PeerDeath runs rank 1 of a job in a child process (this test binary,
// run again with childEnv set: Run then does runChild), connects to it,
// starts a rendezvous send to it and kills it: the send must fail with
// ErrDeadPeer within a bound.

// childEnv holds the job's shared prefix in the child.
const childEnv = "LAMGO_RPITEST_CHILD"

func testPeerDeath(t *testing.T, f Factory) {
	if !f.DeathSeen {
		t.Skip("the module does not see a peer die")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot run this test binary again:", err)
	}
	shared := sharedPrefix(t)
	jobs := f.jobs(t, 2, shared)
	ctx := within(t, 30*time.Second)
	tr, err := f.Module.Open(ctx, jobs[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })

	// The child's control pipes: our lines to it on its descriptor 3,
	// its lines to us on its descriptor 4.
	toChildR, toChild, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChild, fromChildW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer toChild.Close()
	defer fromChild.Close()
	var out bytes.Buffer
	cmd := exec.Command(exe, "-test.run=^"+topTest(t)+"$", "-test.count=1", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), childEnv+"="+shared)
	cmd.ExtraFiles = []*os.File{toChildR, fromChildW}
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChildR.Close()
	fromChildW.Close()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(fromChild)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	line := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if ok {
				return l
			}
		case <-ctx.Done():
		}
		t.Fatalf("the child did not tell %s; its output:\n%s", what, out.String())
		return ""
	}
	addr1 := line("its address")
	fmt.Fprintln(toChild, tr.Addr())
	peers := []rpi.Peer{{Rank: 0, Node: jobs[0].Node, Addr: tr.Addr()}, {Rank: 1, Node: jobs[1].Node, Addr: addr1}}
	links, err := tr.Connect(ctx, peers, secret)
	if err != nil {
		t.Fatalf("connect to the child: %v", err)
	}
	t.Cleanup(func() { links[1].Close() })
	if l := line("that it connected"); l != "connected" {
		t.Fatalf("the child says %q", l)
	}
	j := &job{jobs: jobs[:1], ts: []rpi.Transport{tr}, links: [][]rpi.Link{links}}
	cfg := core.Config{Rank: 0, Links: links, Short: tr.Short()}
	if p, ok := tr.(rpi.Pacer); ok {
		cfg.Pace = p.Pace()
	}
	cfg.Waiter, _ = tr.(rpi.Waiter)
	e := core.New(cfg)
	t.Cleanup(func() { e.Close(within(t, 5*time.Second)) })
	s := e.NewSend(make([]byte, j.short(0, 1)+1), 1, 1, 0, tag, 0, core.Standard)
	e.Start(s)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadPeer(t, e, s)
}

// runChild is rank 1 of testPeerDeath's job: it opens the module, says
// its address, connects, says so, and waits to be killed (or for its
// parent to go away).
func runChild(t *testing.T, f Factory) {
	in, out := os.NewFile(3, "from parent"), os.NewFile(4, "to parent")
	if in == nil || out == nil {
		t.Fatal("rpitest child: no control pipes")
	}
	jobs := f.jobs(t, 2, os.Getenv(childEnv))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := f.Module.Open(ctx, jobs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	fmt.Fprintln(out, tr.Addr())
	sc := bufio.NewScanner(in)
	if !sc.Scan() {
		t.Fatal("rpitest child: no address from the parent")
	}
	peers := []rpi.Peer{{Rank: 0, Node: jobs[0].Node, Addr: strings.TrimSpace(sc.Text())}, {Rank: 1, Node: jobs[1].Node, Addr: tr.Addr()}}
	links, err := tr.Connect(ctx, peers, secret)
	if err != nil {
		t.Fatal(err)
	}
	defer links[0].Close()
	fmt.Fprintln(out, "connected")
	// Until killed; the parent's end closing ends the wait too.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc.Scan() {
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
