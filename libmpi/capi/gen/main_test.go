package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pmpi.c must be what mpi.h says, and every declared function implemented.
func TestGeneratedUpToDate(t *testing.T) {
	if err := run("..", true); err != nil {
		t.Fatal(err)
	}
}

func TestReadParam(t *testing.T) {
	for _, tc := range []struct{ in, name, cast string }{
		{"int count", "count", ""},
		{"const void *buf", "buf", "(void *)"},
		{"const int array_of_ranks[]", "array_of_ranks", "(int *)"},
		{"const MPI_Datatype types[]", "types", "(MPI_Datatype *)"},
		{"int ranges[][3]", "ranges", ""},
		{"MPI_User_function *function", "function", ""},
		{"char ***argv", "argv", ""},
	} {
		p, err := readParam(tc.in)
		if err != nil || p.name != tc.name || p.cast != tc.cast {
			t.Errorf("readParam(%q) = %+v, %v; want name %q cast %q", tc.in, p, err, tc.name, tc.cast)
		}
	}
	for _, bad := range []string{"count", "const int r[][3]", ""} {
		if _, err := readParam(bad); err == nil {
			t.Errorf("readParam(%q): no error", bad)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, h := range []string{
		"LAMGO_DECL(int, Send, (void *buf,\n",                        // split over lines
		"LAMGO_DECL(int, A, (void));\nLAMGO_DECL(int, A, (void));\n", // twice
	} {
		if _, err := parse([]byte(h)); err == nil {
			t.Errorf("parse(%q): no error", h)
		}
	}
}

// A declaration without an implementation (or the reverse) is an error.
func TestMissingImplementation(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "include"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "testdata"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "include", "mpi.h"), []byte("LAMGO_DECL(int, Foo, (int x));\nLAMGO_DECL(double, Bar, (void));\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a.go"), []byte("package main\n\n//export capi_Foo\nfunc capi_Foo() {}\n\n//export capi_Baz\nfunc capi_Baz() {}\n"), 0o644))
	err := run(dir, false)
	if err == nil || !strings.Contains(err.Error(), "capi_Bar is not implemented") || !strings.Contains(err.Error(), "capi_Baz is implemented but") {
		t.Fatalf("run: %v", err)
	}
	must(os.WriteFile(filepath.Join(dir, "b.c"), []byte("double capi_Bar(void)\n{\n\treturn 0;\n}\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a.go"), []byte("package main\n\n//export capi_Foo\nfunc capi_Foo() {}\n"), 0o644))
	if err := run(dir, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pmpi.c"))
	must(err)
	if !strings.Contains(string(b), "int PMPI_Foo(int x)\n{\n\treturn capi_Foo(x);\n}\n#pragma weak MPI_Foo = PMPI_Foo") {
		t.Errorf("pmpi.c:\n%s", b)
	}
}
