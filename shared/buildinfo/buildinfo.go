// Package buildinfo holds what this build of the project is: its version
// and where, when and by whom it was built. The Makefile sets the build
// facts with -ldflags "-X"; a plain "go build" leaves them "unknown".
package buildinfo

import (
	"runtime"

	"github.com/lamgo/lam/shared/ssi"
)

// Name is the project's name, as the banner shows it.
const Name = "LAM/Go"

// Version is the project's version. Every tool's banner and laminfo show it
// in LAM's form (major.minor, then .release when it is not zero); every
// module this project implements reports its major and minor numbers as
// its module version.
var Version = ssi.Version{Major: 0, Minor: 1, Release: 0}

// ModuleVersion is the version every module of this project reports.
var ModuleVersion = ssi.Version{Major: Version.Major, Minor: Version.Minor}

// Build facts, set at link time by the Makefile.
var (
	ConfiguredBy  = "unknown"
	ConfiguredOn  = "unknown"
	ConfigureHost = "unknown"
)

// The compilers the wrapper compilers run (mpicc, mpiCC, mpif77) unless
// the user's environment names others, as LAM's configure --with-cc,
// --with-cxx and --with-fc chose them. Set at link time to change them.
var (
	CC  = "gcc"
	CXX = "g++"
	FC  = "gfortran"
)

// Where mpi.h, mpif.h and libmpi.so are installed, for the wrapper
// compilers and laminfo -path. Empty (a plain build, make build, make
// install) means beside the executables: <exe>/../include and
// <exe>/../lib. A package that installs them elsewhere sets these at
// link time; $LAMHOME still overrides both.
var (
	IncludeDir = ""
	LibDir     = ""
)

// Arch returns the GNU-style target triple LAM reported, derived from the
// Go target (for example x86_64-pc-linux-gnu).
func Arch() string {
	return arch(runtime.GOARCH, runtime.GOOS)
}

func arch(goarch, goos string) string {
	cpu := map[string]string{
		"amd64": "x86_64", "386": "i686", "arm64": "aarch64", "arm": "arm",
		"ppc64le": "powerpc64le", "ppc64": "powerpc64", "riscv64": "riscv64",
		"s390x": "s390x", "loong64": "loongarch64", "mips64le": "mips64el",
	}[goarch]
	if cpu == "" {
		cpu = goarch
	}
	switch goos {
	case "linux":
		if goarch == "arm" {
			return cpu + "-unknown-linux-gnueabihf"
		}
		return cpu + "-pc-linux-gnu"
	case "darwin":
		return cpu + "-apple-darwin"
	case "freebsd":
		return cpu + "-unknown-freebsd"
	}
	return cpu + "-unknown-" + goos
}
