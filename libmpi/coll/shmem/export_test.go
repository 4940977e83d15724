package shmem

// BoardSlots is the board's depth: how many numbers may be outstanding
// before a start waits for the others to read (board_test.go's depth
// test goes past it).
const BoardSlots = boardSlots

// Lend turns the board's lent entries on until the test ends.
func Lend(t interface{ Cleanup(func()) }) {
	was := lending
	lending = true
	t.Cleanup(func() { lending = was })
}
