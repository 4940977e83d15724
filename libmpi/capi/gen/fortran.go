package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The Fortran 77 bindings, as gfortran calls them: lower case with one
// trailing underscore, every argument by reference, the error code in a
// last INTEGER argument. Handles are the C integers (MPI_Fint), so most
// bindings only dereference their scalars; a C status is MPI_STATUS_SIZE
// INTEGERs laid out as the Fortran one. Functions the rules below cannot
// bind (strings, which Fortran passes with hidden lengths; MPI_Init's
// argv; attribute values and callbacks; MPI-1's INTEGER addresses) are
// written by hand in fortran_special.c (or another fortran_*.c:
// fortran_dt.c has the datatype calls', fortran_attr.c the attribute
// calls') or listed as unbound in fortran.c's header.

// handleTypes are passed by Fortran as INTEGER.
var handleTypes = map[string]bool{
	"int": true, "MPI_Comm": true, "MPI_Group": true, "MPI_Datatype": true, "MPI_Request": true,
	"MPI_Op": true, "MPI_Errhandler": true, "MPI_Info": true, "MPI_Win": true, "MPI_Message": true,
}

// wideTypes are INTEGER(KIND=MPI_ADDRESS_KIND) or MPI_OFFSET_KIND.
var wideTypes = map[string]bool{"MPI_Aint": true, "MPI_Offset": true, "MPI_Count": true}

// procTypes are procedures whose Fortran form takes every argument by
// reference, as the C one does, so the address passes through.
var procTypes = map[string]bool{
	"MPI_User_function": true, "MPI_Handler_function": true,
	"MPI_Comm_errhandler_fn": true, "MPI_Comm_errhandler_function": true,
}

// notBuffers are functions whose void * argument is not a message buffer.
var notBuffers = map[string]bool{
	"Attr_put": true, "Attr_get": true, "Comm_set_attr": true, "Comm_get_attr": true,
	"Type_set_attr": true, "Type_get_attr": true, "Keyval_create": true,
	"Comm_create_keyval": true, "Type_create_keyval": true, "Buffer_detach": true,
	"Grequest_start": true, "Address": true, "Get_address": true,
}

// cOnly are the functions MPI gives no Fortran binding.
var cOnly = map[string]bool{"Status_c2f": true, "Status_f2c": true}

// mpi1Addresses are MPI-1 functions whose address arguments are MPI_Aint
// in C but plain INTEGER in Fortran 77: they need conversions written by
// hand (fortran_dt.c).
var mpi1Addresses = map[string]bool{
	"Address": true, "Type_extent": true, "Type_lb": true, "Type_ub": true,
	"Type_hvector": true, "Type_hindexed": true, "Type_struct": true,
}

// fortranArg is how one parameter crosses from Fortran: its C declaration
// in the binding and the expression passed on; ok is false when the rules
// cannot bind it.
func fortranArg(fn string, p param) (decl, arg string, ok bool) {
	switch {
	case p.base == "void" && p.ptr == 1 && !notBuffers[fn]:
		return "void *" + p.name, "lamgo_f2c_buf(" + p.name + ")", true
	case handleTypes[p.base] && p.ptr == 0:
		return "MPI_Fint *" + p.name, "(" + p.base + ")*" + p.name, true
	case wideTypes[p.base] && p.ptr == 0:
		return p.base + " *" + p.name, "*" + p.name, true
	case handleTypes[p.base] && p.ptr == 1 && p.dims == "":
		return "MPI_Fint *" + p.name, "(" + p.base + " *)" + p.name, true
	case p.base == "int" && p.ptr == 1 && p.dims != "":
		return "MPI_Fint *" + p.name, "(int (*)" + p.dims + ")" + p.name, true
	case wideTypes[p.base] && p.ptr == 1:
		return p.base + " *" + p.name, p.name, true
	case p.base == "MPI_Status" && p.ptr == 1:
		return "MPI_Fint *" + p.name, "lamgo_f2c_status(" + p.name + ")", true
	case procTypes[p.base] && p.ptr == 1:
		return p.base + " *" + p.name, p.name, true
	}
	return "", "", false
}

var specialRE = regexp.MustCompile(`(?m)^\w[\w \*]*\bpmpi_(\w+)_\s*\(`)

// fortranSpecials lists the functions bound by hand in fortran_special.c
// and the other fortran_*.c files (by their C names' suffix: "Init" for
// pmpi_init_).
func fortranSpecials(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "fortran_*.c"))
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, s := range specialRE.FindAllSubmatch(b, -1) {
			m[string(s[1])] = true
		}
	}
	return m, nil
}

// fortranBinding is the generated binding of d, or ok false when the
// rules above cannot bind it.
func fortranBinding(d decl) (code string, ok bool) {
	if d.ret != "int" || mpi1Addresses[d.name] {
		return "", false
	}
	var decls, args []string
	for _, p := range d.params {
		dc, a, good := fortranArg(d.name, p)
		if !good {
			return "", false
		}
		decls, args = append(decls, dc), append(args, a)
	}
	decls = append(decls, "MPI_Fint *ierr")
	lower := strings.ToLower(d.name)
	return fmt.Sprintf("\nvoid pmpi_%s_(%s)\n{\n\t*ierr = MPI_%s(%s);\n}\n#pragma weak mpi_%s_ = pmpi_%s_\n",
		lower, strings.Join(decls, ", "), d.name, strings.Join(args, ", "), lower, lower), true
}

// unboundFortran lists the functions of ds with no Fortran binding: not
// C-only, not bound by hand (special) and not bindable by the rules.
func unboundFortran(ds []decl, special map[string]bool) []string {
	var unbound []string
	for _, d := range ds {
		if special[strings.ToLower(d.name)] || cOnly[d.name] {
			continue
		}
		if _, ok := fortranBinding(d); !ok {
			unbound = append(unbound, "MPI_"+d.name)
		}
	}
	sort.Strings(unbound)
	return unbound
}

func renderFortran(ds []decl, special map[string]bool) []byte {
	var body bytes.Buffer
	for _, d := range ds {
		if special[strings.ToLower(d.name)] || cOnly[d.name] {
			continue
		}
		if code, ok := fortranBinding(d); ok {
			body.WriteString(code)
		}
	}
	unbound := unboundFortran(ds, special)
	var b bytes.Buffer
	b.WriteString(`// Code generated by gen from include/mpi.h; DO NOT EDIT.

// The Fortran 77 bindings (gfortran's names: mpi_send_), each a strong
// pmpi_ symbol and a weak mpi_ alias. They call the C MPI_ functions, so
// a C profiling library sees Fortran calls too.
`)
	if len(unbound) > 0 {
		b.WriteString("//\n// Not bound for Fortran (see gen/fortran.go):\n")
		for _, u := range unbound {
			b.WriteString("//   " + u + "\n")
		}
	}
	b.WriteString("\n#include \"mpi.h\"\n#include \"fortran.h\"\n")
	b.Write(body.Bytes())
	return b.Bytes()
}

var (
	defineRE = regexp.MustCompile(`^#define (MPI_\w+|LAM_\w+)\s+(.+?)\s*(?:/\*.*)?$`)
	castRE   = regexp.MustCompile(`^\(\((MPI_\w+)\)\s*(-?\d+)\)$`)
	numRE    = regexp.MustCompile(`^\(?(-?\d+)\)?$`)
)

// fortranOnly are mpif.h's own constants (the Fortran status is an array
// whose first three elements are MPI_SOURCE, MPI_TAG, MPI_ERROR).
var fortranOnly = [][2]string{
	{"MPI_STATUS_SIZE", "6"}, {"MPI_SOURCE", "1"}, {"MPI_TAG", "2"}, {"MPI_ERROR", "3"},
	{"MPI_ADDRESS_KIND", "8"}, {"MPI_OFFSET_KIND", "8"}, {"MPI_COUNT_KIND", "8"}, {"MPI_INTEGER_KIND", "4"},
}

// renderMpif writes mpif.h: every integer constant of mpi.h as an INTEGER
// PARAMETER, the Fortran status indexes, the common blocks whose
// addresses stand for MPI_BOTTOM, MPI_IN_PLACE and the ignored statuses,
// the functions that return values, and the predefined attribute
// callbacks.
func renderMpif(h []byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`! Code generated by gen from include/mpi.h; DO NOT EDIT.
!
! mpif.h: the Fortran 77 interface of LAM/Go's MPI library. The
! constants are mpi.h's (LAM 7.1.4's values); handles are INTEGERs.
!
`)
	names := map[string]bool{}
	emit := func(name, val string) {
		if names[name] {
			return
		}
		names[name] = true
		fmt.Fprintf(&b, "      INTEGER %s\n      PARAMETER (%s=%s)\n", name, name, val)
	}
	for _, c := range fortranOnly {
		emit(c[0], c[1])
	}
	for _, line := range strings.Split(string(h), "\n") {
		m := defineRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		name, val := m[1], strings.TrimSpace(m[2])
		if c := castRE.FindStringSubmatch(val); c != nil {
			val = c[2]
		} else if n := numRE.FindStringSubmatch(val); n != nil {
			val = n[1]
		} else {
			continue // pointers (MPI_BOTTOM …), aliases, function-like macros
		}
		if _, err := strconv.Atoi(val); err != nil {
			return nil, fmt.Errorf("mpi.h: %s: %q is not an integer", name, val)
		}
		if len(name) > 31 {
			continue // longer than a Fortran 77 name may be
		}
		emit(name, val)
	}
	// Aliases: #define A B where B is already a constant.
	for _, line := range strings.Split(string(h), "\n") {
		m := defineRE.FindStringSubmatch(strings.TrimSpace(line))
		if m != nil && names[strings.TrimSpace(m[2])] && len(m[1]) <= 31 {
			emit(m[1], strings.TrimSpace(m[2]))
		}
	}
	b.WriteString(`!
! Special addresses: a buffer argument at one of these means MPI_BOTTOM
! or MPI_IN_PLACE, a status at these MPI_STATUS_IGNORE or
! MPI_STATUSES_IGNORE.
      INTEGER MPI_BOTTOM, MPI_IN_PLACE
      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE)
      COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM
      COMMON /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE
      COMMON /MPI_FORTRAN_STATUS_IGNORE/ MPI_STATUS_IGNORE
      COMMON /MPI_FORTRAN_STATUSES_IGNORE/ MPI_STATUSES_IGNORE
!
      DOUBLE PRECISION MPI_WTIME, MPI_WTICK
      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK
      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF
      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF
      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF
      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF
!
! The predefined attribute copy and delete functions (subroutines).
      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN
      EXTERNAL MPI_COMM_DUP_FN
      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN
      EXTERNAL MPI_TYPE_DUP_FN
`)
	return b.Bytes(), nil
}
