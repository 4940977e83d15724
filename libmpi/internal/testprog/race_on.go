//go:build race

package main

// race: sync.Pool drops items at random under the race detector, so the
// suites that count bytes allocated do not count.
const race = true
