// Command gen writes shared/ssi/knownparams.go, or with -man the man page
// lamssi(7) (see package genparams).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lamgo/lam/laminfo/internal/genparams"
)

func main() {
	out := flag.String("o", "", "write knownparams.go here")
	man := flag.String("man", "", "write lamssi(7) here")
	flag.Parse()
	var err error
	switch {
	case *man != "":
		err = os.WriteFile(*man, genparams.ManPage(), 0o644)
	case *out != "":
		var src []byte
		if src, err = genparams.Source(); err == nil {
			err = os.WriteFile(*out, src, 0o644)
		}
	default:
		err = fmt.Errorf("give -o or -man")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genparams:", err)
		os.Exit(1)
	}
}
