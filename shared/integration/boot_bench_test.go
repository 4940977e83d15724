package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/nettest"
)

// BenchmarkBoot times lamboot over ssh for 1, 4 and 8 simulated hosts
// with each boot algorithm (lamhalt between boots is not timed):
//
//	go test ./integration -run '^$' -bench Boot -benchtime 3x
func BenchmarkBoot(b *testing.B) {
	sp, err := os.MkdirTemp("", "lamgo-sessions-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(sp)
	os.Chmod(sp, 0o755)
	c := nettest.New(b, nettest.Options{Hosts: 8, Env: []string{"LAM_MPI_SESSION_PREFIX=" + sp}})
	for _, hosts := range []int{1, 4, 8} {
		var schema strings.Builder
		for _, h := range c.Hosts[:hosts] {
			fmt.Fprintln(&schema, h.Name)
		}
		path := filepath.Join(sp, fmt.Sprintf("hosts%d", hosts))
		os.WriteFile(path, []byte(schema.String()), 0o644)
		for _, alg := range []string{"linear", "windowed", "parallel"} {
			b.Run(fmt.Sprintf("hosts=%d/%s", hosts, alg), func(b *testing.B) {
				env := append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
					"LAM_MPI_SSI_boot_rsh_agent="+c.SSHAgent(), "LAM_MPI_SSI_boot_base_algorithm="+alg,
					"LAM_MPI_SSI_boot_rsh_fast=1")
				run := func(tool string, args ...string) result {
					cmd := c.Command(context.Background(), 0, bin(tool), args...)
					cmd.Env = env
					return runCmd(b, cmd)
				}
				for b.Loop() {
					if r := run("lamboot", "-H", "-prefix", prefix, path); r.code != 0 {
						b.Fatalf("lamboot: %v", r)
					}
					b.StopTimer()
					run("lamhalt", "-H")
					time.Sleep(50 * time.Millisecond)
					b.StartTimer()
				}
			})
		}
	}
}
