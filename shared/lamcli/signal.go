package lamcli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// InterruptError is the cause of a tool's context when the user
// interrupts it: the signal that arrived.
type InterruptError struct {
	Signal syscall.Signal
}

func (e *InterruptError) Error() string {
	switch e.Signal {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "interrupted (SIGTERM)"
	}
	return fmt.Sprintf("interrupted (signal %d)", int(e.Signal))
}

// ExitCode is what a shell reports for a command the signal ended:
// 128 plus the signal number (130 for SIGINT).
func (e *InterruptError) ExitCode() int { return 128 + int(e.Signal) }

// SignalContext returns a context that ends, with an *InterruptError as
// its cause, when SIGINT or SIGTERM arrives. Later signals are still
// caught, so that the tool can finish cleaning up; stop restores the
// default behaviour.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			sig, _ := s.(syscall.Signal)
			cancel(&InterruptError{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
