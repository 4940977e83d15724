package task

import (
	"reflect"
)

// Type is an element type, as mpitask's DATATYPE column names it.
type Type uint8

// The element types of the Go API, named as LAM names the C ones.
const (
	TypeNone Type = iota
	TypeByte
	TypeChar
	TypeUChar
	TypeShort
	TypeUShort
	TypeInt
	TypeUInt
	TypeLong
	TypeULong
	TypeFloat
	TypeDouble
	TypeComplex
	TypeDComplex
	TypeDerived
	typeEnd
)

var typeNames = [...]string{"", "BYTE", "CHAR", "UNSIGNED_CHAR", "SHORT", "UNSIGNED_SHORT", "INT", "UNSIGNED",
	"LONG", "UNSIGNED_LONG", "FLOAT", "DOUBLE", "COMPLEX", "DOUBLE_COMPLEX", "<derived>"}

func (t Type) String() string {
	if t < typeEnd {
		return typeNames[t]
	}
	return "?"
}

// kinds maps a Go kind to its Type (int and int64 are both LONG on the
// 64-bit machines we run on; int32 is INT).
var kinds = map[reflect.Kind]Type{
	reflect.Int8: TypeChar, reflect.Uint8: TypeByte, reflect.Int16: TypeShort, reflect.Uint16: TypeUShort,
	reflect.Int32: TypeInt, reflect.Uint32: TypeUInt, reflect.Int64: TypeLong, reflect.Uint64: TypeULong,
	reflect.Int: TypeLong, reflect.Uint: TypeULong, reflect.Float32: TypeFloat, reflect.Float64: TypeDouble,
	reflect.Complex64: TypeComplex, reflect.Complex128: TypeDComplex,
}

// TypeOf returns the Type of elements of type T. The common types cost a
// type switch; named types a map lookup.
func TypeOf[T any]() Type {
	switch any((*T)(nil)).(type) {
	case *byte:
		return TypeByte
	case *int32:
		return TypeInt
	case *int:
		return TypeLong
	case *int64:
		return TypeLong
	case *float64:
		return TypeDouble
	case *float32:
		return TypeFloat
	}
	if t, ok := kinds[reflect.TypeFor[T]().Kind()]; ok {
		return t
	}
	return TypeDerived
}
