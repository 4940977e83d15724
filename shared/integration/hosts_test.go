package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/nettest"
)

// hosts is a universe spread over simulated hosts: network namespaces
// joined by a bridge, each with its own hostname and a real sshd, so that
// lamboot's rsh module goes through ssh.
type hosts struct {
	t      testing.TB
	c      *nettest.Cluster
	prefix string // session prefix, on every host
	env    []string
}

func newHosts(t testing.TB, n int, extraEnv ...string) *hosts {
	t.Helper()
	return newHostsWith(t, nettest.Options{Hosts: n}, extraEnv...)
}

// newHostsWith is newHosts with the cluster's options (o.Env is set
// here).
func newHostsWith(t testing.TB, o nettest.Options, extraEnv ...string) *hosts {
	t.Helper()
	needPgrep(t)
	sp, err := os.MkdirTemp("", "lamgo-sessions-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered first: nettest.New may skip the test (no root, no sshd),
	// and a skip ends the test before any later cleanup is registered.
	t.Cleanup(func() { os.RemoveAll(sp) })
	os.Chmod(sp, 0o755)
	o.Env = []string{"LAM_MPI_SESSION_PREFIX=" + sp}
	c := nettest.New(t, o)
	h := &hosts{t: t, c: c, prefix: sp}
	h.env = append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_rsh_agent="+c.SSHAgent(), "LAM_MPI_SSI_boot_base_timeout=20")
	h.env = append(h.env, extraEnv...)
	t.Cleanup(func() {
		// Whatever a failed test left: stop every lamd, then the cluster.
		for i := range c.Hosts {
			h.run(context.Background(), i, "lamwipe", "-H", "-prefix", prefix, h.schemaPath())
		}
	})
	return h
}

func (h *hosts) run(ctx context.Context, host int, tool string, args ...string) result {
	h.t.Helper()
	path := tool
	if !strings.Contains(tool, "/") {
		path = bin(tool)
	}
	cmd := h.c.Command(ctx, host, path, args...)
	cmd.Env = h.env
	r := runCmd(h.t, cmd)
	r.stderr = withoutRootWarning(r.stderr)
	return r
}

func (h *hosts) schemaPath() string { return filepath.Join(h.prefix, "hosts") }

// schema writes the boot schema: one line per host, with extra text per
// host (cpu=2, prefix=...).
func (h *hosts) schema(extra map[int]string, hostNames ...string) string {
	var b strings.Builder
	for i, host := range h.c.Hosts {
		fmt.Fprintf(&b, "%s %s\n", host.Name, extra[i])
	}
	for _, n := range hostNames {
		fmt.Fprintln(&b, n)
	}
	if err := os.WriteFile(h.schemaPath(), []byte(b.String()), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return h.schemaPath()
}

// lamds lists the lamd pids running on host i.
// lamds lists the lamds in host i's network namespace (the machine may
// run other lamds, of other tests or users, outside it).
func (h *hosts) lamds(i int) []string {
	ns, err := h.c.Command(context.Background(), i, "readlink", "/proc/self/ns/net").Output()
	if err != nil {
		h.t.Fatalf("host %d's network namespace: %v", i, err)
	}
	out, _ := exec.Command("pgrep", "-x", "lamd").Output()
	var mine []string
	for _, pid := range strings.Fields(string(out)) {
		if theirs, err := os.Readlink(filepath.Join("/proc", pid, "ns", "net")); err == nil && theirs == strings.TrimSpace(string(ns)) {
			mine = append(mine, pid)
		}
	}
	return mine
}

// noLamds waits (bounded) until no host runs a lamd and no session
// directory is left.
func (h *hosts) noLamds() {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []string
		for i := range h.c.Hosts {
			for _, p := range h.lamds(i) {
				left = append(left, fmt.Sprintf("%s:%s", h.c.Hosts[i].Name, p))
			}
		}
		dirs, _ := filepath.Glob(filepath.Join(h.prefix, "lam-*"))
		if len(left) == 0 && len(dirs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var contents []string
			for _, d := range dirs {
				es, _ := os.ReadDir(d)
				for _, e := range es {
					contents = append(contents, filepath.Join(filepath.Base(d), e.Name()))
				}
			}
			h.t.Errorf("left behind: lamds %v, session directories %v holding %v", left, dirs, contents)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (h *hosts) killFilePID(host int) int {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.prefix, "lam-root@"+h.c.Hosts[host].Name, "lam-killfile"))
	if err != nil {
		h.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		h.t.Fatal(err)
	}
	return pid
}

func TestHostsUniverse(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 4*time.Minute)
	h := newHosts(t, 3)
	schema := h.schema(map[int]string{1: "cpu=2"})
	if r := h.run(ctx, 0, "lamboot", "-v", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	// Every host sees the same table; only this_node moves.
	var tables []string
	for i := range h.c.Hosts {
		r := h.run(ctx, i, "lamnodes")
		if r.code != 0 || strings.Count(r.stdout, "\n") != 3 {
			t.Fatalf("lamnodes on host %d: %v", i, r)
		}
		if !strings.Contains(r.stdout, fmt.Sprintf("n%d\t", i)) || !regexp.MustCompile(fmt.Sprintf(`(?m)^n%d\t[^\n]*this_node$`, i)).MatchString(r.stdout) {
			t.Errorf("host %d is not this_node in %q", i, r.stdout)
		}
		tables = append(tables, strings.ReplaceAll(strings.ReplaceAll(r.stdout, ",this_node", ""), ":this_node", ":"))
	}
	if tables[0] != tables[1] || tables[1] != tables[2] || !strings.Contains(tables[0], ":2:") || !strings.Contains(tables[0], "origin") {
		t.Errorf("tables differ or lack cpu=2 / origin:\n%s", strings.Join(tables, "---\n"))
	}
	if r := h.run(ctx, 1, "tping", "-c", "2", "-d", "0", "N"); r.code != 0 || !strings.Contains(r.stdout, "from 2 remote nodes and 1 local node") {
		t.Errorf("tping N: %v", r)
	}
	names := func(out string) []string {
		f := strings.Fields(out)
		sort.Strings(f)
		return f
	}
	want := []string{h.c.Hosts[0].Name, h.c.Hosts[1].Name, h.c.Hosts[2].Name}
	if r := h.run(ctx, 0, "lamexec", "N", "hostname"); r.code != 0 || strings.Join(names(r.stdout), " ") != strings.Join(want, " ") {
		t.Errorf("lamexec N hostname: %v", r)
	}
	if r := h.run(ctx, 0, "lamexec", "C", "hostname"); r.code != 0 || strings.Count(r.stdout, h.c.Hosts[1].Name+"\n") != 2 {
		t.Errorf("lamexec C hostname: %v", r)
	}
	// An MPI job across the hosts, over TCP.
	for _, mode := range []string{"p2p", "comm", "edges"} {
		if r := h.run(ctx, 2, "mpirun", "C", bin("testprog"), mode); r.code != 0 || r.stdout != mode+" ok\n" {
			t.Errorf("mpirun C testprog %s across hosts: %v", mode, r)
		}
	}
	if r := h.run(ctx, 0, "mpirun", "-ssi", "rpi", "tcp", "-np", "2", "n1", "n2", bin("testprog"), "big", "16"); r.code != 0 || r.stdout != "received 16 MiB\n" {
		t.Errorf("16 MiB between hosts: %v", r)
	}
	// Shrink, then grow back.
	if r := h.run(ctx, 0, "lamshrink", "n2"); r.code != 0 {
		t.Fatalf("lamshrink n2: %v", r)
	}
	if r := h.run(ctx, 1, "lamnodes", "n2"); r.stdout != "n2\tinvalid node\n" {
		t.Errorf("n2 after lamshrink: %v", r)
	}
	if r := h.run(ctx, 0, "lamnodes"); strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("after lamshrink: %v", r)
	}
	if r := h.run(ctx, 0, "lamgrow", "-prefix", prefix, h.c.Hosts[2].Name); r.code != 0 {
		t.Fatalf("lamgrow: %v", r)
	}
	for i := range h.c.Hosts {
		if r := h.run(ctx, i, "lamnodes"); strings.Count(r.stdout, "\n") != 3 {
			t.Errorf("lamnodes on host %d after lamgrow: %v", i, r)
		}
	}
	if r := h.run(ctx, 2, "tping", "-c", "1", "-d", "0", "N"); r.code != 0 {
		t.Errorf("tping N after lamgrow: %v", r)
	}
	if r := h.run(ctx, 1, "lamhalt", "-v"); r.code != 0 || strings.Count(r.stdout, "received HALT_ACK") != 3 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
}

func TestHostsDeadNode(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 3*time.Minute)
	h := newHosts(t, 3, "LAM_MPI_SSI_boot_base_heartbeat=200ms")
	if r := h.run(ctx, 0, "lamboot", "-x", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		t.Fatalf("lamboot -x: %v", r)
	}
	dead := func(node int) bool {
		r := h.run(ctx, 0, "lamnodes", fmt.Sprintf("n%d", node))
		return strings.HasSuffix(strings.TrimSpace(r.stdout), "dead")
	}
	waitDead := func(node int, bound time.Duration) {
		t.Helper()
		deadline := time.Now().Add(bound)
		for !dead(node) {
			if time.Now().After(deadline) {
				all := h.run(ctx, 0, "lamnodes")
				t.Fatalf("n%d not reported dead within %v; lamd pids per host %v %v %v; lamnodes:\n%v", node, bound, h.lamds(0), h.lamds(1), h.lamds(2), all)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// A lamd killed outright: its links close.
	syscall.Kill(h.killFilePID(2), syscall.SIGKILL)
	waitDead(2, 5*time.Second)
	if r := h.run(ctx, 0, "tping", "-c", "1", "n2"); r.code == 0 || !strings.Contains(r.stderr, "n2") {
		t.Errorf("tping to a dead node: %v", r)
	}
	// A lamd that falls silent: heartbeats notice within three periods.
	pid := h.killFilePID(1)
	syscall.Kill(pid, syscall.SIGSTOP)
	waitDead(1, 5*time.Second)
	syscall.Kill(pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGCONT)
	if r := h.run(ctx, 0, "lamhalt", "-H"); r.code != 0 && r.code != 202 {
		t.Errorf("lamhalt with dead nodes: %v", r)
	}
	h.run(ctx, 0, "lamwipe", "-H", "-prefix", prefix, h.schemaPath())
	h.noLamds()
}

func TestHostsBootFailures(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 4*time.Minute)
	h := newHosts(t, 3, "LAM_MPI_SSI_boot_base_timeout=5")
	check := func(name string, r result, want ...string) {
		t.Helper()
		if r.code == 0 {
			t.Errorf("%s: lamboot succeeded: %v", name, r)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr lacks %q: %v", name, w, r)
			}
		}
		h.noLamds()
	}
	// A host that does not resolve.
	r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil, "no-such-host.invalid"))
	check("unresolvable host", r, "n3 (no-such-host.invalid)", "resolve")
	// ssh refusing.
	h.c.StopSSH(1)
	r = h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil))
	check("ssh refused", r, "n1 ("+h.c.Hosts[1].Name+")", "ssh")
	h.c.StartSSH(1)
	// An agent that writes to stderr.
	agent := filepath.Join(h.prefix, "noisy-agent")
	os.WriteFile(agent, []byte("#!/bin/sh\necho 'Welcome to the cluster' >&2\nexec "+h.c.SSHAgent()+" \"$@\"\n"), 0o755)
	r = h.run(ctx, 0, "lamboot", "-prefix", prefix, "-ssi", "boot_rsh_agent", agent, h.schema(nil))
	check("agent stderr", r, "Welcome to the cluster")
	r = h.run(ctx, 0, "lamboot", "-prefix", prefix, "-ssi", "boot_rsh_agent", agent, "-ssi", "boot_rsh_ignore_stderr", "1", h.schema(nil))
	if r.code != 0 {
		t.Errorf("agent stderr ignored: %v", r)
	} else if r := h.run(ctx, 0, "lamhalt", "-H"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	// A lamd that dies during the boot, on host 2.
	fake := filepath.Join(h.prefix, "fake")
	os.MkdirAll(filepath.Join(fake, "bin"), 0o755)
	os.MkdirAll(filepath.Join(fake, "etc"), 0o755)
	hb, _ := os.ReadFile(bin("hboot"))
	os.WriteFile(filepath.Join(fake, "bin", "hboot"), hb, 0o755)
	os.WriteFile(filepath.Join(fake, "bin", "lamd"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	conf, _ := os.ReadFile(filepath.Join(prefix, "etc", "lam-conf.lamd"))
	os.WriteFile(filepath.Join(fake, "etc", "lam-conf.lamd"), conf, 0o644)
	r = h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(map[int]string{2: "prefix=" + fake}))
	check("lamd dies", r, "n2 ("+h.c.Hosts[2].Name+")", "did not call back")
}

// testUser documents that these tests run the tools as the test's user;
// with root the tools print a warning that withoutRootWarning removes.
func testUser(t *testing.T) { t.Helper() }
