package bhost_test

import (
	"fmt"
	"strings"

	"github.com/lamgo/lam/shared/bhost"
)

func ExampleParse() {
	const schema = `# my cluster
localhost cpu=2
node1.example.org user=alice prefix=/opt/lam   # remote LAM
"node2" cpu=4 schedule=no
localhost schedule=no
node3 cpu=many
`
	s, err := bhost.Parse(strings.NewReader(schema), "lam-bhost.def")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, h := range s.Hosts {
		fmt.Printf("n%d %s cpu=%d schedule=%v user=%q prefix=%q\n", i, h.Name, h.CPU, h.Schedule, h.User, h.Prefix)
	}
	for _, w := range s.Warnings {
		fmt.Println(w)
	}
	// Output:
	// n0 localhost cpu=3 schedule=false user="" prefix=""
	// n1 node1.example.org cpu=1 schedule=true user="alice" prefix="/opt/lam"
	// n2 node2 cpu=4 schedule=false user="" prefix=""
	// lam-bhost.def:6: invalid cpu count "many" for host "node3": want a positive integer
}
