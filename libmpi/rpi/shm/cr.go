package shm

import (
	"errors"

	"github.com/lamgo/lam/libmpi/rpi"
)

// Drainable: the rings to the processes of the node, and the tcp links to
// the others, are byte streams the core drains like any other; links to
// other nodes through a transport given to OpenOver are as drainable as
// that transport says.
func (t *transport) Drainable() error {
	if t.ownTCP {
		return nil
	}
	d, ok := t.remote.(rpi.Drainer)
	if !ok {
		return errors.New("cannot drain its links to other nodes for a checkpoint")
	}
	return d.Drainable()
}
