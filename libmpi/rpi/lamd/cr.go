package lamd

// Drainable: the links are byte streams carried by the lamds; the core
// drains them through the daemons like any other.
func (t *transport) Drainable() error { return nil }
