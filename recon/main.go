// Command recon checks that a universe could be booted on every host of a boot schema.
//
// This version only answers -h: the rest arrives with the run-time environment (lamd, lamboot and the universe tools).
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("recon", "the run-time environment (lamd, lamboot and the universe tools)", 0)
	lamcli.Main(tool, cmd)
}
