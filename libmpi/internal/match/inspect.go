package match

// Each calls fn for every unexpected message, oldest first within each
// context, until fn returns false (for mpimsg; the caller holds the lock
// that serialises the engine).
func (e *Engine) Each(fn func(*Message) bool) {
	for _, b := range e.buckets {
		for n := b.msgs.head; n != nil; n = n.next {
			if !fn(n.elem) {
				return
			}
		}
	}
}
