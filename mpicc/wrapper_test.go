package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/install"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

const (
	inc  = "-I/opt/lam/include"
	lib  = "-L/opt/lam/lib"
	rpth = "-Wl,-rpath,/opt/lam/lib"
)

func TestBuild(t *testing.T) {
	opt := install.At("/opt/lam")
	usr := install.At("/usr")
	tests := []struct {
		name   string // what the wrapper is called
		args   []string
		getenv func(string) string
		paths  install.Paths
		want   string // the command line it runs
	}{
		{"mpicc", []string{"-o", "ring", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -o ring ring.c " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		{"hcc", []string{"ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT ring.c " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		// Compile-only and preprocess-only: no link flags.
		{"mpicc", []string{"-c", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -c ring.c"},
		{"mpicc", []string{"-S", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -S ring.c"},
		{"mpicc", []string{"-E", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -E ring.c"},
		{"mpicc", []string{"-M", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -M ring.c"},
		{"mpicc", []string{"-MM", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -MM ring.c"},
		{"mpicc", []string{"-MD", "-o", "ring", "ring.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -MD -o ring ring.c " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		// -lpmpi is dropped: the PMPI names are in libmpi.
		{"mpicc", []string{"ring.c", "-lpmpi", "-lm"}, env(), opt, "gcc " + inc + " -D_REENTRANT ring.c -lm " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		{"mpicc", []string{"-c", "ring.c", "-lpmpi"}, env(), opt, "gcc " + inc + " -D_REENTRANT -c ring.c"},
		// Only options: no MPI flags at all, as LAM ("mpicc --version").
		{"mpicc", []string{"--version"}, env(), opt, "gcc --version"},
		{"mpicc", []string{"-v"}, env(), opt, "gcc -v"},
		{"mpicc", nil, env(), opt, "gcc"},
		// C++ and Fortran 77, under each of their names.
		{"mpiCC.lam-go", []string{"-c", "a.cc"}, env(), opt, "g++ " + inc + " -D_REENTRANT -c a.cc"}, // the .deb's alternatives
		{"mpiCC", []string{"a.cc"}, env(), opt, "g++ " + inc + " -D_REENTRANT a.cc " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		{"mpic++", []string{"-c", "a.cc"}, env(), opt, "g++ " + inc + " -D_REENTRANT -c a.cc"},
		{"hcp", []string{"-c", "a.cc"}, env(), opt, "g++ " + inc + " -D_REENTRANT -c a.cc"},
		{"mpif77", []string{"-o", "pi", "pi.f"}, env(), opt, "gfortran " + inc + " -o pi pi.f " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"},
		{"hf77", []string{"-c", "pi.f"}, env(), opt, "gfortran " + inc + " -c pi.f"},
		// A name the wrapper does not know compiles C.
		{"mpicc-1.0", []string{"-c", "a.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -c a.c"},
		{"/usr/local/bin/mpicc", []string{"-c", "a.c"}, env(), opt, "gcc " + inc + " -D_REENTRANT -c a.c"},
		// LAM's variables, strongest first; a value may hold several words.
		{"mpicc", []string{"-c", "a.c"}, env("LAMHCC", "cc"), opt, "cc " + inc + " -D_REENTRANT -c a.c"},
		{"mpicc", []string{"-c", "a.c"}, env("LAMHCC", "cc", "LAMCC", "clang"), opt, "clang " + inc + " -D_REENTRANT -c a.c"},
		{"mpicc", []string{"-c", "a.c"}, env("LAMHCC", "cc", "LAMCC", "clang", "LAMMPICC", "ccache gcc-12"), opt, "ccache gcc-12 " + inc + " -D_REENTRANT -c a.c"},
		{"mpicc", []string{"-c", "a.c"}, env("LAMMPICC", "", "LAMCC", "clang"), opt, "clang " + inc + " -D_REENTRANT -c a.c"},
		{"mpicc", []string{"-c", "a.c"}, env("LAMMPICXX", "clang++", "LAMMPIF77", "f77"), opt, "gcc " + inc + " -D_REENTRANT -c a.c"},
		{"mpiCC", []string{"-c", "a.cc"}, env("LAMHCP", "c++"), opt, "c++ " + inc + " -D_REENTRANT -c a.cc"},
		{"mpiCC", []string{"-c", "a.cc"}, env("LAMHCP", "c++", "LAMCXX", "clang++"), opt, "clang++ " + inc + " -D_REENTRANT -c a.cc"},
		{"mpiCC", []string{"-c", "a.cc"}, env("LAMCXX", "clang++", "LAMMPICXX", "g++-12"), opt, "g++-12 " + inc + " -D_REENTRANT -c a.cc"},
		{"mpiCC", []string{"-c", "a.cc"}, env("LAMMPICC", "clang"), opt, "g++ " + inc + " -D_REENTRANT -c a.cc"},
		{"mpif77", []string{"-c", "a.f"}, env("LAMHF77", "f77"), opt, "f77 " + inc + " -c a.f"},
		{"mpif77", []string{"-c", "a.f"}, env("LAMHF77", "f77", "LAMF77", "g77"), opt, "g77 " + inc + " -c a.f"},
		{"mpif77", []string{"-c", "a.f"}, env("LAMF77", "g77", "LAMMPIF77", "gfortran-12"), opt, "gfortran-12 " + inc + " -c a.f"},
		// Installed in /usr (make install PREFIX=/usr, the .deb): the
		// library and headers are in /usr/lib/lam-go, out of the way of
		// other MPIs' (shared/install).
		{"mpicc", []string{"a.c"}, env(), usr, "gcc -I/usr/lib/lam-go/include -D_REENTRANT a.c -L/usr/lib/lam-go/lib -Wl,-rpath,/usr/lib/lam-go/lib -rdynamic -lmpi -lpthread"},
		{"mpif77", []string{"a.f"}, env(), usr, "gfortran -I/usr/lib/lam-go/include a.f -L/usr/lib/lam-go/lib -Wl,-rpath,/usr/lib/lam-go/lib -rdynamic -lmpi -lpthread"},
		// Headers and library in the system's directories: no -I/usr/include
		// (but for Fortran) and no -L/usr/lib, which the compilers search.
		{"mpicc", []string{"a.c"}, env(), install.Paths{Prefix: "/usr", Bindir: "/usr/bin", Libdir: "/usr/lib", Incdir: "/usr/include"}, "gcc -D_REENTRANT a.c -rdynamic -lmpi -lpthread"},
		{"mpif77", []string{"a.f"}, env(), install.Paths{Prefix: "/usr", Bindir: "/usr/bin", Libdir: "/usr/lib", Incdir: "/usr/include"}, "gfortran -I/usr/include a.f -rdynamic -lmpi -lpthread"},
	}
	for _, tt := range tests {
		p := build(languageOf(tt.name), tt.args, tt.paths, tt.getenv, noProbe)
		if got := strings.Join(p.argv(), " "); got != tt.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.name, strings.Join(tt.args, " "), got, tt.want)
		}
		if p.show.any() {
			t.Errorf("%s %s: shows instead of running", tt.name, strings.Join(tt.args, " "))
		}
	}
}

func TestShowme(t *testing.T) {
	opt := install.At("/opt/lam")
	link := lib + " " + rpth + " -rdynamic -lmpi -lpthread"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"mpicc", []string{"-showme"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		{"mpicc", []string{"--showme"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		{"mpicc", []string{"-show"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		{"mpicc", []string{"-showme:compile"}, inc + " -D_REENTRANT \n"},
		{"mpicc", []string{"--showme:compile"}, inc + " -D_REENTRANT \n"},
		{"mpicc", []string{"-showme:link"}, link + " \n"},
		{"mpicc", []string{"--showme:link"}, link + " \n"},
		{"mpicc", []string{"-showme:bogus"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		{"mpicc", []string{"-showme", "-c", "x.c"}, "gcc " + inc + " -D_REENTRANT -c x.c \n"},
		{"mpicc", []string{"-showme", "x.c", "-o", "x"}, "gcc " + inc + " -D_REENTRANT x.c -o x " + link + " \n"},
		{"mpicc", []string{"-showme", "-v"}, "gcc " + inc + " -D_REENTRANT -v " + link + " \n"},
		{"mpicc", []string{"-showme:compile", "x.c"}, inc + " -D_REENTRANT x.c \n"},
		{"mpicc", []string{"-showme:link", "x.c", "-o", "x"}, "x.c -o x " + link + " \n"},
		{"mpicc", []string{"-showme", "-lpmpi"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		// Both parts asked for: the whole line, as LAM.
		{"mpicc", []string{"-showme:compile", "-showme:link"}, inc + " -D_REENTRANT " + link + " \n"},
		{"mpicc", []string{"-showme:link", "-showme"}, "gcc " + inc + " -D_REENTRANT " + link + " \n"},
		{"mpif77", []string{"-showme"}, "gfortran " + inc + " " + link + " \n"},
		{"mpiCC", []string{"-showme:compile"}, inc + " -D_REENTRANT \n"},
	}
	for _, tt := range tests {
		p := build(languageOf(tt.name), tt.args, opt, env(), noProbe)
		if got := p.shown(); !p.show.any() || got != tt.want {
			t.Errorf("%s %s:\n got %q\nwant %q", tt.name, strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

func TestRun(t *testing.T) {
	var ran []string
	fake := func(path string, argv, env []string) error {
		ran = append([]string{path}, argv...)
		return errors.New("exec refused by the test")
	}
	// -h: the framed usage on stderr, status 0, nothing run.
	var o, e bytes.Buffer
	if code := run([]string{"mpicc", "-h"}, env(), &o, &e, fake, noProbe); code != 0 || !strings.Contains(e.String(), "Synopsis:") ||
		!strings.HasPrefix(e.String(), strings.Repeat("-", 77)+"\n") || o.Len() != 0 || ran != nil {
		t.Errorf("mpicc -h: status %d, stdout %q, stderr %q, ran %q", code, o.String(), e.String(), ran)
	}
	// -showme: the line on stdout.
	o.Reset()
	e.Reset()
	if code := run([]string{"hf77", "-showme:compile"}, env("LAMHOME", "/opt/lam"), &o, &e, fake, noProbe); code != 0 || o.String() != inc+" \n" || ran != nil {
		t.Errorf("hf77 -showme:compile: status %d, stdout %q, stderr %q", code, o.String(), e.String())
	}
	// A compiler that is not there: LAM's message and status.
	o.Reset()
	e.Reset()
	if code := run([]string{"mpicc", "a.c"}, env("LAMMPICC", "no-such-compiler-xyz"), &o, &e, fake, noProbe); code != exitNoCompiler ||
		!strings.Contains(e.String(), `could not find the compiler "no-such-compiler-xyz"`) || ran != nil {
		t.Errorf("missing compiler: status %d, stderr %q, ran %q", code, e.String(), ran)
	}
	// Otherwise the compiler replaces the wrapper, found in PATH.
	o.Reset()
	e.Reset()
	code := run([]string{"mpicc", "-c", "a.c"}, env("LAMMPICC", "sh", "LAMHOME", "/opt/lam"), &o, &e, fake, noProbe)
	if len(ran) < 2 || !strings.HasSuffix(ran[0], "/sh") || !slices.Equal(ran[1:], []string{"sh", inc, "-D_REENTRANT", "-c", "a.c"}) {
		t.Errorf("exec: %q", ran)
	}
	if code != exitNoCompiler || !strings.Contains(e.String(), "exec refused by the test") {
		t.Errorf("a failed exec: status %d, stderr %q", code, e.String())
	}
	// Linking against a prefix without libmpi.so: LAM's warning, then
	// the compiler all the same.
	e.Reset()
	ran = nil
	run([]string{"mpicc", "a.c"}, env("LAMMPICC", "sh", "LAMHOME", t.TempDir()), &o, &e, fake, noProbe)
	if !strings.Contains(e.String(), "WARNING: mpicc expected to find ") || ran == nil {
		t.Errorf("missing libmpi.so: stderr %q, ran %q", e.String(), ran)
	}
	e.Reset()
	run([]string{"mpicc", "-c", "a.c"}, env("LAMMPICC", "sh", "LAMHOME", t.TempDir()), &o, &e, fake, noProbe)
	if strings.Contains(e.String(), "WARNING") {
		t.Errorf("compiling only warned about the library: %q", e.String())
	}
}

// TestCompilerStatus runs the built wrapper on real sources: the program
// builds, and a source that does not compile gives the compiler's status.
func TestCompilerStatus(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "bin", "hcc")
	if out, err := exec.Command("go", "build", "-o", wrapper, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "ok.c"), []byte("int main(void) { return 3; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.c"), []byte("int main(void) { return }\n"), 0o644)
	// Compile only: libmpi is not needed.
	cmd := exec.Command(wrapper, "-c", "ok.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hcc -c ok.c: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.o")); err != nil {
		t.Errorf("no object file: %v", err)
	}
	cmd = exec.Command(wrapper, "-c", "bad.c")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "error") {
		t.Errorf("hcc -c bad.c: %v\n%s", err, out)
	}
}

// FuzzBuild: any command line gives a plan whose user part is the
// arguments in order, less the -showme forms and -lpmpi, and whose
// command starts with the compiler.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{"-c\x00a.c", "-showme:link\x00x.c\x00-o\x00x", "--showme\x00-lpmpi", "", "-E\x00-M\x00-S", "\x00-"} {
		f.Add("mpicc", s)
		f.Add("hf77", s)
	}
	f.Fuzz(func(t *testing.T, name, joined string) {
		args := strings.Split(joined, "\x00")
		p := build(languageOf(name), args, install.At("/opt/lam"), env(), gfortran12)
		var want []string
		for _, a := range args {
			if _, ok := isShowme(a); !ok && a != "-lpmpi" {
				want = append(want, a)
			}
		}
		if !slices.Equal(p.user, want) {
			t.Fatalf("%q %q: user part %q, want %q", name, args, p.user, want)
		}
		argv := p.argv()
		if len(argv) == 0 || argv[0] != languageOf(name).compiler {
			t.Fatalf("%q %q: command %q", name, args, argv)
		}
		_ = p.shown()
	})
}

// noProbe is a compiler that does not say its version.
func noProbe([]string) string { return "" }

// gfortran12 is Debian 12's gfortran.
func gfortran12([]string) string {
	return "GNU Fortran (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n"
}

func TestGfortranMajor(t *testing.T) {
	tests := []struct {
		out   string
		major int
		ok    bool
	}{
		{"GNU Fortran (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright", 12, true},
		{"GNU Fortran (GCC) 10.2.1 20200825 (Red Hat 10.2.1-3)\n", 10, true},
		{"GNU Fortran (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n", 9, true},
		{"GNU Fortran (GCC) 4.8.5 20150623 (Red Hat 4.8.5-44)\n", 4, true},
		{"GNU Fortran 13.1.0\n", 13, true},
		{"GNU Fortran 13.1.0 (a build)\n", 13, true},
		{"GNU Fortran (Homebrew GCC 14.1.0) 14.1.0", 14, true},
		{"flang-new version 17.0.6\n", 0, false},
		{"ifort (IFORT) 2021.10.0 20230609\n", 0, false},
		{"GNU Fortran (broken\n", 0, false},
		{"GNU Fortran () x.y\n", 0, false},
		{"GNU Fortran (x) -3.1\n", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if m, ok := gfortranMajor(tt.out); m != tt.major || ok != tt.ok {
			t.Errorf("gfortranMajor(%q) = %d, %v; want %d, %v", tt.out, m, ok, tt.major, tt.ok)
		}
	}
}

func FuzzGfortranMajor(f *testing.F) {
	for _, s := range []string{"GNU Fortran (Debian 12.2.0-14+deb12u1) 12.2.0\n", "GNU Fortran 9", "GNU Fortran ()", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if m, ok := gfortranMajor(out); ok != (m > 0) || ok && !strings.HasPrefix(out, "GNU Fortran ") {
			t.Fatalf("gfortranMajor(%q) = %d, %v", out, m, ok)
		}
	})
}

// mpif77 adds -fallow-argument-mismatch when the compiler is gfortran 10
// or later, compiling or linking, unless the user chose; mpicc never asks.
func TestMismatchFlag(t *testing.T) {
	opt := install.At("/opt/lam")
	version := func(out string) versionProbe { return func([]string) string { return out } }
	gf9 := version("GNU Fortran (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n")
	gf10 := version("GNU Fortran (GCC) 10.2.1 20200825 (Red Hat 10.2.1-3)\n")
	flang := version("flang-new version 17.0.6\n")
	link := " " + lib + " " + rpth + " -rdynamic -lmpi -lpthread"
	tests := []struct {
		name  string
		args  []string
		probe versionProbe
		want  string
	}{
		{"mpif77", []string{"-o", "ring", "ring.f"}, gfortran12, "gfortran " + inc + " -fallow-argument-mismatch -o ring ring.f" + link},
		{"hf77", []string{"-c", "ring.f"}, gf10, "gfortran " + inc + " -fallow-argument-mismatch -c ring.f"},
		{"mpif77", []string{"-c", "ring.f"}, gf9, "gfortran " + inc + " -c ring.f"},
		{"mpif77", []string{"-c", "ring.f"}, flang, "gfortran " + inc + " -c ring.f"},
		{"mpif77", []string{"-c", "ring.f"}, noProbe, "gfortran " + inc + " -c ring.f"},
		// The user's choice wins, either way.
		{"mpif77", []string{"-fno-allow-argument-mismatch", "-c", "ring.f"}, gfortran12, "gfortran " + inc + " -fno-allow-argument-mismatch -c ring.f"},
		{"mpif77", []string{"-c", "ring.f", "-fallow-argument-mismatch"}, gfortran12, "gfortran " + inc + " -c ring.f -fallow-argument-mismatch"},
		// No MPI flags at all ("mpif77 --version"): nothing added.
		{"mpif77", []string{"--version"}, gfortran12, "gfortran --version"},
		{"mpicc", []string{"-c", "a.c"}, gfortran12, "gcc " + inc + " -D_REENTRANT -c a.c"},
	}
	for _, tt := range tests {
		p := build(languageOf(tt.name), tt.args, opt, env(), tt.probe)
		if got := strings.Join(p.argv(), " "); got != tt.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.name, strings.Join(tt.args, " "), got, tt.want)
		}
	}
	// -showme and -showme:compile show it.
	p := build(languageOf("mpif77"), []string{"-showme:compile"}, opt, env(), gfortran12)
	if got, want := p.shown(), inc+" -fallow-argument-mismatch \n"; got != want {
		t.Errorf("mpif77 -showme:compile: got %q, want %q", got, want)
	}
	// The probe asks the compiler the environment names.
	var asked []string
	build(languageOf("mpif77"), []string{"a.f"}, opt, env("LAMMPIF77", "ccache gfortran-12"), func(c []string) string {
		asked = c
		return ""
	})
	if !slices.Equal(asked, []string{"ccache", "gfortran-12"}) {
		t.Errorf("probed %q, want the LAMMPIF77 command", asked)
	}
}

// TestMismatchReal compiles, with the built wrapper and the real
// gfortran, a Fortran 77 file passing an INTEGER and a DOUBLE PRECISION
// buffer to MPI_SEND: it must compile with no flag from the user when
// gfortran is 10 or later (and fail with -fno-allow-argument-mismatch,
// which shows the test tests something).
func TestMismatchReal(t *testing.T) {
	if _, err := exec.LookPath("gfortran"); err != nil {
		t.Skip("no gfortran")
	}
	if m, ok := gfortranMajor(compilerVersion([]string{"gfortran"})); !ok || m < 10 {
		t.Skipf("gfortran %d needs no flag", m)
	}
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "bin", "mpif77")
	if out, err := exec.Command("go", "build", "-o", wrapper, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, "include"), 0o755)
	mpif, err := os.ReadFile("../libmpi/capi/include/mpif.h")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "include", "mpif.h"), mpif, 0o644)
	src := `      PROGRAM MIX
      INCLUDE 'mpif.h'
      INTEGER I, IERR
      DOUBLE PRECISION D
      CALL MPI_SEND(I, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(D, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD,
     &    IERR)
      END
`
	os.WriteFile(filepath.Join(dir, "mix.f"), []byte(src), 0o644)
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(wrapper, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LAMHOME="+dir)
		return cmd.CombinedOutput()
	}
	if out, err := run("-c", "mix.f"); err != nil {
		t.Fatalf("mpif77 -c mix.f: %v\n%s", err, out)
	}
	if out, err := run("-fno-allow-argument-mismatch", "-c", "mix.f"); err == nil {
		t.Errorf("mpif77 -fno-allow-argument-mismatch -c mix.f compiled:\n%s", out)
	}
	if out, _ := run("-showme"); !strings.Contains(string(out), "-fallow-argument-mismatch") {
		t.Errorf("mpif77 -showme: %s", out)
	}
}
