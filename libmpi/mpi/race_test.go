//go:build race

package mpi_test

// race: sync.Pool drops items at random under the race detector, so
// the tests that count bytes allocated do not count.
const race = true
