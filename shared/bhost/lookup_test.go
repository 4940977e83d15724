package bhost

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree is a temporary layout with a current directory, $TROLLIUSHOME,
// $LAMHOME and a sysconfdir.
type tree struct {
	cwd, trollius, lamhome, sysconf string
	env                             map[string]string
}

func newTree(t *testing.T) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{
		cwd:      filepath.Join(root, "cwd"),
		trollius: filepath.Join(root, "trollius"),
		lamhome:  filepath.Join(root, "lamhome"),
		sysconf:  filepath.Join(root, "prefix", "etc"),
	}
	for _, d := range []string{tr.cwd, filepath.Join(tr.trollius, "etc"), filepath.Join(tr.lamhome, "etc"), tr.sysconf} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr.env = map[string]string{"TROLLIUSHOME": tr.trollius, "LAMHOME": tr.lamhome}
	return tr
}

func (tr *tree) lookup(arg string) Lookup {
	return Lookup{
		Arg:        arg,
		Getenv:     func(k string) string { return tr.env[k] },
		Cwd:        tr.cwd,
		Sysconfdir: tr.sysconf,
	}
}

func write(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindName(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.cwd, "arg.def"))
	write(t, filepath.Join(tr.cwd, "env.def"))
	write(t, filepath.Join(tr.cwd, defaultName))

	tests := []struct {
		name, arg, env, want string
	}{
		{"argument", "arg.def", "", "arg.def"},
		{"argument beats LAMBHOST", "arg.def", "env.def", "arg.def"},
		{"LAMBHOST", "", "env.def", "env.def"},
		{"default", "", "", defaultName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr.env["LAMBHOST"] = tt.env
			got, err := tr.lookup(tt.arg).Find()
			if want := filepath.Join(tr.cwd, tt.want); err != nil || got != want {
				t.Errorf("Find() = %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestFindSearchOrder(t *testing.T) {
	tr := newTree(t)
	places := []string{
		filepath.Join(tr.cwd, defaultName),
		filepath.Join(tr.trollius, "etc", defaultName),
		filepath.Join(tr.lamhome, "etc", defaultName),
		filepath.Join(tr.sysconf, defaultName),
	}
	for _, p := range places {
		write(t, p)
	}
	// Each place wins while it exists; then the next one does.
	for i, want := range places {
		got, err := tr.lookup("").Find()
		if err != nil || got != want {
			t.Errorf("step %d: Find() = %q, %v; want %q", i, got, err, want)
		}
		if err := os.Remove(want); err != nil {
			t.Fatal(err)
		}
	}
	_, err := tr.lookup("").Find()
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after removing all: got %v; want ErrNotExist", err)
	}
	// The error names the file and every place, in search order.
	msg := err.Error()
	if !strings.Contains(msg, `"`+defaultName+`"`) {
		t.Errorf("error %q does not name %s", msg, defaultName)
	}
	at := 0
	for _, p := range places {
		i := strings.Index(msg[at:], p)
		if i < 0 {
			t.Fatalf("error %q does not list %s after position %d", msg, p, at)
		}
		at += i + len(p)
	}
}

func TestFindSkipsUnsetPlaces(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.sysconf, "h"))
	delete(tr.env, "TROLLIUSHOME")
	delete(tr.env, "LAMHOME")
	got, err := tr.lookup("h").Find()
	if want := filepath.Join(tr.sysconf, "h"); err != nil || got != want {
		t.Errorf("Find() = %q, %v; want %q", got, err, want)
	}

	l := tr.lookup("missing")
	l.Sysconfdir = ""
	_, err = l.Find()
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v; want ErrNotExist", err)
	}
	want := `boot schema "missing" not found; looked for ` + filepath.Join(tr.cwd, "missing") + ": file does not exist"
	if err.Error() != want {
		t.Errorf("error:\n got %q\nwant %q", err, want)
	}
}

func TestFindDeduplicatesPlaces(t *testing.T) {
	tr := newTree(t)
	tr.env["TROLLIUSHOME"] = tr.lamhome
	_, err := tr.lookup("x").Find()
	if n := strings.Count(err.Error(), filepath.Join(tr.lamhome, "etc", "x")); n != 1 {
		t.Errorf("error %q lists $LAMHOME/etc/x %d times; want once", err, n)
	}
}

func TestFindPaths(t *testing.T) {
	tr := newTree(t)
	abs := write(t, filepath.Join(tr.trollius, "abs.def"))
	write(t, filepath.Join(tr.cwd, "sub", "rel.def"))
	write(t, filepath.Join(tr.sysconf, "sub", "only-here.def"))
	write(t, filepath.Join(tr.cwd, "gone.def")) // must not be found for /…/gone.def

	got, err := tr.lookup(abs).Find()
	if err != nil || got != abs {
		t.Errorf("absolute: Find() = %q, %v; want %q", got, err, abs)
	}
	got, err = tr.lookup("sub/rel.def").Find()
	if want := filepath.Join(tr.cwd, "sub", "rel.def"); err != nil || got != want {
		t.Errorf("relative: Find() = %q, %v; want %q", got, err, want)
	}
	tr.env["LAMBHOST"] = "./sub/rel.def"
	got, err = tr.lookup("").Find()
	if want := filepath.Join(tr.cwd, "sub", "rel.def"); err != nil || got != want {
		t.Errorf("LAMBHOST relative: Find() = %q, %v; want %q", got, err, want)
	}

	// A name with a slash is not searched for.
	_, err = tr.lookup("sub/only-here.def").Find()
	want := `boot schema "sub/only-here.def" not found; looked for ` +
		filepath.Join(tr.cwd, "sub", "only-here.def") + ": file does not exist"
	if !errors.Is(err, os.ErrNotExist) || err.Error() != want {
		t.Errorf("relative missing:\n got %v\nwant %s", err, want)
	}
	missing := filepath.Join(tr.trollius, "gone.def")
	_, err = tr.lookup(missing).Find()
	want = `boot schema "` + missing + `" not found; looked for ` + missing + ": file does not exist"
	if !errors.Is(err, os.ErrNotExist) || err.Error() != want {
		t.Errorf("absolute missing:\n got %v\nwant %s", err, want)
	}
}

func TestFindUnreadable(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.sysconf, defaultName)) // would be found later

	// A directory where the schema should be.
	dir := filepath.Join(tr.cwd, defaultName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := tr.lookup("").Find()
	if err == nil || errors.Is(err, os.ErrNotExist) || !errors.Is(err, syscall.EISDIR) || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory: got %v; want an error naming %s", err, dir)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}

	// A symlink loop cannot be opened, even by root.
	if err := os.Symlink(defaultName, dir); err != nil {
		t.Fatal(err)
	}
	_, err = tr.lookup("").Find()
	if err == nil || errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), dir) {
		t.Errorf("symlink loop: got %v; want an error naming %s", err, dir)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}

	// A file without read permission (root reads it anyway).
	if os.Geteuid() != 0 {
		write(t, dir)
		if err := os.Chmod(dir, 0); err != nil {
			t.Fatal(err)
		}
		_, err = tr.lookup("").Find()
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), dir) {
			t.Errorf("no permission: got %v; want a permission error naming %s", err, dir)
		}
	}

	// A path through a regular file is simply not there.
	tr.env["LAMHOME"] = write(t, filepath.Join(tr.trollius, "not-a-dir"))
	if err := os.Remove(filepath.Join(tr.sysconf, defaultName)); err != nil {
		t.Fatal(err)
	}
	_, err = tr.lookup("").Find()
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ENOTDIR: got %v; want ErrNotExist", err)
	}
}

func TestFindFIFO(t *testing.T) {
	tr := newTree(t)
	p := filepath.Join(tr.cwd, defaultName)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got, err := tr.lookup("").Find() // must not block waiting for a writer
	if err != nil || got != p {
		t.Errorf("Find() = %q, %v; want %q", got, err, p)
	}
}

func TestFindDefaults(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "from-env.def"))
	t.Chdir(dir)
	t.Setenv("LAMBHOST", "from-env.def")
	got, err := Lookup{}.Find() // os.Getenv and os.Getwd
	if err != nil || filepath.Base(got) != "from-env.def" {
		t.Fatalf("Find() = %q, %v", got, err)
	}
	if _, err := os.Stat(got); err != nil {
		t.Errorf("returned path %q: %v", got, err)
	}
}
