package shmem

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A process waiting for a peer that died gets an error, not a hang; one
// waiting for a live peer that raises the flag late gets it.
func TestAwait(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep(1):", err)
	}
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skip("no pidfd:", err)
	}
	defer unix.Close(fd)
	mem := make([]byte, 8*line)
	a := &area{geometry: geometry{n: 2, chunk: line, segs: 1}, mem: mem, pidfds: []int{-1, fd},
		spinPolls: 10, yieldFor: time.Millisecond, name: "test"}
	flag := a.flagAt(offPosts+line, 0)

	// Late but alive: the writer wakes a sleeper.
	go func() {
		time.Sleep(30 * time.Millisecond)
		a.publish(flag, 1)
	}()
	if err := a.await(flag, 1, 1); err != nil {
		t.Fatalf("a live peer: %v", err)
	}

	cmd.Process.Kill()
	cmd.Wait()
	done := make(chan error, 1)
	go func() { done <- a.await(flag, 2, 1) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrPeerGone) {
			t.Fatalf("a dead peer: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waiting for a dead peer hangs")
	}
}
