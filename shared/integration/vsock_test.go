package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/linknet"
)

// TestVsockUniverse boots a universe of two virtual-machine guests named
// vsock:5 (this host) and vsock:6, with the rendezvous, the lamd links and
// MPI's tcp rpi all on AF_VSOCK, runs MPI jobs across them and halts.
//
// This machine has no vsock loopback (and CID 2, the real host, must not
// be touched), so the guests are linknet's fake: vsock endpoints are Unix
// sockets in a directory, and each "guest" is a process environment whose
// LAMGO_VSOCK_FAKE_CID says which context id it has. The remote shell is a
// script that starts the command here as guest 6, in its own session
// prefix. Everything above the socket family is the code that runs over
// real vsock.
func TestVsockUniverse(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	dir := t.TempDir()
	fake := filepath.Join(dir, "vsock")
	sp5, sp6 := filepath.Join(dir, "s5"), filepath.Join(dir, "s6")
	for _, d := range []string{fake, sp5, sp6} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The agent gets "vsock:6" (only ssh is given socat's proxy) and the
	// remote command, which it runs as guest 6.
	agent := filepath.Join(dir, "agent")
	script := "#!/bin/sh\n" +
		"case \"$1\" in vsock:6) ;; *) echo \"agent: unexpected host $1\" >&2; exit 255;; esac\n" +
		"shift\n" +
		"exec env " + linknet.EnvFakeCID + "=6 LAM_MPI_SESSION_PREFIX=" + sp6 + " sh -c \"$*\"\n"
	if err := os.WriteFile(agent, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "hosts")
	if err := os.WriteFile(schema, []byte("vsock:5 cpu=2\nvsock:6 cpu=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), linknet.EnvFake+"="+fake, linknet.EnvFakeCID+"=5",
		"LAM_MPI_SESSION_PREFIX="+sp5, "LAM_MPI_SESSION_SUFFIX=", "LAMHOME=",
		"LAM_MPI_SSI_boot_rsh_agent="+agent, "LAM_MPI_SSI_boot_rsh_fast=1", "LAM_MPI_SSI_boot_base_timeout=20")
	run := func(ctx context.Context, tool string, args ...string) result {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin(tool), args...)
		cmd.Env = env
		cmd.Dir = dir
		r := runCmd(t, cmd)
		r.stderr = withoutRootWarning(r.stderr)
		return r
	}
	if r := run(ctx, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot over vsock: %v", r)
	}
	t.Cleanup(func() {
		run(context.Background(), "lamhalt")
		run(context.Background(), "lamwipe", schema)
	})
	// Each guest's lamd listens for links on its own vsock context id.
	for _, cid := range []string{"5", "6"} {
		if l, _ := filepath.Glob(filepath.Join(fake, cid+".*")); len(l) != 1 {
			t.Errorf("guest %s's vsock listeners after lamboot: %v", cid, l)
		}
	}
	r := run(ctx, "lamnodes")
	if r.code != 0 || !regexp.MustCompile(`^n0\tvsock:5:2:origin,this_node\nn1\tvsock:6:2:\n$`).MatchString(r.stdout) {
		t.Errorf("lamnodes: %v", r)
	}
	if r := run(ctx, "tping", "-c", "2", "-d", "0", "n1"); r.code != 0 {
		t.Errorf("tping n1 over the vsock link: %v", r)
	}
	// Both guests' environments show who they are.
	if r := run(ctx, "lamexec", "n1", "sh", "-c", "echo $"+linknet.EnvFakeCID); r.code != 0 || r.stdout != "6\n" {
		t.Errorf("lamexec n1: %v", r)
	}
	// MPI across the guests over the tcp rpi on vsock.
	for _, mode := range []string{"p2p", "comm"} {
		if r := run(ctx, "mpirun", "-ssi", "rpi", "tcp", "C", bin("testprog"), mode); r.code != 0 || r.stdout != mode+" ok\n" {
			t.Errorf("mpirun C testprog %s over vsock: %v", mode, r)
		}
	}
	if r := run(ctx, "mpirun", "-ssi", "rpi", "tcp", "-np", "2", "n0", "n1", bin("testprog"), "big", "16"); r.code != 0 || r.stdout != "received 16 MiB\n" {
		t.Errorf("16 MiB between guests: %v", r)
	}
	if r := run(ctx, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	if left, _ := filepath.Glob(filepath.Join(fake, "*")); len(left) != 0 {
		t.Errorf("vsock endpoints left after lamhalt: %v", left)
	}
	if strings.Contains(r.stderr, "panic") {
		t.Errorf("lamhalt: %v", r)
	}
}
