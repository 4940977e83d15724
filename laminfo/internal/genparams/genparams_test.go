package genparams

import (
	"bytes"
	"os"
	"testing"
)

// The generated list must name exactly the parameters registered: a
// parameter added (or renamed) without regenerating fails here.
func TestKnownParamsUpToDate(t *testing.T) {
	const path = "../../../shared/ssi/knownparams.go"
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Source()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("%s is stale: run go generate ./laminfo/internal/genparams", path)
	}
}

// Boot parameters are known although MPI programs link no boot module.
func TestNamesHaveEveryFramework(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	for _, n := range []string{"boot_base_timeout", "boot_rsh_agent", "rpi_tcp_short", "coll_base_crossover", "rpi_base_init_timeout", "verbose"} {
		if !names[n] {
			t.Errorf("%s missing", n)
		}
	}
}
