//go:build ofi && cgo

package ofi

import (
	"fmt"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
)

// BenchmarkPingPong: one round trip of a message between two ranks of
// this process over bare links (no MPI core), each side spinning on its
// link; ns/op is a round trip.
func BenchmarkPingPong(b *testing.B) {
	for _, prov := range []string{"shm", "tcp"} {
		for _, size := range []int{1, 4096, 65536, 1 << 20} {
			b.Run(fmt.Sprintf("%s/%d", prov, size), func(b *testing.B) {
				_, links := openPair(b, prov)
				a, z := links[0][1], links[1][0]
				msg, buf := make([]byte, size), make([]byte, size)
				done := make(chan error)
				go func() {
					for range b.N {
						if err := readAll(z, buf); err != nil {
							done <- err
							return
						}
						if err := writeAll(z, buf); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
				b.SetBytes(int64(2 * size))
				b.ResetTimer()
				for range b.N {
					if err := writeAll(a, msg); err != nil {
						b.Fatal(err)
					}
					if err := readAll(a, buf); err != nil {
						b.Fatal(err)
					}
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

func readAll(l rpi.Link, p []byte) error {
	for len(p) > 0 {
		n, err := l.Read(p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func writeAll(l rpi.Link, p []byte) error {
	for len(p) > 0 {
		n, err := l.Write(p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}
