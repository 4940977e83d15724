//go:build ofi && cgo

package ofi

// Drainable: the links are byte streams the core drains as it drains
// every module's. Every byte a Write accepted is in a fabric message
// posted to the provider, and the reader's progress (which a drain keeps
// calling) takes it and returns its credit in a control message, which
// is no byte of the stream; the writer's own progress (its drain, or the
// background goroutine) pushes what a provider with manual progress
// still holds. The links are usable again when the engine resumes, and a
// restarted job opens new endpoints.
func (t *transport) Drainable() error { return nil }
