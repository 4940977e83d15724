package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The datatype calls' errors, each in a program of its own: under the
// default handler (MPI_ERRORS_ARE_FATAL) the program must die at the bad
// call with the function and the class named (LAM's message: the
// function, then LAM's text for the class), never reaching the line
// after it.
func TestDatatypeErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"free predefined", `MPI_Datatype t = MPI_INT; MPI_Type_free(&t);`, "MPI_Type_free: invalid datatype argument"},
		{"free twice", `MPI_Datatype t, u; MPI_Type_contiguous(2, MPI_INT, &t); u = t; MPI_Type_free(&t); MPI_Type_free(&u);`, "MPI_Type_free: invalid datatype argument"},
		{"invalid old type", `MPI_Datatype t; MPI_Type_contiguous(2, 12345, &t);`, "MPI_Type_contiguous: invalid datatype argument"},
		{"negative count", `MPI_Datatype t; MPI_Type_vector(-1, 1, 1, MPI_INT, &t);`, "MPI_Type_vector: invalid count argument"},
		{"negative blocklength", `MPI_Datatype t; int bl[1] = {-2}, dl[1] = {0}; MPI_Type_indexed(1, bl, dl, MPI_INT, &t);`, "MPI_Type_indexed: invalid count argument"},
		{"NULL newtype", `MPI_Type_dup(MPI_INT, NULL);`, "MPI_Type_dup: invalid argument"},
		{"send uncommitted", `MPI_Datatype t; int a[4]; MPI_Type_vector(2, 1, 2, MPI_INT, &t); MPI_Send(a, 1, t, 0, 0, MPI_COMM_WORLD);`, "MPI_Send: invalid datatype argument"},
		{"pack uncommitted", `MPI_Datatype t; int a[4], pos = 0; char out[16]; MPI_Type_vector(2, 1, 2, MPI_INT, &t); MPI_Pack(a, 1, t, out, 16, &pos, MPI_COMM_WORLD);`, "MPI_Pack: invalid datatype argument"},
		{"freed handle", `MPI_Datatype t, u; MPI_Type_contiguous(2, MPI_INT, &t); u = t; MPI_Type_free(&t); int s; MPI_Type_size(u, &s);`, "MPI_Type_size: invalid datatype argument"},
		{"contents of a predefined type", `int i[1]; MPI_Aint a[1]; MPI_Datatype d[1]; MPI_Type_get_contents(MPI_INT, 1, 1, 1, i, a, d);`, "MPI_Type_get_contents: invalid argument"},
		{"contents too small", `MPI_Datatype t, d[1]; int i[2]; MPI_Aint a[1]; MPI_Type_vector(2, 1, 2, MPI_INT, &t); MPI_Type_get_contents(t, 2, 0, 1, i, a, d);`, "MPI_Type_get_contents: invalid argument"},
		{"pack overflow", `int a[4] = {0}, pos = 0; char out[8]; MPI_Pack(a, 4, MPI_INT, out, 8, &pos, MPI_COMM_WORLD);`, "MPI_Pack: invalid buffer pointer"},
		{"pack overflow derived", `MPI_Datatype t; int a[4] = {0}, pos = 4; char out[8]; MPI_Type_vector(2, 1, 2, MPI_INT, &t); MPI_Type_commit(&t); MPI_Pack(a, 1, t, out, 8, &pos, MPI_COMM_WORLD);`, "MPI_Pack: invalid buffer pointer"},
		{"unpack past the end", `int a[4], pos = 0; char in[8] = {0}; MPI_Unpack(in, 8, &pos, a, 4, MPI_INT, MPI_COMM_WORLD);`, "MPI_Unpack: message truncated"},
		{"MPI_BOTTOM with offsets", `MPI_Datatype t; int a[4]; MPI_Type_vector(2, 1, 2, MPI_INT, &t); MPI_Type_commit(&t); MPI_Send(MPI_BOTTOM, 1, t, 0, 0, MPI_COMM_WORLD); (void)a;`, "MPI_Send: invalid buffer pointer"},
		{"unknown datarep", `int a = 1; MPI_Aint pos = 0; char out[8]; MPI_Pack_external("native", &a, 1, MPI_INT, out, 8, &pos);`, "MPI_Pack_external: invalid argument"},
		{"unknown distribution", `MPI_Datatype t; int g[1] = {4}, d[1] = {7}, a[1] = {MPI_DISTRIBUTE_DFLT_DARG}, p[1] = {1}; MPI_Type_create_darray(1, 0, 1, g, d, a, p, MPI_ORDER_C, MPI_INT, &t);`, "MPI_Type_create_darray: invalid argument"},
		{"no dimensions", `MPI_Datatype t; int s[1] = {4}; MPI_Type_create_subarray(0, s, s, s, MPI_ORDER_C, MPI_INT, &t);`, "MPI_Type_create_subarray: invalid dimension argument"},
		{"bad subarray", `MPI_Datatype t; int s[1] = {4}, ss[1] = {3}, st[1] = {2}; MPI_Type_create_subarray(1, s, ss, st, MPI_ORDER_C, MPI_INT, &t);`, "MPI_Type_create_subarray: invalid argument"},
	}
	dir := buildLib(t)
	inc, err := filepath.Abs("include")
	if err != nil {
		t.Fatal(err)
	}
	libdir := filepath.Join(dir, "lib")
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			tmp := t.TempDir()
			src := filepath.Join(tmp, "p.c")
			prog := "#include <stdio.h>\n#include <mpi.h>\nint main(int argc, char **argv)\n{\n\tMPI_Init(&argc, &argv);\n\t{\n\t\t" +
				tt.body + "\n\t}\n\tprintf(\"not reached\\n\");\n\tMPI_Finalize();\n\treturn 0;\n}\n"
			if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(tmp, "p")
			if out, err := exec.Command("gcc", "-Wall", "-Werror", "-Wno-unused-variable", "-I"+inc, "-o", exe, src,
				"-L"+libdir, "-Wl,-rpath,"+libdir, "-lmpi").CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s\n%s", err, out, prog)
			}
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err == nil || strings.Contains(string(out), "not reached") {
				t.Fatalf("the program went on past the bad call (%v):\n%s", err, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("output does not name %q:\n%s", tt.want, out)
			}
		})
	}
}
