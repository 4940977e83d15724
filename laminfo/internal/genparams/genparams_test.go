package genparams

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/ssi"
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

// lamssi(7) is generated from the registry: a parameter or module added
// without regenerating fails here.
func TestLamssiManUpToDate(t *testing.T) {
	const path = "../../../docs/man/man7/lamssi.7"
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, ManPage()) {
		t.Errorf("%s is stale: run go generate ./laminfo/internal/genparams", path)
	}
}

// Every registered parameter and module has its entry in lamssi(7).
func TestLamssiManComplete(t *testing.T) {
	page := string(ManPage())
	for _, p := range ssi.Params() {
		if !strings.Contains(page, ".B "+roff(p.Full)+"\n") {
			t.Errorf("lamssi(7) does not list parameter %s", p.Full)
		}
	}
	for _, f := range ssi.Frameworks {
		for _, m := range ssi.Modules(f) {
			if !strings.Contains(page, ".SS "+string(f)+" module "+roff(m.SSI().Name)+"\n") {
				t.Errorf("lamssi(7) does not describe module %s/%s", f, m.SSI().Name)
			}
		}
	}
}
