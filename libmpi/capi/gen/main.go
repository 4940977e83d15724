// Command gen writes the C side of the C ABI from mpi.h: for every
// function declared there with LAMGO_DECL it writes the strong PMPI_
// definition, which calls the implementation capi_<Name> (a Go function
// exported with //export, or a C function in a hand-written .c file), and
// the weak MPI_ alias, as the MPI profiling interface expects. It also
// writes fortran.c and include/mpif.h (fortran.go) and the test programs
// testdata/*_null.c (nulltest.go).
//
// Run from libmpi/capi (go generate does): gen [-check]. With -check it
// writes nothing and fails when pmpi.c is stale or when a declared
// function has no implementation (or an implementation no declaration).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A decl is one LAMGO_DECL line of mpi.h.
type decl struct {
	ret, name string
	params    []param
}

type param struct {
	text string // as written
	name string
	cast string // a cast that drops const, or ""
	base string // the type without const, * and []: "int", "MPI_Comm", "void"
	ptr  int    // levels of pointer ("*" or a leading "[]")
	dims string // array suffix after the first "[]", e.g. "[3]" of "[][3]"
}

var (
	declRE   = regexp.MustCompile(`^LAMGO_DECL\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*)\)\s*\);\s*$`)
	exportRE = regexp.MustCompile(`(?m)^//export (capi_\w+)\s*$`)
	cdefRE   = regexp.MustCompile(`(?m)^[A-Za-z_][\w \*]*\b(capi_\w+)\s*\([^;]*$`)
	nameRE   = regexp.MustCompile(`^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$`)
)

func main() {
	check := flag.Bool("check", false, "fail if pmpi.c is stale; write nothing")
	flag.Parse()
	if err := run(".", *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string, check bool) error {
	h, err := os.ReadFile(filepath.Join(dir, "include", "mpi.h"))
	if err != nil {
		return err
	}
	decls, err := parse(h)
	if err != nil {
		return err
	}
	impl, err := implementations(dir)
	if err != nil {
		return err
	}
	var problems []string
	declared := map[string]bool{}
	for _, d := range decls {
		declared["capi_"+d.name] = true
		if !impl["capi_"+d.name] {
			problems = append(problems, fmt.Sprintf("MPI_%s is declared in mpi.h but capi_%s is not implemented", d.name, d.name))
		}
	}
	for f := range impl {
		if !declared[f] {
			problems = append(problems, fmt.Sprintf("%s is implemented but mpi.h has no LAMGO_DECL for it", f))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	special, err := fortranSpecials(dir)
	if err != nil {
		return err
	}
	mpif, err := renderMpif(h)
	if err != nil {
		return err
	}
	outs := []struct {
		path string
		b    []byte
	}{
		{filepath.Join(dir, "pmpi.c"), render(decls)},
		{filepath.Join(dir, "fortran.c"), renderFortran(decls, special)},
		{filepath.Join(dir, "include", "mpif.h"), mpif},
	}
	for path, b := range nullTestFiles(dir, decls) {
		outs = append(outs, struct {
			path string
			b    []byte
		}{path, b})
	}
	for _, o := range outs {
		if check {
			old, err := os.ReadFile(o.path)
			if err != nil || !bytes.Equal(old, o.b) {
				return fmt.Errorf("%s is stale: run go generate ./libmpi/capi", filepath.Base(o.path))
			}
			continue
		}
		if err := os.WriteFile(o.path, o.b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func parse(h []byte) ([]decl, error) {
	var ds []decl
	seen := map[string]bool{}
	for i, line := range strings.Split(string(h), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "LAMGO_DECL(") {
			continue
		}
		m := declRE.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("mpi.h:%d: cannot read %q (one declaration per line: LAMGO_DECL(ret, Name, (params));)", i+1, line)
		}
		d := decl{ret: m[1], name: m[2]}
		if seen[d.name] {
			return nil, fmt.Errorf("mpi.h:%d: MPI_%s declared twice", i+1, d.name)
		}
		seen[d.name] = true
		if p := strings.TrimSpace(m[3]); p != "void" && p != "" {
			for _, t := range strings.Split(p, ",") {
				pp, err := readParam(strings.TrimSpace(t))
				if err != nil {
					return nil, fmt.Errorf("mpi.h:%d: %w", i+1, err)
				}
				d.params = append(d.params, pp)
			}
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func readParam(t string) (param, error) {
	m := nameRE.FindStringSubmatch(t)
	if m == nil || strings.TrimSpace(m[1]) == "" {
		return param{}, fmt.Errorf("parameter %q has no type and name", t)
	}
	p := param{text: t, name: m[2]}
	typ := strings.TrimSpace(m[1])
	p.base = strings.Join(strings.Fields(strings.NewReplacer("const", "", "*", " ").Replace(typ)), " ")
	p.ptr = strings.Count(typ, "*")
	if strings.HasPrefix(m[3], "[]") {
		p.ptr++
		p.dims = m[3][2:]
	}
	if strings.Contains(typ, "const") {
		typ = strings.TrimSpace(strings.ReplaceAll(typ, "const", ""))
		switch m[3] {
		case "":
		case "[]":
			typ += " *"
		default:
			return param{}, fmt.Errorf("parameter %q: const arrays of arrays are not supported", t)
		}
		p.cast = "(" + strings.Join(strings.Fields(typ), " ") + ")"
	}
	return p, nil
}

// implementations lists the capi_ functions exported from Go files or
// defined in hand-written C files of dir.
func implementations(dir string) (map[string]bool, error) {
	impl := map[string]bool{}
	for _, pat := range []string{"*.go", "*.c"} {
		files, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if base := filepath.Base(f); base == "pmpi.c" || base == "fortran.c" || strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			re := exportRE
			if strings.HasSuffix(f, ".c") {
				re = cdefRE
			}
			for _, m := range re.FindAllSubmatch(b, -1) {
				impl[string(m[1])] = true
			}
		}
	}
	return impl, nil
}

func render(ds []decl) []byte {
	var b bytes.Buffer
	b.WriteString(`// Code generated by gen from include/mpi.h; DO NOT EDIT.

// Each MPI function is a strong PMPI_ symbol calling its implementation
// and a weak MPI_ alias of it, so a profiling library can define MPI_
// and call PMPI_ (MPI-1 §8).

#include "mpi.h"
#include "capi.h"
`)
	for _, d := range ds {
		var ps, args []string
		for _, p := range d.params {
			ps = append(ps, p.text)
			args = append(args, p.cast+p.name)
		}
		plist := strings.Join(ps, ", ")
		if plist == "" {
			plist = "void"
		}
		fmt.Fprintf(&b, "\n%s PMPI_%s(%s)\n{\n\treturn capi_%s(%s);\n}\n#pragma weak MPI_%s = PMPI_%s\n",
			d.ret, d.name, plist, d.name, strings.Join(args, ", "), d.name, d.name)
	}
	return b.Bytes()
}
