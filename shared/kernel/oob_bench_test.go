package kernel_test

import (
	"context"
	"testing"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
)

// BenchmarkOOBPingPong is a ping-pong of 1-byte out-of-band messages
// between two clients of one lamd (the lamd rpi's path).
func BenchmarkOOBPingPong(b *testing.B) {
	u := kerneltest.Start(b, kerneltest.Options{Nodes: 1})
	a, c := u.Client(b, 0), u.Client(b, 0)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < b.N; i++ {
			if _, err := c.Recv(ctx, 2, 1); err != nil {
				done <- err
				return
			}
			if err := c.Send(ctx, 0, 1, 1, []byte{1}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Send(ctx, 0, 2, 1, []byte{1}); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Recv(ctx, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
