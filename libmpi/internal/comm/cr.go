package comm

// Reserve makes the layer never propose a context id below the ids of a
// communicator with context c (an intracommunicator restored from a
// checkpoint, whose id its members agreed before).
func (l *Layer) Reserve(c uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next = max(l.next, c+IntraIDs)
}
