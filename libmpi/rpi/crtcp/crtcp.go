// Package crtcp is the crtcp rpi module: the tcp transport whose links
// count the bytes they send and receive, so that a checkpoint can drain
// every link (peers exchange their counters and read until they match).
// Counting costs one addition per system call.
package crtcp

import (
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/tcp"
)

func init() { rpi.Register(tcp.New("crtcp", 25, true)) }
