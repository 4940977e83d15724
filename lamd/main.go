// Command lamd is the LAM daemon that lamboot starts on every node.
//
// This version only answers -h: the rest arrives with the run-time environment (lamd, lamboot and the universe tools).
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("lamd", "the run-time environment (lamd, lamboot and the universe tools)", lamcli.ExitUsage)
	lamcli.Main(tool, cmd)
}
