package shm

// Drainable: the rings to the processes of the node, and the tcp links to
// the others, are byte streams the core drains like any other.
func (t *transport) Drainable() error { return nil }
