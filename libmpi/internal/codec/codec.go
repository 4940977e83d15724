// Package codec turns Go values into message bytes and back, for the mpi
// package's value functions (SendValue, RecvValue, BcastValue, ...).
//
// A type of fixed size that holds no pointers (booleans, numbers, arrays
// and structs of them: Plain) travels as its own memory, and a slice of
// such a type (Slice) as its elements' memory, and a string (String) as
// its bytes, all without an encoding step (the same machine
// representation on every process, as the typed slices of the mpi
// package assume). Any other type travels as
// encoding/gob, wrapped in a struct so that nil pointers and interface
// values (of types given to gob.Register) travel too. Sender and receiver
// name the same type, as MPI's type-matching rule asks: the kind is
// chosen from the type, and nothing in the message says which it is.
package codec

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// Kind is how a type travels.
type Kind int

const (
	Gob    Kind = iota // encoding/gob
	Plain              // the value's memory
	Slice              // the memory of a slice's elements
	String             // a string's bytes
)

func (k Kind) String() string {
	switch k {
	case Plain:
		return "plain"
	case Slice:
		return "slice"
	case String:
		return "string"
	}
	return "gob"
}

// ErrSize is the error of a message whose size cannot be a value of the
// receiving type (the sender named another type).
var ErrSize = errors.New("the message's size does not fit the type")

// info is what the codec knows of a type.
type info struct {
	kind Kind
	size int // Plain: the value's size; Slice: an element's
}

var infos sync.Map // reflect.Type → info

func infoOf[T any]() info {
	t := reflect.TypeFor[T]()
	if i, ok := infos.Load(t); ok {
		return i.(info)
	}
	i := info{kind: Gob}
	switch {
	case plain(t):
		i = info{kind: Plain, size: int(t.Size())}
	case t.Kind() == reflect.Slice && plain(t.Elem()) && t.Elem().Size() > 0:
		i = info{kind: Slice, size: int(t.Elem().Size())}
	case t.Kind() == reflect.String:
		i = info{kind: String}
	}
	infos.Store(t, i)
	return i
}

// KindOf says how values of type T travel.
func KindOf[T any]() Kind { return infoOf[T]().kind }

// plain reports whether t has a fixed size and holds no pointers
// (uintptr is left out: it usually holds an address).
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// box wraps a gob-encoded value, so that a nil pointer or an interface
// value is a field (which gob allows) rather than the top-level value
// (which it refuses).
type box[T any] struct{ V T }

// memory is the memory of *v (Plain), of its elements (Slice) or of its
// bytes (String).
func memory[T any](v *T, i info) []byte {
	switch i.kind {
	case Plain:
		return unsafe.Slice((*byte)(unsafe.Pointer(v)), i.size)
	case String:
		s := reflect.ValueOf(v).Elem().String()
		if len(s) == 0 {
			return []byte{}
		}
		return unsafe.Slice(unsafe.StringData(s), len(s))
	}
	s := reflect.ValueOf(v).Elem()
	if s.Len() == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(s.UnsafePointer()), s.Len()*i.size)
}

// Encode returns the message bytes of *v, never nil. For Plain, Slice and
// String types they are v's own memory, not a copy: *v (and a slice's
// elements) must not change until the message has been sent.
func Encode[T any](v *T) ([]byte, error) {
	i := infoOf[T]()
	if i.kind != Gob {
		return memory(v, i), nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(box[T]{*v}); err != nil {
		return []byte{}, fmt.Errorf("encoding a %v: %w", reflect.TypeFor[T](), err)
	}
	return b.Bytes(), nil
}

// Target returns where a message of n bytes for *v is received; direct
// says that receiving into it sets *v (no Decode). For a Slice type it
// sets *v to a new slice of the message's length first.
func Target[T any](v *T, n int) (buf []byte, direct bool, err error) {
	i := infoOf[T]()
	switch i.kind {
	case Plain:
		if n != i.size {
			return nil, false, fmt.Errorf("%w: %d bytes for a %v (%d bytes)", ErrSize, n, reflect.TypeFor[T](), i.size)
		}
		return memory(v, i), true, nil
	case Slice:
		if n%i.size != 0 {
			return nil, false, fmt.Errorf("%w: %d bytes for a %v (elements of %d bytes)", ErrSize, n, reflect.TypeFor[T](), i.size)
		}
		s := reflect.ValueOf(v).Elem()
		if n == 0 {
			s.SetZero() // a nil slice, as gob gives for an empty one
			return []byte{}, true, nil
		}
		s.Set(reflect.MakeSlice(s.Type(), n/i.size, n/i.size))
		return memory(v, i), true, nil
	}
	return make([]byte, n), false, nil // Gob, String
}

// Decode sets *v from a message's bytes (copying them: b may be reused
// afterwards).
func Decode[T any](b []byte, v *T) error {
	i := infoOf[T]()
	switch i.kind {
	case String:
		reflect.ValueOf(v).Elem().SetString(string(b))
		return nil
	case Plain, Slice:
		buf, _, err := Target(v, len(b))
		if err != nil {
			return err
		}
		copy(buf, b)
		return nil
	}
	var out box[T]
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&out); err != nil {
		return fmt.Errorf("decoding a %v: %w", reflect.TypeFor[T](), err)
	}
	*v = out.V
	return nil
}
