package appschema_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/nodespec"
)

func ExampleParse() {
	schema := `# two masters on n0, then one worker per CPU
n0 -np 2 -wd /tmp ./master "first arg" -v
C -x DEBUG,LEVEL=3 ./worker
`
	lines, err := appschema.Parse(strings.NewReader(schema), "myapp")
	if err != nil {
		panic(err)
	}
	for _, l := range lines {
		fmt.Printf("line %d: where=%v np=%d wd=%q export=%q program=%s args=%q\n",
			l.LineNo, l.Where, l.NP, l.Wd, l.Export, l.Program, l.Args)
	}

	_, err = appschema.Parse(strings.NewReader("./a\nn0 -np x ./b\n"), "myapp")
	fmt.Println(err, errors.Is(err, appschema.ErrSyntax))
	// Output:
	// line 2: where=[n0] np=2 wd="/tmp" export=[] program=./master args=["first arg" "-v"]
	// line 3: where=[C] np=0 wd="" export=["DEBUG" "LEVEL=3"] program=./worker args=[]
	// myapp:2: -np needs a positive integer, not "x" true
}

func ExampleSchedule() {
	// n0 and n1 have two CPUs each; n2 was booted with schedule=no.
	nodes := []nodespec.Node{
		{ID: 0, CPUs: 2, Schedulable: true, Origin: true, Local: true},
		{ID: 1, CPUs: 2, Schedulable: true},
		{ID: 2, CPUs: 4},
	}
	for _, schema := range []string{
		"n0 -np 2 ./hello\nc0 ./hello", // LAM's example: 3 ranks
		"N ./a",                        // one per schedulable node
		"C ./a",                        // one per schedulable CPU
		"-np 6 ./a",                    // round robin over C
		"N -np 6 ./a",                  // round robin over N
		"n2 ./a",                       // explicit ids may name schedule=no nodes
		"./a",                          // the local node
	} {
		lines, err := appschema.Parse(strings.NewReader(schema), "app")
		if err != nil {
			panic(err)
		}
		procs, err := appschema.Schedule(lines, nodes)
		if err != nil {
			panic(err)
		}
		var placed []string
		for _, p := range procs {
			placed = append(placed, fmt.Sprintf("%d:%s", p.Rank, nodespec.Format(p.Node, nodes)))
		}
		fmt.Printf("%-22q %s\n", schema, strings.Join(placed, ", "))
	}
	// Output:
	// "n0 -np 2 ./hello\nc0 ./hello" 0:n0 (o), 1:n0 (o), 2:n0 (o)
	// "N ./a"                0:n0 (o), 1:n1
	// "C ./a"                0:n0 (o), 1:n0 (o), 2:n1, 3:n1
	// "-np 6 ./a"            0:n0 (o), 1:n0 (o), 2:n1, 3:n1, 4:n0 (o), 5:n0 (o)
	// "N -np 6 ./a"          0:n0 (o), 1:n1, 2:n0 (o), 3:n1, 4:n0 (o), 5:n1
	// "n2 ./a"               0:n2
	// "./a"                  0:n0 (o)
}

func ExampleLine_String() {
	l, err := appschema.ParseLine([]string{"n0-3", "-x", "A=1,B", "./prog", "a b"})
	if err != nil {
		panic(err)
	}
	fmt.Println(l)
	// Output:
	// n0-3 -x A=1 -x B ./prog "a b"
}
