// Package nodespec reads and resolves LAM's node and CPU notation (LAM
// 7.1.4's share/args/parse_id.c), as used by mpirun, lamexec, lamnodes,
// tping and app schemas:
//
//	n<list>  nodes by id               n0-3,5,0xa,12-15
//	c<list>  CPUs by index             c0-7
//	N        every schedulable node, once each
//	C        every schedulable CPU (a node repeated once per CPU, adjacent)
//	h        the local node (the node whose lamd answers)
//	o        the origin node (where lamboot ran)
//
// A <list> is comma-separated items, each a number or an a-b range with
// a ≤ b. Numbers are decimal, or hexadecimal after 0x or 0X (LAM's
// xtoi). Ids are listed in the order written and repeats are kept, so
// "n0,0" names node 0 twice.
//
// Differences from LAM, all of them cases LAM got wrong or left
// undefined:
//
//   - A number with a leading zero is decimal: n010 is node 10. (LAM's
//     xtoi used strtol base 0, so n010 was node 8 and n08 an error.)
//   - Empty items ("n1,", "n,1", "n1,,2"), an open range ("n1-"), a
//     sign ("n+1") and anything after a number ("n1x") are errors; LAM
//     accepted some of these silently.
//   - Ids are at most 2³¹-1, and a specification may not name more than
//     MaxIDs ids, so n0-4000000000 is an error instead of an attempt to
//     allocate billions of entries.
//   - cX maps a CPU index to the node owning it by node id. LAM returned
//     the node's position in the table, which is wrong once a node has
//     been removed (ids are then sparse).
//
// Scheduling: N and C cover only schedulable nodes (those not booted with
// schedule=no); explicit nX and cX may name any node, and cX counts the
// CPUs of every node, schedulable or not. A node reporting fewer than one
// CPU counts as one. lamnodes with no arguments lists every node, which is
// what All returns.
package nodespec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Node is one entry of the universe's node table, as the tools see it.
type Node struct {
	ID          int
	Host        string
	CPUs        int  // cpu= count; below 1 counts as 1
	Schedulable bool // false for nodes booted with schedule=no
	Origin      bool // the node lamboot ran on
	Local       bool // the node this tool talks to (h)
}

// Kind is the kind of a specification.
type Kind int

// The kinds of specification. The zero Kind is not valid.
const (
	Nodes      Kind = iota + 1 // n<list>
	CPUs                       // c<list>
	AllNodes                   // N
	AllCPUs                    // C
	Local                      // h
	OriginNode                 // o
)

// String returns the name of the kind, e.g. "Nodes".
func (k Kind) String() string {
	switch k {
	case Nodes:
		return "Nodes"
	case CPUs:
		return "CPUs"
	case AllNodes:
		return "AllNodes"
	case AllCPUs:
		return "AllCPUs"
	case Local:
		return "Local"
	case OriginNode:
		return "OriginNode"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Spec is one parsed specification.
type Spec struct {
	Kind Kind
	IDs  []int // Nodes and CPUs only: ids in written order, repeats kept
}

// Limits.
const (
	// MaxIDs bounds how many ids one specification may list, and how
	// many targets Resolve may return.
	MaxIDs = 1 << 20
	// MaxID is the largest node id or CPU index (LAM's ids are int4).
	MaxID = 1<<31 - 1
)

// ErrBadSpec is wrapped by errors about malformed specifications (LAM's
// EBADIDSPEC, exit status 230).
var ErrBadSpec = errors.New("bad node or CPU specification")

// ErrBadNode is wrapped by errors about nodes or CPUs that are not in the
// universe (LAM's EBADNODE, exit status 229).
var ErrBadNode = errors.New("invalid node")

// NodeError names a node id, or CPU index, that is not in the universe.
// It wraps ErrBadNode.
type NodeError struct {
	ID  int  // the node id, or the CPU index when CPU is set
	CPU bool // ID is a CPU index (a cX specification)
}

func (e *NodeError) Error() string {
	if e.CPU {
		return fmt.Sprintf("c%d: no such CPU in the universe", e.ID)
	}
	return fmt.Sprintf("n%d: no such node in the universe", e.ID)
}

// Unwrap returns ErrBadNode.
func (e *NodeError) Unwrap() error { return ErrBadNode }

// Is reports whether s is written in the node/CPU notation, so that a
// command line's specifications can be told from the program name that
// follows them. Like LAM, it looks only at the shape: "N", "C", "h" and
// "o" exactly, or 'n' or 'c' followed by a decimal digit. A token that
// passes Is may still be malformed ("n3-1"); Parse then says why, and the
// caller should report that instead of running a program called "n3-1".
// Program names such as "node1", "nine", "./n0", "C++" or "c" are not
// specifications.
func Is(s string) bool {
	switch s {
	case "N", "C", "h", "o":
		return true
	}
	return len(s) >= 2 && (s[0] == 'n' || s[0] == 'c') && isDigit(s[1])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Parse reads one specification, such as "n0-3,5,0xa,12-15", "c2", "N",
// "C", "h" or "o". Errors wrap ErrBadSpec.
func Parse(s string) (Spec, error) {
	switch s {
	case "N":
		return Spec{Kind: AllNodes}, nil
	case "C":
		return Spec{Kind: AllCPUs}, nil
	case "h":
		return Spec{Kind: Local}, nil
	case "o":
		return Spec{Kind: OriginNode}, nil
	}
	if !Is(s) {
		return Spec{}, badSpec(s, "not n<list>, c<list>, N, C, h or o")
	}
	kind := Nodes
	if s[0] == 'c' {
		kind = CPUs
	}
	ids, err := parseList(s[1:])
	if err != nil {
		return Spec{}, badSpec(s, err.Error())
	}
	return Spec{Kind: kind, IDs: ids}, nil
}

func badSpec(s, why string) error {
	const max = 40
	if len(s) > max {
		s = s[:max] + "..."
	}
	return fmt.Errorf("%w %q: %s", ErrBadSpec, s, why)
}

// parseList reads a comma-separated list of numbers and a-b ranges. It
// counts a range before expanding it, so memory stays within MaxIDs.
func parseList(s string) ([]int, error) {
	var ids []int
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := parseNum(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = parseNum(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %d-%d runs backwards", a, b)
			}
		}
		if b-a+1 > MaxIDs-len(ids) {
			return nil, fmt.Errorf("more than %d ids", MaxIDs)
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseNum reads a non-negative decimal or 0x-hexadecimal number.
func parseNum(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	base, digits := 10, s
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, digits = 16, s[2:]
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		ok := isDigit(c) || base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F')
		if !ok {
			return 0, fmt.Errorf("bad number %q", short(s))
		}
	}
	n, err := strconv.ParseUint(digits, base, 31)
	if err != nil {
		return 0, fmt.Errorf("number %q is larger than %d", short(s), MaxID)
	}
	return int(n), nil
}

func short(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// String returns the canonical text of the specification, which Parse
// reads back to an equal Spec: "N", "C", "h", "o", or "n"/"c" followed by
// decimal ids, with runs of three or more consecutive ids written as
// ranges ("n0-3,5,10,12-15"). A Spec that Parse could not have returned
// (zero Kind, no ids, negative ids) gives text that Parse rejects.
func (s Spec) String() string {
	var b strings.Builder
	switch s.Kind {
	case AllNodes:
		return "N"
	case AllCPUs:
		return "C"
	case Local:
		return "h"
	case OriginNode:
		return "o"
	case Nodes:
		b.WriteByte('n')
	case CPUs:
		b.WriteByte('c')
	default:
		return "?" + s.Kind.String()
	}
	for i := 0; i < len(s.IDs); {
		j := i
		for j+1 < len(s.IDs) && s.IDs[j] < MaxID && s.IDs[j+1] == s.IDs[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.IDs[i]))
		switch {
		case j-i >= 2:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s.IDs[j]))
		case j == i+1:
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(s.IDs[j]))
		}
		i = j + 1
	}
	return b.String()
}

// table is a node table sorted by id, without duplicate ids (the first
// entry for an id wins).
type table struct {
	nodes []Node
	cpus  []int // cpus[i]: CPUs before nodes[i], so nodes[i] owns cpus[i] .. cpus[i+1]-1
	total int   // CPUs of every node
}

func newTable(nodes []Node) *table {
	t := &table{nodes: slices.Clone(nodes)}
	slices.SortStableFunc(t.nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	t.nodes = slices.CompactFunc(t.nodes, func(a, b Node) bool { return a.ID == b.ID })
	t.cpus = make([]int, len(t.nodes))
	for i, n := range t.nodes {
		t.cpus[i] = t.total
		t.total += min(cpus(n), MaxID) // cannot overflow int64 for any table that fits in memory
	}
	return t
}

func cpus(n Node) int { return max(n.CPUs, 1) }

func (t *table) find(id int) (int, bool) {
	return slices.BinarySearchFunc(t.nodes, id, func(n Node, id int) int { return cmp.Compare(n.ID, id) })
}

// cpuNode returns the id of the node owning CPU index c.
func (t *table) cpuNode(c int) (int, bool) {
	if c < 0 || c >= t.total {
		return 0, false
	}
	// t.cpus is strictly increasing (every node has a CPU) and t.cpus[0]
	// is 0, so c is either some node's first CPU or inside the node
	// before the insertion point.
	i, found := slices.BinarySearch(t.cpus, c)
	if !found {
		i--
	}
	return t.nodes[i].ID, true
}

// Resolve turns specifications into node ids, one entry per target, in the
// order written:
//
//	nX  each listed node (schedulable or not)
//	cX  the node owning each listed CPU index; CPUs are numbered
//	    consecutively over all nodes in id order, each node counting its
//	    CPUs
//	N   each schedulable node once, in id order
//	C   each schedulable node repeated once per CPU, adjacent, in id order
//	h   the Local node
//	o   the Origin node
//
// An id or CPU index not in nodes gives a *NodeError; a missing local or
// origin node an error wrapping ErrBadNode. A Spec that Parse could not
// have returned, or a result of more than MaxIDs targets, gives an error
// wrapping ErrBadSpec. N and C give no targets when no node is
// schedulable; that is not an error here.
func Resolve(specs []Spec, nodes []Node) ([]int, error) {
	t := newTable(nodes)
	var out []int
	room := func(n int) error {
		if n > MaxIDs-len(out) {
			return fmt.Errorf("%w: more than %d targets", ErrBadSpec, MaxIDs)
		}
		return nil
	}
	for _, s := range specs {
		switch s.Kind {
		case Nodes, CPUs:
			if len(s.IDs) == 0 {
				return nil, fmt.Errorf("%w: %s with no ids", ErrBadSpec, s.Kind)
			}
			if err := room(len(s.IDs)); err != nil {
				return nil, err
			}
			for _, id := range s.IDs {
				if id < 0 || id > MaxID {
					return nil, fmt.Errorf("%w: id %d out of range", ErrBadSpec, id)
				}
				if s.Kind == Nodes {
					if _, ok := t.find(id); !ok {
						return nil, &NodeError{ID: id}
					}
					out = append(out, id)
					continue
				}
				node, ok := t.cpuNode(id)
				if !ok {
					return nil, &NodeError{ID: id, CPU: true}
				}
				out = append(out, node)
			}
		case AllNodes, AllCPUs:
			for _, n := range t.nodes {
				if !n.Schedulable {
					continue
				}
				times := 1
				if s.Kind == AllCPUs {
					times = cpus(n)
				}
				if err := room(times); err != nil {
					return nil, err
				}
				for range times {
					out = append(out, n.ID)
				}
			}
		case Local, OriginNode:
			i := slices.IndexFunc(t.nodes, func(n Node) bool {
				return s.Kind == Local && n.Local || s.Kind == OriginNode && n.Origin
			})
			if i < 0 {
				what := "local"
				if s.Kind == OriginNode {
					what = "origin"
				}
				return nil, fmt.Errorf("%w: the universe has no %s node", ErrBadNode, what)
			}
			if err := room(1); err != nil {
				return nil, err
			}
			out = append(out, t.nodes[i].ID)
		default:
			return nil, fmt.Errorf("%w: %s", ErrBadSpec, s.Kind)
		}
	}
	return out, nil
}

// All returns the id of every node, schedulable or not, in id order: what
// lamnodes lists when given no specification.
func All(nodes []Node) []int {
	t := newTable(nodes)
	out := make([]int, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = n.ID
	}
	return out
}

// Format names a node as LAM's messages do (LAM's nid_fmt): "n0 (o)" for
// the origin node, "n3" for any other id, whether or not it is in nodes,
// and "?" for a negative id.
func Format(id int, nodes []Node) string {
	if id < 0 {
		return "?"
	}
	for _, n := range nodes {
		if n.ID == id && n.Origin {
			return "n" + strconv.Itoa(id) + " (o)"
		}
	}
	return "n" + strconv.Itoa(id)
}
