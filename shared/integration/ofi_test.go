package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// ofiBuild is the test program built with the ofi rpi module (the tag
// ofi), once.
var ofiBuild struct {
	once sync.Once
	err  error
}

// needOFI builds testprog-ofi, or skips (fails under LAM_TEST_STRICT=1)
// where libfabric's headers are missing.
func needOFI(t *testing.T) {
	t.Helper()
	if err := exec.Command("pkg-config", "--exists", "libfabric").Run(); err != nil {
		testenv.Skip(t, "libfabric is missing (scripts/test-deps installs libfabric-dev)")
	}
	ofiBuild.once.Do(func() {
		cmd := exec.Command("go", "build", "-tags", "ofi", "-o", bin("testprog-ofi"), "./libmpi/internal/testprog")
		cmd.Dir = cRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			ofiBuild.err = fmt.Errorf("go build -tags ofi ./libmpi/internal/testprog: %w\n%s", err, out)
		}
	})
	if ofiBuild.err != nil {
		t.Fatal(ofiBuild.err)
	}
	t.Cleanup(func() { removeDeadShmRegions(t) })
}

// shmRegionRE matches the regions libfabric's shm provider makes in
// /dev/shm, named <pid>:<domain>:<endpoint>.
var shmRegionRE = regexp.MustCompile(`^([0-9]+):[0-9]+:[0-9]+$`)

// removeDeadShmRegions removes the shm provider's regions whose process is
// gone: a rank the tests kill, or that a failure ends, leaves its region
// behind (docs/ofi.md), and the tests clean up what they cause.
func removeDeadShmRegions(t *testing.T) {
	ents, _ := os.ReadDir("/dev/shm")
	for _, e := range ents {
		m := shmRegionRE.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue // a live process's (or not a pid)
		}
		if err := os.Remove(filepath.Join("/dev/shm", e.Name())); err != nil {
			t.Logf("removing %s: %v", e.Name(), err)
		}
	}
}

// The point-to-point, communicator, edge and collective suites over the
// ofi module with libfabric's tcp and shm providers, with more ranks
// than cores; a waiting process sleeps; a build without libfabric
// declines the module with its reason.
func TestOFI(t *testing.T) {
	needOFI(t)
	needPgrep(t)
	ctx, l := bootLocal(t, 8*time.Minute)
	prog := bin("testprog-ofi")
	// On one host, ofi over tcp carries nothing by default (usysv does),
	// every pair with rpi_ofi_onnode.
	tcpArgs := []string{"-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", "tcp", "-np", "3", prog, "ofipeers"}
	if r := l.run(ctx, "mpirun", tcpArgs...); r.code != 0 || r.stdout != "ofi pairs \n" {
		t.Errorf("ofipeers over ofi/tcp on one host: %v", r)
	}
	for _, prov := range []string{"tcp", "shm"} {
		// The shm provider carries every peer; tcp only with
		// rpi_ofi_onnode.
		ofi := []string{"-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", prov, "-ssi", "rpi_ofi_onnode", "1"}
		if prov == "shm" {
			if r := l.run(ctx, "mpirun", append(append([]string{}, ofi[:6]...), "-np", "3", prog, "ofipeers")...); r.code != 0 || r.stdout != "ofi pairs 0-1 0-2 1-2\n" {
				t.Errorf("ofipeers over ofi/shm: %v", r)
			}
		}
		run := func(np string, args ...string) result {
			return l.run(ctx, "mpirun", append(append(append([]string{}, ofi...), "-np", np, prog), args...)...)
		}
		for _, np := range []string{"2", "5", "8"} {
			if r := run(np, "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
				t.Errorf("p2p over ofi/%s with %s ranks: %v", prov, np, r)
			}
		}
		if r := run("5", "edges"); r.code != 0 || r.stdout != "edges ok\n" {
			t.Errorf("edges over ofi/%s: %v", prov, r)
		}
		if r := run("4", "comm"); r.code != 0 || r.stdout != "comm ok\n" {
			t.Errorf("comm over ofi/%s: %v", prov, r)
		}
		for _, np := range []string{"4", "5"} {
			// lam_basic: collectives over the ofi links (shmem would
			// bypass them on one node).
			if r := l.run(ctx, "mpirun", append(append([]string{}, ofi...), "-ssi", "coll", "lam_basic", "-np", np, prog, "coll")...); r.code != 0 || r.stdout != "coll ok lam_basic\n" {
				t.Errorf("coll over ofi/%s with %s ranks: %v", prov, np, r)
			}
		}
		if r := run("2", "big", "80"); r.code != 0 || r.stdout != "received 80 MiB\n" {
			t.Errorf("80 MiB over ofi/%s: %v", prov, r)
		}
		// Long messages by remote reads (no tagged pulls), and by pulls
		// where the endpoint has no remote reads.
		for _, set := range [][]string{{"-ssi", "rpi_ofi_tagged", "0"}, {"-ssi", "rpi_ofi_rma", "0"}} {
			args := append(append(append([]string{}, ofi...), set...), "-np", "3", prog, "p2p")
			if r := l.run(ctx, "mpirun", args...); r.code != 0 || r.stdout != "p2p ok\n" {
				t.Errorf("p2p over ofi/%s with %v: %v", prov, set, r)
			}
		}
		// Small buffers and few credits: long messages in many pieces,
		// writers held back by credits.
		small := append(append([]string{}, ofi...), "-ssi", "rpi_ofi_bufsize", "1024", "-ssi", "rpi_ofi_credits", "4", "-np", "3", prog, "p2p")
		if r := l.run(ctx, "mpirun", small...); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p over ofi/%s with 1 KiB buffers and 4 credits: %v", prov, r)
		}
		// A process waiting a second for a message sleeps on the
		// completion queue after spinning a while.
		r := run("2", "idle")
		var ms int
		if _, err := fmt.Sscanf(r.stdout, "idle cpu %d ms\n", &ms); r.code != 0 || err != nil || ms > 300 {
			t.Errorf("a waiting process over ofi/%s used more than 300 ms of processor time in a second: %v", prov, r)
		}
	}
	// An unknown provider: the module cannot run, and says why.
	if r := l.run(ctx, "mpirun", "-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", "nosuch", "-np", "2", prog, "p2p"); r.code == 0 || !strings.Contains(r.stderr, "nosuch") {
		t.Errorf("ofi over an unknown provider: %v", r)
	}
	// The tools' testprog is built without the tag: the module declines.
	if r := l.run(ctx, "mpirun", "-ssi", "rpi", "ofi", "-np", "2", bin("testprog"), "p2p"); r.code == 0 || !strings.Contains(r.stderr, "no libfabric") {
		t.Errorf("ofi in a build without libfabric: %v", r)
	}
	// By default a job over software providers keeps to usysv.
	if r := l.run(ctx, "laminfo", "-parsable", "-param", "rpi", "ofi"); r.code != 0 || !strings.Contains(r.stdout, "rpi_ofi_provider") || !strings.Contains(r.stdout, "rpi_ofi_priority:10") {
		t.Errorf("laminfo -param rpi ofi: %v", r)
	}
	noneLeft(t, "testprog-ofi")
}
