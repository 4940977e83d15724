package ssi

import "slices"

// Known reports whether a parameter of this full name exists in LAM/Go:
// registered in this program, or in the generated list of every
// framework's and module's parameters (knownparams.go), so that a program
// that links only some modules (an MPI process links no boot module)
// still tells a misspelt name from one of a module it does not carry.
func Known(full string) bool {
	if _, ok := LookupParam(full); ok {
		return true
	}
	_, found := slices.BinarySearch(knownParams, full)
	return found
}
