//go:build race

package colladapter_test

// race: the race detector slows the engines tenfold.
const race = true
