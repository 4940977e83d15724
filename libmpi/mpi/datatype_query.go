package mpi

// Combiner names the constructor that made a datatype
// (MPI_COMBINER_*), as TypeGetEnvelope reports it.
type Combiner int

// The combiners.
const (
	CombinerNamed Combiner = iota
	CombinerDup
	CombinerContiguous
	CombinerVector
	CombinerHvector
	CombinerIndexed
	CombinerHindexed
	CombinerIndexedBlock
	CombinerHindexedBlock
	CombinerStruct
	CombinerSubarray
	CombinerDarray
	CombinerResized
)

var combinerNames = [...]string{"MPI_COMBINER_NAMED", "MPI_COMBINER_DUP", "MPI_COMBINER_CONTIGUOUS",
	"MPI_COMBINER_VECTOR", "MPI_COMBINER_HVECTOR", "MPI_COMBINER_INDEXED", "MPI_COMBINER_HINDEXED",
	"MPI_COMBINER_INDEXED_BLOCK", "MPI_COMBINER_HINDEXED_BLOCK", "MPI_COMBINER_STRUCT",
	"MPI_COMBINER_SUBARRAY", "MPI_COMBINER_DARRAY", "MPI_COMBINER_RESIZED"}

func (c Combiner) String() string {
	if c >= 0 && int(c) < len(combinerNames) {
		return combinerNames[c]
	}
	return "MPI_COMBINER_UNKNOWN"
}

// envelope is what a derived datatype was made from: the arguments of
// its constructor, sorted as MPI_Type_get_contents returns them.
type envelope struct {
	comb  Combiner
	ints  []int
	addrs []int
	types []*Datatype
}

// TypeGetEnvelope reports how d was made (MPI_Type_get_envelope): the
// number of integers, addresses (byte displacements) and datatypes that
// TypeGetContents returns, and the constructor. A predefined type has
// CombinerNamed and no contents.
func TypeGetEnvelope(d *Datatype) (numInts, numAddrs, numTypes int, combiner Combiner, err error) {
	if d == nil {
		return 0, 0, 0, 0, errorf(ErrType, "nil datatype")
	}
	return len(d.env.ints), len(d.env.addrs), len(d.env.types), d.env.comb, nil
}

// TypeGetContents returns the arguments d was made with
// (MPI_Type_get_contents), in the order MPI gives them: for a vector,
// ints [count, blocklen, stride] and types [old]; for an indexed type,
// ints [count, blocklens..., displs...]; for a struct, ints [count,
// blocklens...], addrs [displs...] and types [types...]; and so on. The
// slices are copies. A predefined type has no contents (ErrArg).
func TypeGetContents(d *Datatype) (ints, addrs []int, types []*Datatype, err error) {
	if d == nil {
		return nil, nil, nil, errorf(ErrType, "nil datatype")
	}
	if d.env.comb == CombinerNamed {
		return nil, nil, nil, errorf(ErrArg, "%s is predefined: it has no contents", d.name)
	}
	return clone(d.env.ints), clone(d.env.addrs), clone(d.env.types), nil
}

// TypeGetExtent returns d's lower bound and extent (MPI_Type_get_extent).
func TypeGetExtent(d *Datatype) (lb, extent int, err error) {
	if d == nil {
		return 0, 0, errorf(ErrType, "nil datatype")
	}
	return d.lb, d.ub - d.lb, nil
}

// TypeGetTrueExtent returns the lower bound and extent of d's data alone,
// ignoring LB/UB markers, resizing and alignment padding
// (MPI_Type_get_true_extent): the bytes a buffer of one element really
// touches, from buf[trueLB] to buf[trueLB+trueExtent].
func TypeGetTrueExtent(d *Datatype) (trueLB, trueExtent int, err error) {
	if d == nil {
		return 0, 0, errorf(ErrType, "nil datatype")
	}
	return d.tlb, d.tub - d.tlb, nil
}

// TrueLB is the lower bound of d's data alone (see TypeGetTrueExtent).
func (d *Datatype) TrueLB() int {
	if d == nil {
		return 0
	}
	return d.tlb
}

// TrueExtent is the extent of d's data alone (see TypeGetTrueExtent).
func (d *Datatype) TrueExtent() int {
	if d == nil {
		return 0
	}
	return d.tub - d.tlb
}

// GetElements is the number of basic elements (Int32s, Float64s, …) a
// status describes when the message was received as elements of d
// (MPI_Get_elements): unlike GetCountType it counts a partial last
// element's basic elements. It is Undefined if the message ends inside a
// basic element.
func GetElements(s Status, d *Datatype) int {
	if d == nil || s.Bytes < 0 {
		return Undefined
	}
	if d.size == 0 {
		if s.Bytes == 0 {
			return 0
		}
		return Undefined
	}
	n := s.Bytes / d.size * d.elems
	rest := s.Bytes % d.size
	for _, r := range d.runs {
		if rest == 0 {
			break
		}
		if all := r.n * r.t.size; rest >= all {
			n, rest = n+r.n, rest-all
			continue
		}
		if rest%r.t.size != 0 {
			return Undefined
		}
		n, rest = n+rest/r.t.size, 0
	}
	return n
}
