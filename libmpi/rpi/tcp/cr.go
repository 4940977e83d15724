package tcp

import "errors"

// Drainable: a counting transport (crtcp) takes part in checkpoints; the
// plain tcp module does not, as in LAM, where only crtcp (and gm) could be
// checkpointed among the network transports.
func (t *transport) Drainable() error {
	if t.counting {
		return nil
	}
	return errors.New("does not take part in checkpoints (as in LAM); use crtcp")
}
