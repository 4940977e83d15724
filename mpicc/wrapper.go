package main

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
)

// A language is what one name of the wrapper compiles: the compiler it
// runs unless the environment names another, and the variables that
// may, in LAM's precedence (the first one set wins).
type language struct {
	name     string   // for messages: "C", "C++", "Fortran 77"
	vars     []string // LAM's override variables, strongest first
	compiler string   // the default compiler command
	fortran  bool     // always -I the include directory; no -D_REENTRANT
}

func languages() map[string]language {
	c := language{"C", []string{"LAMMPICC", "LAMCC", "LAMHCC"}, buildinfo.CC, false}
	cxx := language{"C++", []string{"LAMMPICXX", "LAMCXX", "LAMHCP"}, buildinfo.CXX, false}
	f77 := language{"Fortran 77", []string{"LAMMPIF77", "LAMF77", "LAMHF77"}, buildinfo.FC, true}
	return map[string]language{
		"mpicc": c, "hcc": c,
		"mpiCC": cxx, "mpic++": cxx, "hcp": cxx,
		"mpif77": f77, "hf77": f77,
	}
}

// languageOf returns the language the wrapper compiles when it is called
// as argv0 (its base name, less the .lam-go the Debian package's
// alternatives add, as in mpiCC.lam-go); a name it does not know compiles
// C, as mpicc.
func languageOf(argv0 string) language {
	if l, ok := languages()[strings.TrimSuffix(filepath.Base(argv0), ".lam-go")]; ok {
		return l
	}
	return languages()["mpicc"]
}

// showme says what -showme asked the wrapper to print instead of
// running the compiler.
type showme struct{ cmd, compile, link bool }

func (s showme) any() bool { return s.cmd || s.compile || s.link }

// A plan is the command line the wrapper runs, in its parts, as LAM's
// wrapper engine assembles it: the compiler, the compile flags, the
// user's arguments, the link flags and the libraries.
type plan struct {
	compiler []string
	cflags   []string
	user     []string
	ldflags  []string
	libs     []string
	show     showme
}

// argv is the whole command line, as the wrapper runs it.
func (p plan) argv() []string {
	var out []string
	out = append(out, p.compiler...)
	out = append(out, p.cflags...)
	out = append(out, p.user...)
	out = append(out, p.ldflags...)
	return append(out, p.libs...)
}

// shown is what -showme, -showme:compile or -showme:link print: LAM's
// format, each word followed by a space, then a newline.
func (p plan) shown() string {
	var parts []string
	if p.show.cmd {
		parts = append(parts, p.compiler...)
	}
	if p.show.cmd || p.show.compile {
		parts = append(parts, p.cflags...)
	}
	parts = append(parts, p.user...)
	if p.show.cmd || p.show.link {
		parts = append(parts, p.ldflags...)
		parts = append(parts, p.libs...)
	}
	var b strings.Builder
	for _, w := range parts {
		b.WriteString(w)
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
	return b.String()
}

// isShowme reports whether an argument is one of LAM's -showme forms
// (-showme, -showme:WHAT, --showme…, -show, --show) and which.
func isShowme(a string) (what string, ok bool) {
	switch {
	case a == "-show" || a == "--show":
		return "", true
	case strings.HasPrefix(a, "--showme"):
		a = a[1:]
	case !strings.HasPrefix(a, "-showme"):
		return "", false
	}
	rest := strings.TrimPrefix(a, "-showme")
	if w, ok := strings.CutPrefix(rest, ":"); ok {
		return w, true
	}
	return "", true
}

// build makes the plan for args (the command line after the program's
// name) in lang, with the installation's include and library
// directories and the environment read through getenv.
//
// As LAM's wrappers:
//   - the MPI flags are added only when some argument is not an option (a
//     source or object file, an output name) or -showme was given, so
//     "mpicc --version" runs "gcc --version";
//   - -c, -S, -E and -M compile or preprocess only: no link flags (nor
//     with -MM, which LAM did not know);
//   - -lpmpi is dropped: the profiling names (PMPI_…) are in libmpi;
//   - the include directory is not passed when it is /usr/include (the
//     compiler looks there already), except to Fortran, nor the library
//     directory when it is /usr/lib;
//   - Fortran compiled by gfortran 10 or later gets
//     -fallow-argument-mismatch (see mismatchFlag); probe runs the
//     compiler to ask its version.
func build(lang language, args []string, paths install.Paths, getenv func(string) string, probe versionProbe) plan {
	var p plan
	wantFlags, link := false, true
	for _, a := range args {
		if what, ok := isShowme(a); ok {
			wantFlags = true
			switch what {
			case "compile":
				p.show.compile = true
			case "link":
				p.show.link = true
			default:
				p.show.cmd = true
			}
			continue
		}
		switch {
		case a == "-c" || a == "-S" || a == "-E" || a == "-M" || a == "-MM":
			link = false
		case a == "-lpmpi":
			continue
		case !strings.HasPrefix(a, "-"):
			wantFlags = true
		}
		p.user = append(p.user, a)
	}
	p.compiler = compiler(lang, getenv)
	if !wantFlags {
		return p
	}
	if lang.fortran || filepath.Clean(paths.Incdir) != "/usr/include" {
		p.cflags = append(p.cflags, "-I"+paths.Incdir)
	}
	if !lang.fortran {
		p.cflags = append(p.cflags, "-D_REENTRANT")
	}
	if lang.fortran && needsMismatchFlag(p.compiler, p.user, probe) {
		p.cflags = append(p.cflags, mismatchFlag)
	}
	if !link {
		return p
	}
	if filepath.Clean(paths.Libdir) != "/usr/lib" {
		p.ldflags = append(p.ldflags, "-L"+paths.Libdir, "-Wl,-rpath,"+paths.Libdir)
	}
	// The program's functions go in its dynamic symbol table, where
	// libmpi finds its checkpoint/restart callbacks (lam_cr_self_*,
	// docs/checkpoint.md) by name.
	p.ldflags = append(p.ldflags, "-rdynamic")
	p.libs = []string{"-lmpi", "-lpthread"}
	return p
}

// mismatchFlag lets gfortran 10 and later compile classic Fortran 77 MPI
// code, which passes buffers of several types to one routine (MPI_SEND of
// an INTEGER here, of a DOUBLE PRECISION there): without it gfortran
// rejects such a file. It only turns that error into a warning.
const mismatchFlag = "-fallow-argument-mismatch"

// A versionProbe runs the compiler command with --version and returns
// what it printed ("" when it cannot run).
type versionProbe func(compiler []string) string

// needsMismatchFlag reports whether the wrapper adds mismatchFlag: the
// compiler says it is GNU Fortran 10 or later, and the user's arguments
// do not already choose (-fallow-argument-mismatch or
// -fno-allow-argument-mismatch, which keeps gfortran's error).
func needsMismatchFlag(compiler, user []string, probe versionProbe) bool {
	for _, a := range user {
		if a == mismatchFlag || a == "-fno-allow-argument-mismatch" {
			return false
		}
	}
	major, ok := gfortranMajor(probe(compiler))
	return ok && major >= 10
}

// gfortranMajor is the major version in gfortran's --version output,
// whose first line is "GNU Fortran (<vendor's text>) 12.2.0 …"; ok is
// false for any other compiler.
func gfortranMajor(out string) (major int, ok bool) {
	line, _, _ := strings.Cut(out, "\n")
	rest, found := strings.CutPrefix(line, "GNU Fortran ")
	if !found {
		return 0, false
	}
	if strings.HasPrefix(rest, "(") {
		_, rest, _ = strings.Cut(rest, ")")
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0, false
	}
	m, _, _ := strings.Cut(f[0], ".")
	n, err := strconv.Atoi(m)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// compiler is the compiler command: the first of lang's variables that
// is set, else its default, split at spaces (so "ccache gcc" works).
func compiler(lang language, getenv func(string) string) []string {
	for _, v := range lang.vars {
		if s := getenv(v); s != "" {
			if f := strings.Fields(s); len(f) > 0 {
				return f
			}
		}
	}
	return strings.Fields(lang.compiler)
}

// paths returns the installation's directories: $LAMHOME's when it is
// set, else those this build was given (buildinfo.IncludeDir, LibDir),
// else the ones beside the executable (<exe>/../include, <exe>/../lib).
func paths(getenv func(string) string) install.Paths {
	return install.Find(getenv)
}
