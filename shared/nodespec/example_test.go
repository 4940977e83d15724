package nodespec_test

import (
	"errors"
	"fmt"

	"github.com/lamgo/lam/shared/nodespec"
)

func ExampleParse() {
	spec, err := nodespec.Parse("n0-3,5,0xa,12-15")
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.Kind, spec.IDs)
	fmt.Println(spec)

	_, err = nodespec.Parse("n3-1")
	fmt.Println(err)
	fmt.Println(nodespec.Is("n3-1"), nodespec.Is("node1"), nodespec.Is("C++"))
	// Output:
	// Nodes [0 1 2 3 5 10 12 13 14 15]
	// n0-3,5,10,12-15
	// bad node or CPU specification "n3-1": range 3-1 runs backwards
	// true false false
}

func ExampleResolve() {
	// n2 was removed with lamshrink; n1 was booted with schedule=no.
	nodes := []nodespec.Node{
		{ID: 0, Host: "alpha", CPUs: 2, Schedulable: true, Origin: true, Local: true},
		{ID: 1, Host: "beta", CPUs: 1},
		{ID: 3, Host: "delta", CPUs: 3, Schedulable: true},
	}
	for _, where := range [][]string{{"N"}, {"C"}, {"n1"}, {"c2"}, {"n0", "N"}, {"h"}, {"n2"}} {
		var specs []nodespec.Spec
		for _, w := range where {
			s, err := nodespec.Parse(w)
			if err != nil {
				panic(err)
			}
			specs = append(specs, s)
		}
		ids, err := nodespec.Resolve(specs, nodes)
		if errors.Is(err, nodespec.ErrBadNode) {
			fmt.Println(where, "error:", err)
			continue
		}
		fmt.Println(where, ids)
	}
	fmt.Println(nodespec.All(nodes))
	// Output:
	// [N] [0 3]
	// [C] [0 0 3 3 3]
	// [n1] [1]
	// [c2] [1]
	// [n0 N] [0 0 3]
	// [h] [0]
	// [n2] error: n2: no such node in the universe
	// [0 1 3]
}

func ExampleFormat() {
	nodes := []nodespec.Node{{ID: 0, Origin: true}, {ID: 1}}
	fmt.Println(nodespec.Format(0, nodes))
	fmt.Println(nodespec.Format(1, nodes))
	// Output:
	// n0 (o)
	// n1
}
