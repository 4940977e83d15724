package kernel

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The parent-death signal follows the thread that forked, so a process
// started for a goroutine whose thread then ends (a locked goroutine that
// returns) must live on: startProc forks from the spawner's own thread.
func TestSpawnOutlivesCallerThread(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// The runtime ends a thread whose locked goroutine returns, except the
	// main thread, which it parks: ask from a goroutine on another one.
	started := make(chan error, 1)
	for asked := false; !asked; {
		onMain := make(chan bool)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == syscall.Getpid() {
				runtime.UnlockOSThread()
				onMain <- true
				return
			}
			onMain <- false
			started <- startProc(cmd) // then return still locked: the thread ends
		}()
		asked = !<-onMain
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-waited
	}()
	select {
	case err := <-waited:
		waited <- err
		t.Fatalf("the process died with the thread of the goroutine that asked for it: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
}
