// Package install finds the installation's directories. The prefix is the
// parent of the directory holding the running executable (so ./bin/lamboot
// in a source tree and /usr/local/bin/lamboot both work), unless $LAMHOME
// names another one, as in LAM.
package install

import (
	"os"
	"path/filepath"

	"github.com/lamgo/lam/shared/buildinfo"
)

// Paths are the installation's directories, named as laminfo -path names
// them.
type Paths struct {
	Prefix     string
	Bindir     string
	Libdir     string
	Incdir     string
	Pkglibdir  string
	Sysconfdir string
}

// Items lists laminfo's -path items in LAM's order.
var Items = []string{"prefix", "bindir", "libdir", "incdir", "pkglibdir", "sysconfdir"}

// Item returns the directory for one of Items.
func (p Paths) Item(name string) (string, bool) {
	switch name {
	case "prefix":
		return p.Prefix, true
	case "bindir":
		return p.Bindir, true
	case "libdir":
		return p.Libdir, true
	case "incdir":
		return p.Incdir, true
	case "pkglibdir":
		return p.Pkglibdir, true
	case "sysconfdir":
		return p.Sysconfdir, true
	}
	return "", false
}

// At returns the layout under prefix. For the system's prefix /usr (what
// "make install PREFIX=/usr" and the .deb install), the configuration is
// in /etc/lam and the C library and headers in /usr/lib/lam-go/lib and
// /usr/lib/lam-go/include, out of the way of other MPIs' (as Debian's LAM
// had /etc/lam and /usr/lib/lam).
func At(prefix string) Paths {
	if filepath.Clean(prefix) == "/usr" {
		pkg := filepath.Join(prefix, "lib", SystemPkgName)
		return Paths{Prefix: prefix, Bindir: filepath.Join(prefix, "bin"), Libdir: filepath.Join(pkg, "lib"),
			Incdir: filepath.Join(pkg, "include"), Pkglibdir: pkg, Sysconfdir: SystemSysconfdir}
	}
	return Paths{
		Prefix:     prefix,
		Bindir:     filepath.Join(prefix, "bin"),
		Libdir:     filepath.Join(prefix, "lib"),
		Incdir:     filepath.Join(prefix, "include"),
		Pkglibdir:  filepath.Join(prefix, "lib", "lam"),
		Sysconfdir: Sysconfdir(prefix),
	}
}

// SystemPkgName names LAM/Go's directory under /usr/lib in an
// installation in /usr.
const SystemPkgName = "lam-go"

// SystemSysconfdir is the configuration directory of an installation in
// /usr.
const SystemSysconfdir = "/etc/lam"

// Sysconfdir returns the configuration directory of the installation in
// prefix.
func Sysconfdir(prefix string) string {
	if filepath.Clean(prefix) == "/usr" {
		return SystemSysconfdir
	}
	return filepath.Join(prefix, "etc")
}

// Find returns the running installation's layout. getenv is os.Getenv in
// production. Without $LAMHOME, the include and library directories are
// those the build was given (buildinfo.IncludeDir, buildinfo.LibDir)
// when it was given them.
func Find(getenv func(string) string) Paths {
	if h := getenv("LAMHOME"); h != "" {
		return At(filepath.Clean(h))
	}
	p := At("/usr/local")
	exe, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		p = At(filepath.Dir(filepath.Dir(exe)))
	}
	return withBuildDirs(p, buildinfo.IncludeDir, buildinfo.LibDir)
}

// withBuildDirs replaces p's include and library directories by inc and
// lib where they are set.
func withBuildDirs(p Paths, inc, lib string) Paths {
	if inc != "" {
		p.Incdir = filepath.Clean(inc)
	}
	if lib != "" {
		p.Libdir = filepath.Clean(lib)
	}
	return p
}
