package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Install builds packages of this repository (paths from its root, such
// as "lamboot" or "examples/hello") into dir/bin and copies the default
// schemas into dir/etc, so that dir is an installation prefix the tools
// accept (lamboot -prefix dir). Suites that run the real binaries call it
// once, from TestMain.
func Install(dir string, pkgs ...string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	args := []string{"build", "-o", filepath.Join(dir, "bin") + "/"}
	for _, p := range pkgs {
		args = append(args, "./"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %v: %w\n%s", pkgs, err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
		return err
	}
	for _, f := range []string{"lam-bhost.def", "lam-conf.lamd"} {
		b, err := os.ReadFile(filepath.Join(root, "etc", f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "etc", f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// repoRoot is the repository's top directory: two levels above this
// file's package (shared/testenv).
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("testenv: cannot locate the repository")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		return "", fmt.Errorf("testenv: %s is not the repository's root: %w", root, err)
	}
	return root, nil
}
