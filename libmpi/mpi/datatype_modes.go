package mpi

import "github.com/lamgo/lam/libmpi/internal/core"

// The persistent sends over derived datatypes in the other modes: like
// SendTypeInit, each Start packs buf as it is then.

// SsendTypeInit makes a persistent synchronous-mode send of count
// elements of d from buf (MPI_Ssend_init with a datatype).
func SsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Sync)
	})
}

// RsendTypeInit makes a persistent ready-mode send of count elements of
// d from buf (MPI_Rsend_init with a datatype).
func RsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	return typedRequest(c, buf, count, d, false, true, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Ready)
	})
}

// BsendTypeInit makes a persistent buffered-mode send of count elements
// of d from buf (MPI_Bsend_init with a datatype): each Start packs buf
// into the attached buffer and completes at once.
func BsendTypeInit(c *Comm, buf []byte, count int, d *Datatype, dest, tag int) (*Request, error) {
	r, err := typedRequest(c, buf, count, d, false, true, func(p []byte) (*Request, error) {
		return newSend(c, p, dest, tag, core.Standard)
	})
	if r != nil {
		r.buffered = true
	}
	return r, err
}
