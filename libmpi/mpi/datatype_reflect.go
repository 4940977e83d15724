package mpi

import (
	"reflect"
	"sync"
)

// typeCache holds the datatypes TypeOfReflect built, by Go type.
var typeCache sync.Map // reflect.Type -> *Datatype

// TypeOf is the datatype of the Go type T, built by reflection (see
// TypeOfReflect): with it a []T goes out as SendType(c, AsBytes(s),
// len(s), d, …) without hand-written displacements.
func TypeOf[T any]() (*Datatype, error) { return TypeOfReflect(reflect.TypeFor[T]()) }

// TypeOfReflect is the datatype of the Go type t: the fixed-size numeric
// kinds and bool map to the predefined types, arrays to contiguous types
// and structs to struct types at their fields' offsets (unsafe.Offsetof),
// nested to any depth, each with extent unsafe.Sizeof. Types that hold
// pointers (pointers, strings, slices, maps, channels, functions,
// interfaces) cannot be sent as data and get an ErrType error naming the
// field. Results are cached, so calling it again is cheap.
func TypeOfReflect(t reflect.Type) (*Datatype, error) {
	if t == nil {
		return nil, errorf(ErrType, "nil reflect.Type")
	}
	if d, ok := typeCache.Load(t); ok {
		return d.(*Datatype), nil
	}
	d, err := typeOf(t, t.String())
	if err != nil {
		return nil, err
	}
	typeCache.Store(t, d)
	return d, nil
}

func typeOf(t reflect.Type, path string) (*Datatype, error) {
	var d *Datatype
	switch t.Kind() {
	case reflect.Bool:
		d = Bool
	case reflect.Int8:
		d = Int8
	case reflect.Uint8:
		d = Uint8
	case reflect.Int16:
		d = Int16
	case reflect.Uint16:
		d = Uint16
	case reflect.Int32:
		d = Int32
	case reflect.Uint32:
		d = Uint32
	case reflect.Int64:
		d = Int64
	case reflect.Uint64:
		d = Uint64
	case reflect.Int:
		d = sized(t, Int32, Int64)
	case reflect.Uint, reflect.Uintptr:
		d = sized(t, Uint32, Uint64)
	case reflect.Float32:
		d = Float32
	case reflect.Float64:
		d = Float64
	case reflect.Complex64:
		d = Complex64
	case reflect.Complex128:
		d = Complex128
	case reflect.Array:
		elem, err := typeOf(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		if d, err = TypeContiguous(t.Len(), elem); err != nil {
			return nil, err
		}
	case reflect.Struct:
		var lens, displs []int
		var types []*Datatype
		for i := range t.NumField() {
			f := t.Field(i)
			ft, err := typeOf(f.Type, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			if f.Type.Size() == 0 {
				continue
			}
			lens, displs, types = append(lens, 1), append(displs, int(f.Offset)), append(types, ft)
		}
		var err error
		if d, err = TypeStruct(lens, displs, types); err != nil {
			return nil, err
		}
	default:
		return nil, errorf(ErrType, "%s is a %s: only fixed-size numbers, bools, arrays and structs of them can be sent as data", path, t.Kind())
	}
	if d.lb != 0 || d.Extent() != int(t.Size()) || d.align != t.Align() {
		// Go's layout rules decide: zero-size trailing fields, and
		// 64-bit numbers aligned to 4 bytes on 32-bit platforms.
		r, err := TypeCreateResized(d, 0, int(t.Size()))
		if err != nil {
			return nil, err
		}
		r.align = t.Align()
		d = r
	}
	if d.env.comb != CombinerNamed {
		c := *d
		c.attrs = attrSet{}
		c.name = t.String()
		d = &c
	}
	return d, nil
}

// sized picks the datatype of Go's int, uint or uintptr on this platform.
func sized(t reflect.Type, small, large *Datatype) *Datatype {
	if t.Size() == 4 {
		return small
	}
	return large
}

// AsBytes views a slice of fixed-size values (numbers, arrays and structs
// of them: the types TypeOf accepts) as its bytes in memory, without
// copying, for SendType, RecvType, Pack and Unpack with the datatype
// TypeOf[T] gives. It is ErrType if T holds pointers.
func AsBytes[T any](s []T) ([]byte, error) {
	if _, err := TypeOf[T](); err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return []byte{}, nil
	}
	return raw(s), nil
}
