package mpi_test

import (
	"errors"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestUserErrorClasses(t *testing.T) {
	before := mpi.LastUsedCode()
	if before < mpi.ErrLastCode {
		t.Fatalf("last used code %d", before)
	}
	class, err := mpi.AddErrorClass()
	if err != nil || class <= before {
		t.Fatalf("add class: %v %v", class, err)
	}
	code, err := mpi.AddErrorCode(class)
	if err != nil || code <= class || mpi.LastUsedCode() != code {
		t.Fatalf("add code: %v %v (last %d)", code, err, mpi.LastUsedCode())
	}
	code2, err := mpi.AddErrorCode(mpi.ErrOther)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mpi.AddErrorCode(code); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("a code of a code: %v", err)
	}
	if s := mpi.ErrorString(class); s != "" {
		t.Errorf("a class with no string: %q", s)
	}
	if err := mpi.AddErrorString(class, "my class"); err != nil {
		t.Fatal(err)
	}
	if err := mpi.AddErrorString(code, "my code"); err != nil {
		t.Fatal(err)
	}
	if err := mpi.AddErrorString(mpi.ErrRank, "no"); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("string of a predefined class: %v", err)
	}
	if err := mpi.AddErrorString(mpi.LastUsedCode()+1, "no"); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("string of an unknown code: %v", err)
	}
	if mpi.ErrorString(class) != "my class" || mpi.ErrorString(code) != "my code" || mpi.ErrorString(mpi.ErrRank) != "MPI_ERR_RANK" {
		t.Errorf("strings: %q %q", mpi.ErrorString(class), mpi.ErrorString(code))
	}
	for c, want := range map[mpi.ErrorClass]mpi.ErrorClass{class: class, code: class, code2: mpi.ErrOther, mpi.ErrTag: mpi.ErrTag} {
		if got, err := mpi.ErrorClassOf(c); got != want || err != nil {
			t.Errorf("class of %d: %d %v, want %d", c, got, err, want)
		}
	}
	if _, err := mpi.ErrorClassOf(-5); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("class of -5: %v", err)
	}
	// An error of a user code reads as its string and matches by code.
	e := &mpi.Error{Class: code, Msg: "disk full"}
	if e.Error() != "my code: disk full" || !errors.Is(e, &mpi.Error{Class: code}) || mpi.Class(e) != code {
		t.Errorf("user error: %v", e)
	}
}

func TestLastUsedCodeAttribute(t *testing.T) {
	if _, err := mpi.AddErrorClass(); err != nil {
		t.Fatal(err)
	}
	v, ok, err := mpi.GetAttr(mpi.World, mpi.KeyLastUsedCode)
	if !ok || err != nil || v != int(mpi.LastUsedCode()) || v <= int(mpi.ErrLastCode) {
		t.Errorf("MPI_LASTUSEDCODE: %d %v %v, last used %d", v, ok, err, mpi.LastUsedCode())
	}
}
