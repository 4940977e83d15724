package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAppNumLocal starts testprog appnum from an application schema of
// three lines: every rank's MPI_APPNUM is the index of its line.
func TestAppNumLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	tp := bin("testprog")
	schema := filepath.Join(l.prefix, "app")
	text := fmt.Sprintf("-np 2 %s appnum 0\n-np 1 %s appnum 1\n-np 2 %s appnum 2\n", tp, tp, tp)
	if err := os.WriteFile(schema, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "appnum ok [0 0 1 2 2]\n"
	if r := l.run(ctx, "mpirun", schema); r.code != 0 || r.stdout != want {
		t.Errorf("mpirun %s: %v, want stdout %q", schema, r, want)
	}
}
