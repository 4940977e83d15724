package match

// list is an intrusive FIFO: each element embeds the link that puts it in
// a list, so pushing and removing allocate nothing. Receives and
// unexpected messages queue in lists of their own types.
type list[T any] struct{ head, tail *link[T] }

// link is an element's place in a list. elem points back to the element
// while it is in a list, and is nil otherwise.
type link[T any] struct {
	next, prev *link[T]
	elem       *T
}

// queued reports whether the element is in a list.
func (n *link[T]) queued() bool { return n.elem != nil }

// push appends elem, whose link is n.
func (l *list[T]) push(n *link[T], elem *T) {
	n.prev, n.next, n.elem = l.tail, nil, elem
	if l.tail != nil {
		l.tail.next = n
	} else {
		l.head = n
	}
	l.tail = n
}

// remove unlinks n, which must be in l, and returns its element.
func (l *list[T]) remove(n *link[T]) *T {
	elem := n.elem
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		l.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		l.tail = n.prev
	}
	*n = link[T]{}
	return elem
}

// find returns the link of the oldest element for which ok returns true,
// or nil.
func (l *list[T]) find(ok func(*T) bool) *link[T] {
	for n := l.head; n != nil; n = n.next {
		if ok(n.elem) {
			return n
		}
	}
	return nil
}

// clear unlinks every element and returns how many there were.
func (l *list[T]) clear() int {
	count := 0
	for n := l.head; n != nil; count++ {
		next := n.next
		*n = link[T]{}
		n = next
	}
	*l = list[T]{}
	return count
}
