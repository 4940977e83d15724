// Package testenv holds helpers for tests that need privileges or kernel
// features that a developer's machine may lack.
//
// Such a test may skip where the feature is missing, but CI sets
// LAM_TEST_STRICT=1, which turns every such skip into a failure, so CI
// always runs them.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// StrictVar is the environment variable that turns skips into failures.
const StrictVar = "LAM_TEST_STRICT"

// Strict reports whether skips must become failures.
func Strict() bool { return os.Getenv(StrictVar) == "1" }

// Skip skips the test with reason, or fails it when Strict is set.
func Skip(t testing.TB, reason string) {
	t.Helper()
	if Strict() {
		t.Fatalf("%s is set and this test cannot run: %s", StrictVar, reason)
	}
	t.Skip(reason)
}

// RequireRoot skips (or, under LAM_TEST_STRICT=1, fails) unless the test
// runs as root.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root")
	}
}

// CopyForOthers copies the running test binary into a new directory that
// other users may enter, so a test can run it under another uid; the
// directory goes when the test ends.
func CopyForOthers(t testing.TB) string {
	t.Helper()
	// Not t.TempDir: its parent is private to us.
	dir, err := os.MkdirTemp("", "testenv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "client")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// AllowRootVar is the variable that lets LAM/Go's tools run as root
// (lamcli.AllowRootVar; testenv does not import lamcli).
const AllowRootVar = "LAM_ALLOW_RUN_AS_ROOT"

// AllowRoot sets AllowRootVar=1 in this process's environment, which every
// tool a test starts inherits: suites that run the real binaries call it
// from TestMain, since CI runs them as root and the tools refuse root
// unless asked.
func AllowRoot() {
	os.Setenv(AllowRootVar, "1")
}
