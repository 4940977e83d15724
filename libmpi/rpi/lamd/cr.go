package lamd

// Drainable: the links are byte streams carried by the lamds; the core
// drains them through the daemons like any other.
func (t *transport) Drainable() error { return nil }

// WriteBegun reports whether the stream took part or all of a message of
// this link that the link has not yet reported written (rpi.WriteBeginner):
// its bytes reach the peer, so the core must write them again (and count
// them) before a checkpoint's counters are exchanged.
func (l *link) WriteBegun() bool { return l.done != 0 }
