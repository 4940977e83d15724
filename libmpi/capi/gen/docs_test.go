package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docsPath is docs/capi.md, from libmpi/capi/gen.
var docsPath = filepath.Join("..", "..", "..", "docs", "capi.md")

// Every function mpi.h declares is in one of docs/capi.md's tables, so
// the documentation cannot fall behind the library.
func TestDocsListEveryFunction(t *testing.T) {
	h, err := os.ReadFile(filepath.Join("..", "include", "mpi.h"))
	if err != nil {
		t.Fatal(err)
	}
	decls, err := parse(h)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	names, prefixes := documented(string(md))
	var missing []string
	for _, d := range decls {
		if !covered("MPI_"+d.name, names, prefixes) {
			missing = append(missing, "MPI_"+d.name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("declared in mpi.h but in no table of docs/capi.md (%d):\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

func covered(name string, names map[string]bool, prefixes []string) bool {
	if names[name] {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var codeRE = regexp.MustCompile("`([^`]+)`")

// documented reads the function names in the first cell of every table
// row of the docs. Within a cell the names are written as the docs write
// them:
//
//	`MPI_Type_contiguous`, `_vector`  MPI_Type_vector (a suffix of the
//	                                  last full name's leading words)
//	`MPI_Send`, `Bsend`               MPI_Bsend
//	`MPI_Neighbor_allgather(v)`       MPI_Neighbor_allgather, _allgatherv
//	`_alltoall(v,w)`                  …_alltoall, _alltoallv, _alltoallw
//	`MPI_Reduce_scatter(_block)`      MPI_Reduce_scatter, _block
//	`MPI_Cart_*`                      every name starting MPI_Cart_
//
// A suffix may attach after any of the last full name's words, so the
// set holds some names mpi.h does not have; that is harmless, as only
// mpi.h's names are looked up.
func documented(md string) (names map[string]bool, prefixes []string) {
	names = map[string]bool{}
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		last := ""
		for _, m := range codeRE.FindAllStringSubmatch(cells[1], -1) {
			tok := m[1]
			if strings.HasSuffix(tok, "*") {
				prefixes = append(prefixes, strings.TrimSuffix(tok, "*"))
				continue
			}
			var bases []string
			switch {
			case strings.HasPrefix(tok, "MPI_"):
				bases = []string{""}
			case strings.HasPrefix(tok, "_") && last != "":
				w := strings.Split(last, "_")
				for i := 1; i < len(w); i++ {
					bases = append(bases, strings.Join(w[:i], "_"))
				}
			default:
				bases = []string{"MPI_"}
			}
			for _, form := range variants(tok) {
				for _, b := range bases {
					names[b+form] = true
				}
			}
			if strings.HasPrefix(tok, "MPI_") {
				last = variants(tok)[0]
			}
		}
	}
	return names, prefixes
}

var optRE = regexp.MustCompile(`^(\w+)\(([\w,]+)\)$`)

// variants expands "X(v,w)" to X, Xv, Xw.
func variants(tok string) []string {
	m := optRE.FindStringSubmatch(tok)
	if m == nil {
		return []string{tok}
	}
	out := []string{m[1]}
	for _, s := range strings.Split(m[2], ",") {
		out = append(out, m[1]+s)
	}
	return out
}

func TestDocumented(t *testing.T) {
	md := "| Functions | Notes |\n|---|---|\n" +
		"| `MPI_Type_contiguous`, `_vector`, `MPI_Send`, `Bsend` | `MPI_Not_this` |\n" +
		"| `MPI_Dist_graph_create`, `_create_adjacent`, `MPI_Ineighbor_alltoall(v,w)`, `MPI_Reduce_scatter(_block)`, `MPI_Cart_*` | x |\n" +
		"`MPI_Outside_table` in text\n"
	names, prefixes := documented(md)
	for _, n := range []string{"MPI_Type_contiguous", "MPI_Type_vector", "MPI_Send", "MPI_Bsend",
		"MPI_Dist_graph_create_adjacent", "MPI_Ineighbor_alltoallw", "MPI_Ineighbor_alltoall",
		"MPI_Reduce_scatter_block", "MPI_Cart_shift"} {
		if !covered(n, names, prefixes) {
			t.Errorf("%s not found", n)
		}
	}
	for _, n := range []string{"MPI_Not_this", "MPI_Outside_table", "MPI_Recv", "MPI_Graph_map"} {
		if covered(n, names, prefixes) {
			t.Errorf("%s found", n)
		}
	}
}
