package mpi

import "sync"

// User error classes and codes (MPI_Add_error_class, _code, _string).
// Classes and codes share one space of values above ErrLastCode: a class
// is also a code (of itself), as in MPI. An Error whose Class is a user
// code reports that code; ErrorClassOf gives its class.
var userErrs = struct {
	mu    sync.Mutex
	last  ErrorClass                // the last value given out
	class map[ErrorClass]ErrorClass // user code → its class
	str   map[ErrorClass]string     // strings set by AddErrorString
}{last: ErrLastCode, class: map[ErrorClass]ErrorClass{}, str: map[ErrorClass]string{}}

// AddErrorClass makes a new error class (MPI_Add_error_class). Its string
// is empty until AddErrorString sets one.
func AddErrorClass() (ErrorClass, error) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	userErrs.last++
	c := userErrs.last
	userErrs.class[c] = c
	return c, nil
}

// AddErrorCode makes a new error code of class (a predefined class or one
// of AddErrorClass's) (MPI_Add_error_code).
func AddErrorCode(class ErrorClass) (ErrorClass, error) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if !isClass(class) {
		return 0, errorf(ErrArg, "%d is not an error class", int(class))
	}
	userErrs.last++
	c := userErrs.last
	userErrs.class[c] = class
	return c, nil
}

// isClass reports whether c is a predefined or user error class; the
// caller holds userErrs.mu.
func isClass(c ErrorClass) bool {
	if c >= Success && c < ErrLastCode {
		return true
	}
	k, ok := userErrs.class[c]
	return ok && k == c
}

// AddErrorString sets the string ErrorString returns for a user error
// class or code (MPI_Add_error_string); the predefined ones keep theirs.
func AddErrorString(code ErrorClass, s string) error {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if _, ok := userErrs.class[code]; !ok {
		return errorf(ErrArg, "%d is not a user error class or code", int(code))
	}
	userErrs.str[code] = s
	return nil
}

// ErrorClassOf returns the class of an error code (MPI_Error_class): a
// class is its own, a user code the class it was made for.
func ErrorClassOf(code ErrorClass) (ErrorClass, error) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if code >= Success && code < ErrLastCode {
		return code, nil
	}
	if k, ok := userErrs.class[code]; ok {
		return k, nil
	}
	return 0, errorf(ErrArg, "%d is not an error code", int(code))
}

// LastUsedCode is the largest error code or class in use
// (MPI_LASTUSEDCODE): ErrLastCode until AddErrorClass or AddErrorCode
// make more.
func LastUsedCode() ErrorClass {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	return userErrs.last
}

// userString is the string of a user class or code, and whether c is one.
func userString(c ErrorClass) (string, bool) {
	if c < ErrLastCode {
		return "", false
	}
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if _, ok := userErrs.class[c]; !ok {
		return "", false
	}
	return userErrs.str[c], true
}
