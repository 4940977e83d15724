package bhost

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// defaultName is the boot schema used when none is named.
const defaultName = "lam-bhost.def"

// Lookup says where to look for a boot schema. Find locates the schema as
// lamboot does (facts §3.2).
type Lookup struct {
	Arg        string              // file named on the command line ("" if none)
	Getenv     func(string) string // os.Getenv in production; nil means os.Getenv
	Cwd        string              // current directory; "" means os.Getwd
	Sysconfdir string              // the installation's etc directory; "" to skip
}

// Find returns the path of the boot schema to use.
//
// The name is Arg if set, else $LAMBHOST if set, else "lam-bhost.def". A
// name containing a "/" is used as it is, a relative one taken from Cwd,
// and must exist. A bare name is looked for in turn in Cwd,
// $TROLLIUSHOME/etc, $LAMHOME/etc and Sysconfdir; unset variables and an
// empty Sysconfdir are skipped.
//
// When no file is found, the error names the file and every place tried,
// and wraps os.ErrNotExist. A file that exists but cannot be opened, or
// is a directory, stops the search with an error naming its path, rather
// than being passed over for one further down the list.
func (l Lookup) Find() (path string, err error) {
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	name := l.Arg
	if name == "" {
		name = getenv("LAMBHOST")
	}
	if name == "" {
		name = defaultName
	}
	cwd := l.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("looking for boot schema %q: %w", name, err)
		}
	}

	var tried []string
	add := func(dir string) {
		p := filepath.Join(dir, name)
		for _, t := range tried {
			if t == p {
				return
			}
		}
		tried = append(tried, p)
	}
	if filepath.IsAbs(name) {
		tried = []string{name}
	} else if strings.ContainsRune(name, '/') {
		add(cwd)
	} else {
		add(cwd)
		for _, v := range []string{"TROLLIUSHOME", "LAMHOME"} {
			if d := getenv(v); d != "" {
				add(filepath.Join(d, "etc"))
			}
		}
		if l.Sysconfdir != "" {
			add(l.Sysconfdir)
		}
	}

	for _, p := range tried {
		found, err := usable(p)
		if err != nil {
			return "", err
		}
		if found {
			return p, nil
		}
	}
	return "", fmt.Errorf("boot schema %q not found; looked for %s: %w",
		name, strings.Join(tried, ", "), os.ErrNotExist)
}

// usable reports whether a readable boot schema is at p. A missing file
// is (false, nil); one that is there but cannot be read is an error.
func usable(p string) (bool, error) {
	// O_NONBLOCK so that probing a FIFO does not wait for a writer.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return false, nil
		}
		return false, fmt.Errorf("cannot read boot schema: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("cannot read boot schema: %w", err)
	}
	if fi.IsDir() {
		return false, fmt.Errorf("cannot read boot schema %s: %w", p, syscall.EISDIR)
	}
	return true, nil
}
