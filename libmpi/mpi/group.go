package mpi

import "sort"

// Group is an ordered set of processes (MPI_Group). Groups are local
// objects: making one communicates with nobody.
type Group struct {
	ranks []int // world ranks, in group order
}

// GroupEmpty is the group with no processes.
var GroupEmpty = &Group{}

// Results of comparisons.
const (
	Ident     = 0
	Congruent = 1
	Similar   = 2
	Unequal   = 3
)

// Group returns the communicator's group.
func (c *Comm) Group() (*Group, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return &Group{ranks: append([]int(nil), c.group...)}, nil
}

// Size is the number of processes in the group.
func (g *Group) Size() int { return len(g.ranks) }

// Rank is this process's rank in the group, or Undefined.
func (g *Group) Rank() int { return g.index(st.rank) }

func (g *Group) index(world int) int {
	for i, r := range g.ranks {
		if r == world {
			return i
		}
	}
	return Undefined
}

func (g *Group) check(ranks []int, unique bool) error {
	seen := map[int]bool{}
	for _, r := range ranks {
		if r < 0 || r >= len(g.ranks) {
			return errorf(ErrRank, "rank %d is not in the group (size %d)", r, len(g.ranks))
		}
		if unique && seen[r] {
			return errorf(ErrRank, "rank %d given twice", r)
		}
		seen[r] = true
	}
	return nil
}

// Incl is the group of the listed ranks of g, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) {
	if err := g.check(ranks, true); err != nil {
		return nil, err
	}
	out := &Group{}
	for _, r := range ranks {
		out.ranks = append(out.ranks, g.ranks[r])
	}
	return out, nil
}

// Excl is g without the listed ranks.
func (g *Group) Excl(ranks []int) (*Group, error) {
	if err := g.check(ranks, true); err != nil {
		return nil, err
	}
	drop := map[int]bool{}
	for _, r := range ranks {
		drop[r] = true
	}
	out := &Group{}
	for i, w := range g.ranks {
		if !drop[i] {
			out.ranks = append(out.ranks, w)
		}
	}
	return out, nil
}

// expand turns (first, last, stride) triples into ranks.
func expand(triples [][3]int) ([]int, error) {
	var out []int
	for _, t := range triples {
		first, last, stride := t[0], t[1], t[2]
		if stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last) {
			return nil, errorf(ErrArg, "bad range (%d, %d, %d)", first, last, stride)
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			out = append(out, r)
			if len(out) > 1<<24 {
				return nil, errorf(ErrArg, "range too large")
			}
		}
	}
	return out, nil
}

// RangeIncl is Incl over (first, last, stride) triples.
func (g *Group) RangeIncl(triples [][3]int) (*Group, error) {
	ranks, err := expand(triples)
	if err != nil {
		return nil, err
	}
	return g.Incl(ranks)
}

// RangeExcl is Excl over (first, last, stride) triples.
func (g *Group) RangeExcl(triples [][3]int) (*Group, error) {
	ranks, err := expand(triples)
	if err != nil {
		return nil, err
	}
	return g.Excl(ranks)
}

// GroupUnion is a's processes, then b's that are not in a.
func GroupUnion(a, b *Group) *Group {
	out := &Group{ranks: append([]int(nil), a.ranks...)}
	for _, w := range b.ranks {
		if a.index(w) == Undefined {
			out.ranks = append(out.ranks, w)
		}
	}
	return out
}

// GroupIntersection is a's processes that are also in b, in a's order.
func GroupIntersection(a, b *Group) *Group {
	out := &Group{}
	for _, w := range a.ranks {
		if b.index(w) != Undefined {
			out.ranks = append(out.ranks, w)
		}
	}
	return out
}

// GroupDifference is a's processes that are not in b, in a's order.
func GroupDifference(a, b *Group) *Group {
	out := &Group{}
	for _, w := range a.ranks {
		if b.index(w) == Undefined {
			out.ranks = append(out.ranks, w)
		}
	}
	return out
}

// TranslateRanks maps ranks of g to ranks of other (Undefined where a
// process is not in other).
func (g *Group) TranslateRanks(ranks []int, other *Group) ([]int, error) {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		if r == ProcNull {
			out[i] = ProcNull
			continue
		}
		if r < 0 || r >= len(g.ranks) {
			return nil, errorf(ErrRank, "rank %d is not in the group", r)
		}
		out[i] = other.index(g.ranks[r])
	}
	return out, nil
}

// GroupCompare compares two groups: Ident (same processes, same order),
// Similar (same processes), or Unequal.
func GroupCompare(a, b *Group) int {
	if len(a.ranks) != len(b.ranks) {
		return Unequal
	}
	same := true
	for i := range a.ranks {
		same = same && a.ranks[i] == b.ranks[i]
	}
	if same {
		return Ident
	}
	x, y := append([]int(nil), a.ranks...), append([]int(nil), b.ranks...)
	sort.Ints(x)
	sort.Ints(y)
	for i := range x {
		if x[i] != y[i] {
			return Unequal
		}
	}
	return Similar
}

// Free releases the group (groups are garbage collected; Free exists for
// MPI's shape).
func (g *Group) Free() {}
