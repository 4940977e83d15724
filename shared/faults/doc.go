// Package faults is LAM/Go's fault-injection suite: it builds the real
// binaries, boots universes (on this host, and on simulated hosts with
// shared/nettest) and attacks them: descriptor exhaustion of the lamd,
// client floods on its local socket and its link port, slowloris, killed
// and stopped lamds and ranks, a full session file system, back-to-back
// boot/run/halt cycles, concurrent jobs and the bad inputs of issue 14.
// Each scenario asserts that the lamd still answers afterwards, that the
// job's outcome is reported, and that no process, session directory or
// shared-memory segment is left.
//
// The package holds tests only. They take minutes, so they run only when
// LAM_TEST_FAULTS=1 (make test-faults); otherwise the test binary says so
// and passes. With -faults.table=FILE the run writes its results as the
// markdown table of docs/faults.md.
package faults
