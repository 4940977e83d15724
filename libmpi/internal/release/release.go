// Package release stores words with release ordering and no more: a
// reader that loads the word atomically sees every store made before it.
//
// On amd64 every store is a release store, so these are plain moves,
// without the full fence of sync/atomic's stores (an exchange that waits
// for the processor's store buffer to drain: tens of cycles on the
// message path). Elsewhere, and under the race detector, they are
// sync/atomic stores.
package release
