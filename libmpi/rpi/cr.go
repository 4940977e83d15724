package rpi

import "fmt"

// Checkpoints. The MPI core drains a job's links itself, the same way on
// every transport: it finishes the frames it has begun writing, holds new
// ones, tells every peer (out of band) how many bytes it wrote to it, and
// reads each link until it has read as many as the peer wrote, so that
// nothing is left in flight (LAM's crtcp "bookmark" exchange). A
// transport takes part by being drainable: its links must deliver every
// byte written before the counters were exchanged without further writes
// from the other end (true of byte streams), and be usable again after
// the checkpoint. Blocked calls need no interrupt hook of a module's: the
// core never blocks holding its progress lock, which the checkpoint takes
// between the polls of a waiting call, so the call is suspended there and
// goes on afterwards without noticing.

// Drainer is implemented by transports that take part in checkpoints.
type Drainer interface {
	// Drainable returns nil if the transport's links can be drained for a
	// checkpoint, or why not.
	Drainable() error
}

// Drainable reports whether t can be drained for a checkpoint: nil, or
// the reason it cannot, naming the module.
func Drainable(name string, t Transport) error {
	d, ok := t.(Drainer)
	if !ok {
		return fmt.Errorf("rpi %s cannot be drained for a checkpoint", name)
	}
	if err := d.Drainable(); err != nil {
		return fmt.Errorf("rpi %s %w", name, err) // err says what the module does not do
	}
	return nil
}

// WriteBeginner is implemented by links whose Write may take part of what
// it is given and yet report 0, to report it all when the core writes the
// same bytes again (the lamd rpi: a message the daemon's stream took part
// of). WriteBegun reports whether such a write waits to be repeated: the
// bytes reach the peer, so a checkpoint's drain must repeat the write
// (and count them) before it tells the peer its counters.
type WriteBeginner interface {
	WriteBegun() bool
}
