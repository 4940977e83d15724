// Package nodespec reads LAM's node and CPU notation (LAM's parse_id):
//
//	n<list>  nodes by id            n0-3,5,0xa,12-15
//	c<list>  CPUs by index          c0-7
//	N        every schedulable node
//	C        every schedulable CPU (a node repeated once per CPU)
//	h        the local node
//	o        the origin node
//
// A list is comma-separated numbers (decimal, or hexadecimal with 0x) and
// a-b ranges. CPUs are numbered consecutively over the nodes in id order,
// each node counting its cpu= count. N and C skip nodes booted with
// schedule=no; n and c may still name them.
package nodespec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Node is one node of the universe, as specifications see it.
type Node struct {
	ID          int
	Host        string
	CPUs        int
	Schedulable bool
	Origin      bool
	Local       bool
}

// Kind is the kind of a specification.
type Kind int

// The kinds.
const (
	Nodes      Kind = iota + 1 // n<list>
	CPUs                       // c<list>
	AllNodes                   // N
	AllCPUs                    // C
	Local                      // h
	OriginNode                 // o
)

// Spec is one parsed specification.
type Spec struct {
	Kind Kind
	IDs  []int // for Nodes and CPUs, in written order, repeats kept
}

// MaxIDs bounds how many ids one specification may expand to.
const MaxIDs = 1 << 20

// ErrBadSpec is wrapped by errors about malformed specifications (LAM's
// EBADIDSPEC).
var ErrBadSpec = errors.New("bad node or CPU specification")

// ErrBadNode is wrapped by errors about nodes or CPUs that are not in the
// universe (LAM's EBADNODE).
var ErrBadNode = errors.New("invalid node")

// NodeError names a node or CPU that is not in the universe.
type NodeError struct {
	ID  int
	CPU bool
}

func (e *NodeError) Error() string {
	if e.CPU {
		return fmt.Sprintf("c%d: no such CPU in the universe", e.ID)
	}
	return fmt.Sprintf("n%d: no such node in the universe", e.ID)
}

func (e *NodeError) Unwrap() error { return ErrBadNode }

// Is reports whether s is a specification (so that a command line's
// specifications can be told from its program name).
func Is(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// Parse reads one specification.
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
	if len(s) < 2 || (s[0] != 'n' && s[0] != 'c') || s[1] < '0' || s[1] > '9' {
		return Spec{}, fmt.Errorf("%w: %q", ErrBadSpec, s)
	}
	kind := Nodes
	if s[0] == 'c' {
		kind = CPUs
	}
	ids, err := parseList(s[1:])
	if err != nil {
		return Spec{}, fmt.Errorf("%w: %q: %v", ErrBadSpec, s, err)
	}
	return Spec{Kind: kind, IDs: ids}, nil
}

func parseList(s string) ([]int, error) {
	var ids []int
	for _, item := range strings.Split(s, ",") {
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
				return nil, fmt.Errorf("range %s runs backwards", item)
			}
		}
		if len(ids)+(b-a+1) > MaxIDs {
			return nil, fmt.Errorf("more than %d ids", MaxIDs)
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func parseNum(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	base, digits := 10, s
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, digits = 16, s[2:]
	}
	n, err := strconv.ParseUint(digits, base, 31)
	if err != nil || digits == "" {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return int(n), nil
}

// String renders the specification so that Parse reads it back.
func (s Spec) String() string {
	switch s.Kind {
	case AllNodes:
		return "N"
	case AllCPUs:
		return "C"
	case Local:
		return "h"
	case OriginNode:
		return "o"
	}
	p := "n"
	if s.Kind == CPUs {
		p = "c"
	}
	parts := make([]string, len(s.IDs))
	for i, id := range s.IDs {
		parts[i] = strconv.Itoa(id)
	}
	return p + strings.Join(parts, ",")
}

// Resolve turns specifications into node ids, one entry per target, in
// order.
func Resolve(specs []Spec, nodes []Node) ([]int, error) {
	byID := map[int]*Node{}
	for i := range nodes {
		byID[nodes[i].ID] = &nodes[i]
	}
	var out []int
	add := func(id int) error {
		if len(out) >= MaxIDs {
			return fmt.Errorf("%w: more than %d targets", ErrBadSpec, MaxIDs)
		}
		out = append(out, id)
		return nil
	}
	for _, s := range specs {
		switch s.Kind {
		case Nodes:
			for _, id := range s.IDs {
				if byID[id] == nil {
					return nil, &NodeError{ID: id}
				}
				if err := add(id); err != nil {
					return nil, err
				}
			}
		case CPUs:
			for _, c := range s.IDs {
				id, ok := cpuNode(c, nodes)
				if !ok {
					return nil, &NodeError{ID: c, CPU: true}
				}
				if err := add(id); err != nil {
					return nil, err
				}
			}
		case AllNodes, AllCPUs:
			for _, n := range sorted(nodes) {
				if !n.Schedulable {
					continue
				}
				times := 1
				if s.Kind == AllCPUs {
					times = max(n.CPUs, 1)
				}
				for range times {
					if err := add(n.ID); err != nil {
						return nil, err
					}
				}
			}
		case Local, OriginNode:
			found := false
			for _, n := range nodes {
				if (s.Kind == Local && n.Local) || (s.Kind == OriginNode && n.Origin) {
					if err := add(n.ID); err != nil {
						return nil, err
					}
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%w: no %s node", ErrBadNode, map[Kind]string{Local: "local", OriginNode: "origin"}[s.Kind])
			}
		default:
			return nil, fmt.Errorf("%w: kind %d", ErrBadSpec, s.Kind)
		}
	}
	return out, nil
}

// cpuNode finds the node owning CPU index c.
func cpuNode(c int, nodes []Node) (int, bool) {
	for _, n := range sorted(nodes) {
		if c < max(n.CPUs, 1) {
			return n.ID, true
		}
		c -= max(n.CPUs, 1)
	}
	return 0, false
}

func sorted(nodes []Node) []Node {
	out := append([]Node(nil), nodes...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID < out[j-1].ID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// All returns every node id in order, schedulable or not (lamnodes with no
// arguments).
func All(nodes []Node) []int {
	var out []int
	for _, n := range sorted(nodes) {
		out = append(out, n.ID)
	}
	return out
}

// Format names a node as LAM's messages do: "n0 (o)" for the origin,
// "n3" otherwise.
func Format(id int, nodes []Node) string {
	for _, n := range nodes {
		if n.ID == id && n.Origin {
			return fmt.Sprintf("n%d (o)", id)
		}
	}
	return fmt.Sprintf("n%d", id)
}
