// Command lamnodes lists the nodes of the LAM universe.
//
// This version only answers -h: the rest arrives with the run-time environment (lamd, lamboot and the universe tools).
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("lamnodes", "the run-time environment (lamd, lamboot and the universe tools)", 0)
	lamcli.Main(tool, cmd)
}
