package mpi

import "fmt"

// Datatypes in a checkpoint. CheckpointWriter.Datatype saves a datatype
// the way MPI describes it (MPI_Type_get_envelope/_contents): a
// predefined type by its name, an opaque type by its name, size and
// alignment, a derived type by its constructor, its arguments and the
// types it was made of (saved first, once each). A restart makes every
// saved type again with the same constructor, so it has the same type
// map, bounds and name; CheckpointReader.Datatype returns it.

// crType is a saved datatype.
type crType struct {
	Name  string
	Comb  Combiner
	Named bool // predefined (Size 0) or opaque (Size, Align)
	Size  int
	Align int
	Ints  []int
	Addrs []int
	Types []int // indexes of earlier entries of the saved table
	Attrs []crAttr
}

// predefinedTypes are the predefined datatypes, found by name at restart.
var predefinedTypes = map[string]*Datatype{}

func init() {
	for _, d := range []*Datatype{Byte, Char, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64,
		Float32, Float64, Complex64, Complex128, Bool, LB, UB} {
		predefinedTypes[d.name] = d
	}
}

// saveType adds d, and first the types it was made of, to the writer's
// table, and returns its index there.
func (w *CheckpointWriter) saveType(d *Datatype) (int, error) {
	for i, t := range w.types {
		if t == d {
			return i, nil
		}
	}
	a, err := saveAttrs(&d.attrs, "datatype "+d.name)
	if err != nil {
		return 0, errorf(ErrType, "%w", err)
	}
	s := crType{Name: d.name, Comb: d.env.comb, Attrs: a}
	if d.env.comb == CombinerNamed {
		s.Named = true
		if predefinedTypes[d.name] != d {
			s.Size, s.Align = d.size, d.align // opaque (TypeOpaque)
		}
	} else {
		s.Ints, s.Addrs = clone(d.env.ints), clone(d.env.addrs)
		for _, t := range d.env.types {
			i, err := w.saveType(t)
			if err != nil {
				return 0, err
			}
			s.Types = append(s.Types, i)
		}
	}
	w.types = append(w.types, d)
	w.saved = append(w.saved, s)
	return len(w.types) - 1, nil
}

// restoreTypes makes the saved types again, in order.
func restoreTypes(saved []crType) ([]*Datatype, error) {
	out := make([]*Datatype, 0, len(saved))
	for i, s := range saved {
		var olds []*Datatype
		for _, j := range s.Types {
			if j < 0 || j >= i {
				return nil, fmt.Errorf("datatype %d (%s) is made of datatype %d, not an earlier one", i, s.Name, j)
			}
			olds = append(olds, out[j])
		}
		d, err := rebuildType(s, olds)
		if err != nil {
			return nil, fmt.Errorf("datatype %d (%s): %w", i, s.Name, err)
		}
		if err := restoreAttrs(&d.attrs, d, "type:", "datatype "+s.Name, s.Attrs); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// rebuildType calls s's constructor again with its arguments.
func rebuildType(s crType, olds []*Datatype) (*Datatype, error) {
	if s.Named {
		if s.Size == 0 {
			d := predefinedTypes[s.Name]
			if d == nil {
				return nil, fmt.Errorf("no predefined datatype %q", s.Name)
			}
			return d, nil
		}
		return TypeOpaque(s.Name, s.Size, s.Align)
	}
	ints, addrs := s.Ints, s.Addrs
	// shape checks the argument counts; n is the leading count where the
	// constructor has one.
	shape := func(nInts, nAddrs, nTypes int) error {
		if len(ints) != nInts || len(addrs) != nAddrs || len(olds) != nTypes {
			return fmt.Errorf("%v with %d integers, %d addresses and %d types", s.Comb, len(ints), len(addrs), len(olds))
		}
		return nil
	}
	lead := func() (int, error) {
		if len(ints) == 0 || ints[0] < 0 || ints[0] > len(ints) {
			return 0, fmt.Errorf("%v with bad arguments %v", s.Comb, ints)
		}
		return ints[0], nil
	}
	var d *Datatype
	var err error
	switch s.Comb {
	case CombinerDup:
		if err = shape(0, 0, 1); err == nil {
			d, err = TypeDup(olds[0])
		}
	case CombinerContiguous:
		if err = shape(1, 0, 1); err == nil {
			d, err = TypeContiguous(ints[0], olds[0])
		}
	case CombinerVector:
		if err = shape(3, 0, 1); err == nil {
			d, err = TypeVector(ints[0], ints[1], ints[2], olds[0])
		}
	case CombinerHvector:
		if err = shape(2, 1, 1); err == nil {
			d, err = TypeHvector(ints[0], ints[1], addrs[0], olds[0])
		}
	case CombinerIndexed:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(1+2*n, 0, 1); err == nil {
				d, err = TypeIndexed(ints[1:1+n], ints[1+n:], olds[0])
			}
		}
	case CombinerHindexed:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(1+n, n, 1); err == nil {
				d, err = TypeHindexed(ints[1:], addrs, olds[0])
			}
		}
	case CombinerIndexedBlock:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(2+n, 0, 1); err == nil {
				d, err = TypeIndexedBlock(ints[1], ints[2:], olds[0])
			}
		}
	case CombinerHindexedBlock:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(2, n, 1); err == nil {
				d, err = TypeHindexedBlock(ints[1], addrs, olds[0])
			}
		}
	case CombinerStruct:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(1+n, n, n); err == nil {
				d, err = TypeStruct(ints[1:], addrs, olds)
			}
		}
	case CombinerSubarray:
		var n int
		if n, err = lead(); err == nil {
			if err = shape(2+3*n, 0, 1); err == nil {
				d, err = TypeCreateSubarray(ints[1:1+n], ints[1+n:1+2*n], ints[1+2*n:1+3*n], Order(ints[1+3*n]), olds[0])
			}
		}
	case CombinerDarray:
		if len(ints) < 3 || ints[2] < 0 || ints[2] > len(ints) {
			err = fmt.Errorf("%v with bad arguments %v", s.Comb, ints)
			break
		}
		n := ints[2]
		if err = shape(4+4*n, 0, 1); err == nil {
			dist := make([]Distribution, n)
			for i, v := range ints[3+n : 3+2*n] {
				dist[i] = Distribution(v)
			}
			d, err = TypeCreateDarray(ints[0], ints[1], ints[3:3+n], dist, ints[3+2*n:3+3*n], ints[3+3*n:3+4*n], Order(ints[3+4*n]), olds[0])
		}
	case CombinerResized:
		if err = shape(0, 2, 1); err == nil {
			d, err = TypeCreateResized(olds[0], addrs[0], addrs[1])
		}
	default:
		err = fmt.Errorf("unknown constructor %d", s.Comb)
	}
	if err != nil {
		return nil, err
	}
	d.name = s.Name
	return d, nil
}
