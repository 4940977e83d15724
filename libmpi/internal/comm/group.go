package comm

// AgreeGroup is Agree over a group of a communicator's processes only
// (MPI_Comm_create_group): c.Context is the parent communicator's, c.Group
// and c.Rank the group's. Its messages travel on the parent's hidden
// context with negative tags made from tag, which no other construction
// or collective uses, so that processes outside the group may meanwhile
// use the parent, and groups with different tags may agree at once.
func (l *Layer) AgreeGroup(c Comm, tag int) (uint32, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tg := -2 - 2*(tag&(1<<29-1))
	all, err := l.exchange(c, Hidden(c.Context), tg, tg-1, []int32{int32(l.next)})
	if err != nil {
		return 0, err
	}
	best := uint32(0)
	for _, v := range all {
		best = max(best, uint32(v))
	}
	l.next = best + IntraIDs
	return best, nil
}
