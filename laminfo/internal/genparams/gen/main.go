// Command gen writes shared/ssi/knownparams.go (see package genparams).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/lamgo/lam/laminfo/internal/genparams"
)

func main() {
	out := flag.String("o", "knownparams.go", "the file to write")
	flag.Parse()
	src, err := genparams.Source()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genparams:", err)
		os.Exit(1)
	}
}
