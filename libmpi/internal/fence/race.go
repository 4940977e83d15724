//go:build race

package fence

const raceEnabled = true
