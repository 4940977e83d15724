//go:build race

package main

// The race detector allocates on its own: allocation counts mean nothing.
const raceEnabled = true
