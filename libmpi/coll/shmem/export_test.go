package shmem

// BoardSlots is the board's depth: how many numbers may be outstanding
// before a start waits for the others to read (board_test.go's depth
// test goes past it).
const BoardSlots = boardSlots

// BigBytes is the most data an entry carries in the outboard: larger
// reductions lend their buffers (lentreduce_test.go).
const BigBytes = bigBytes
