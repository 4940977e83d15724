package mpi

import "fmt"

// The MPI-1 bound markers (MPI_LB and MPI_UB), for TypeStruct: an LB
// among a struct's types sets its lower bound at that displacement, a UB
// its upper bound, whatever the data's own bounds (the lowest LB and the
// highest UB win, and the markers stay with the type when it is used to
// build others). They carry no data. TypeCreateResized is the MPI-2 way
// to the same end.
var (
	LB = &Datatype{name: "MPI_LB", lbMark: true, marker: true}
	UB = &Datatype{name: "MPI_UB", ubMark: true, marker: true}
)

// TypeCreateResized is old with its lower bound set to lb and its extent
// to extent (MPI_Type_create_resized): the data stays where it was, only
// the step between consecutive elements changes. The bounds count as set
// explicitly, as by LB and UB markers.
func TypeCreateResized(old *Datatype, lb, extent int) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	d := *old
	d.attrs = attrSet{} // a new type: no attributes
	d.name = fmt.Sprintf("resized(%s,%d,%d)", old.name, lb, extent)
	d.lb, d.ub, d.lbMark, d.ubMark, d.marker = lb, lb+extent, true, true, false
	d.env = envelope{comb: CombinerResized, addrs: []int{lb, extent}, types: []*Datatype{old}}
	return &d, nil
}

// TypeDup is a copy of old (MPI_Type_dup), the same layout under
// CombinerDup, with the attributes old's copy callbacks keep (an error of
// a copy callback fails TypeDup, the copies made deleted again).
func TypeDup(old *Datatype) (*Datatype, error) {
	if err := checkOld(old); err != nil {
		return nil, err
	}
	d := *old
	d.attrs = attrSet{}
	d.env = envelope{comb: CombinerDup, types: []*Datatype{old}}
	if err := old.dupTypeAttrs(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// TypeIndexedBlock is blocks of blocklen elements of old at displs[i]
// elements (MPI_Type_create_indexed_block): TypeIndexed with every block
// the same length.
func TypeIndexedBlock(blocklen int, displs []int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, blocklen); err != nil {
		return nil, err
	}
	lens, bytes := make([]int, len(displs)), make([]int, len(displs))
	for i, d := range displs {
		lens[i], bytes[i] = blocklen, d*old.Extent()
	}
	return hindexed(lens, bytes, old, fmt.Sprintf("indexed_block(%d,%s)", blocklen, old.name),
		envelope{comb: CombinerIndexedBlock, ints: append([]int{len(displs), blocklen}, displs...), types: []*Datatype{old}})
}

// TypeHindexedBlock is TypeIndexedBlock with the displacements in bytes
// (MPI_Type_create_hindexed_block).
func TypeHindexedBlock(blocklen int, displs []int, old *Datatype) (*Datatype, error) {
	if err := checkOld(old, blocklen); err != nil {
		return nil, err
	}
	lens := make([]int, len(displs))
	for i := range displs {
		lens[i] = blocklen
	}
	return hindexed(lens, displs, old, fmt.Sprintf("hindexed_block(%d,%s)", blocklen, old.name),
		envelope{comb: CombinerHindexedBlock, ints: []int{len(displs), blocklen}, addrs: clone(displs), types: []*Datatype{old}})
}
