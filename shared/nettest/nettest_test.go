package nettest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/testenv"
)

var sweepFlag = flag.String("nettest.sweep", "",
	"only run TestSweepLeftovers, which calls Sweep with this prefix (e.g. lt) to remove what killed test binaries left")

// TestSweepLeftovers is the manual clean-up hook:
//
//	go test ./nettest/ -run TestSweepLeftovers -nettest.sweep=lt
func TestSweepLeftovers(t *testing.T) {
	if *sweepFlag == "" {
		t.Skip("set -nettest.sweep=PREFIX to sweep leftovers")
	}
	testenv.RequireRoot(t)
	if err := Sweep(*sweepFlag); err != nil {
		t.Fatal(err)
	}
}

// run runs cmd and returns its trimmed stdout and stderr, failing the test
// on error.
func run(t *testing.T, cmd *exec.Cmd) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(cmd.Args, " "), err, stdout.String(), stderr.String())
	}
	return strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String())
}

// sshArgs splits the agent the way LAM does, on spaces.
func sshArgs(c *Cluster, args ...string) (string, []string) {
	agent := strings.Split(c.SSHAgent(), " ")
	return agent[0], append(agent[1:], args...)
}

// netnsList returns the names that `ip netns list` shows.
func netnsList(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(mustTool(t, "ip"), "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

func mustTool(t *testing.T, name string) string {
	t.Helper()
	p, ok := findTool(name)
	if !ok {
		t.Fatalf("%s not found", name)
	}
	return p
}

func TestThreeHosts(t *testing.T) {
	start := time.Now()
	c := New(t, Options{Hosts: 3})
	t.Logf("setup of 3 hosts (prefix %s, subnet %s): %v", c.Prefix(), c.subnet, time.Since(start))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if strings.ContainsAny(c.SSHAgent(), "\"'\\\t") || strings.Contains(c.SSHAgent(), "  ") {
		t.Errorf("SSHAgent() = %q has quoting or extra white space", c.SSHAgent())
	}

	for i, h := range c.Hosts {
		if out, _ := run(t, c.Command(ctx, i, "hostname")); out != h.Name {
			t.Errorf("host %d: hostname = %q, want %q", i, out, h.Name)
		}
		// Only lo and eth0, with the host's address.
		out, _ := run(t, c.Command(ctx, i, "ip", "-o", "-4", "addr", "show"))
		var ifs []string
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) < 4 {
				t.Fatalf("host %d: odd ip addr line %q", i, l)
			}
			ifs = append(ifs, f[1]+" "+f[3])
		}
		want := []string{"lo 127.0.0.1/8", "eth0 " + h.Addr.String() + "/24"}
		if strings.Join(ifs, ",") != strings.Join(want, ",") {
			t.Errorf("host %d: IPv4 interfaces %q, want %q", i, ifs, want)
		}
	}

	h2 := c.Hosts[2]
	if ping, ok := findTool("ping"); ok {
		run(t, c.Command(ctx, 0, ping, "-c", "1", "-W", "5", h2.Addr.String()))
	} else {
		t.Logf("no ping: connectivity checked by ssh only")
	}

	// ssh by address, as LAM would use the agent: stdout is the remote
	// hostname, stderr is empty.
	name, args := sshArgs(c, h2.Addr.String(), "hostname")
	out, errOut := run(t, c.Command(ctx, 0, name, args...))
	if out != h2.Name || errOut != "" {
		t.Errorf("ssh %s hostname: stdout %q, stderr %q; want %q and nothing", h2.Addr, out, errOut, h2.Name)
	}
	// By name too (resolved by ssh_config and by /etc/hosts inside hosts).
	name, args = sshArgs(c, h2.Name, "hostname")
	if out, errOut := run(t, c.Command(ctx, 1, name, args...)); out != h2.Name || errOut != "" {
		t.Errorf("ssh %s hostname: stdout %q, stderr %q", h2.Name, out, errOut)
	}
	if out, _ := run(t, c.Command(ctx, 1, "getent", "hosts", h2.Name)); !strings.HasPrefix(out, h2.Addr.String()+" ") {
		t.Errorf("getent hosts %s inside host 1 = %q, want address %s", h2.Name, out, h2.Addr)
	}
	if b, err := os.ReadFile(c.HostsFile()); err != nil || !strings.Contains(string(b), h2.Addr.String()+"\t"+h2.Name+"\n") {
		t.Errorf("HostsFile %s lacks %s: %v\n%s", c.HostsFile(), h2.Name, err, b)
	}
	if b, _ := os.ReadFile("/etc/hosts"); strings.Contains(string(b), c.Prefix()) {
		t.Errorf("the machine's /etc/hosts mentions %s", c.Prefix())
	}

	// A stopped sshd refuses within the ConnectTimeout bound.
	c.StopSSH(1)
	name, args = sshArgs(c, c.Hosts[1].Addr.String(), "true")
	t0 := time.Now()
	if out, err := c.Command(ctx, 0, name, args...).CombinedOutput(); err == nil {
		t.Errorf("ssh to host 1 after StopSSH(1) succeeded: %s", out)
	}
	if d := time.Since(t0); d > (ConnectTimeout+2)*time.Second {
		t.Errorf("ssh to a stopped sshd took %v", d)
	}

	// Close removes every namespace and ends every process.
	var procs []*proc
	procs = append(procs, c.holders...)
	for _, p := range c.sshds {
		if p != nil {
			procs = append(procs, p)
		}
	}
	dir := c.Dir()
	c.Close()
	for _, n := range netnsList(t) {
		if strings.HasPrefix(n, c.Prefix()) {
			t.Errorf("namespace %s left after Close", n)
		}
	}
	for _, p := range procs {
		if !p.exited() {
			t.Errorf("%s (pid %d) alive after Close", p.name, p.pid())
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.pid())); err == nil {
			t.Logf("note: pid %d exists again (reused?)", p.pid())
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s left after Close: %v", dir, err)
	}
	c.Close() // idempotent
	if err := c.Command(ctx, 0, "true").Run(); err == nil {
		t.Errorf("Command after Close ran")
	}
}

// TestPrefixEnvRestart checks a custom prefix, Options.Env, the working
// directory of Command, StartSSH and that Close kills daemons left by ssh
// sessions.
func TestPrefixEnvRestart(t *testing.T) {
	prefix := "e" + randomPrefix()[len(defaultTag):]
	c := New(t, Options{Hosts: 2, Prefix: prefix, Env: []string{
		"NETTEST_VAR=a b", "PATH=/nettest/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if c.Hosts[1].Name != prefix+"h1" {
		t.Errorf("host 1 named %q, want %q", c.Hosts[1].Name, prefix+"h1")
	}
	if !exists(nsPath(prefix + "sw")) {
		t.Errorf("no switch namespace %s", prefix+"sw")
	}

	name, args := sshArgs(c, c.Hosts[1].Name, `echo "$NETTEST_VAR:$PATH"`)
	out, errOut := run(t, c.Command(ctx, 0, name, args...))
	// root's ~/.bashrc may add to PATH, but must have started from ours.
	if v, path, _ := strings.Cut(out, ":"); v != "a b" || !strings.Contains(":"+path+":", ":/nettest/bin:") || errOut != "" {
		t.Errorf("remote environment: %q (stderr %q), want NETTEST_VAR \"a b\" and /nettest/bin in PATH", out, errOut)
	}

	// Command keeps the caller's working directory and environment.
	cmd := c.Command(ctx, 1, "sh", "-c", `pwd; echo "$NETTEST_LOCAL"`)
	cmd.Dir = c.Dir()
	cmd.Env = append(os.Environ(), "NETTEST_LOCAL=here")
	if out, _ := run(t, cmd); out != c.Dir()+"\nhere" {
		t.Errorf("Command's directory and environment: %q, want %q", out, c.Dir()+"\nhere")
	}

	// Stop and start again.
	c.StopSSH(1)
	c.StopSSH(1)
	name, args = sshArgs(c, c.Hosts[1].Name, "true")
	if err := c.Command(ctx, 0, name, args...).Run(); err == nil {
		t.Errorf("ssh to a stopped sshd succeeded")
	}
	c.StartSSH(1)
	run(t, c.Command(ctx, 0, name, args...))

	// A daemon started over ssh, detached from the session.
	name, args = sshArgs(c, c.Hosts[1].Name, `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!`)
	out, _ = run(t, c.Command(ctx, 0, name, args...))
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("daemon pid %q: %v", out, err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		t.Fatalf("daemon %d not running: %v", pid, err)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon %d still running after Close", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSweep(t *testing.T) {
	testenv.RequireRoot(t)
	ip, ok := findTool("ip")
	if !ok {
		testenv.Skip(t, "ip (iproute2) missing")
	}
	prefix := "s" + randomPrefix()[len(defaultTag):]
	// Leftovers as a killed binary leaves them, and one name that is not
	// ours.
	leftovers := []string{prefix + "sw", prefix + "h0", prefix + "h12"}
	foreign := prefix + "x"
	for _, n := range append(leftovers, foreign) {
		if out, err := exec.Command(ip, "netns", "add", n).CombinedOutput(); err != nil {
			t.Fatalf("ip netns add %s: %v: %s", n, err, out)
		}
	}
	t.Cleanup(func() {
		for _, n := range append(leftovers, foreign) {
			if exists(nsPath(n)) {
				exec.Command(ip, "netns", "delete", n).Run()
			}
		}
	})
	dir, err := os.MkdirTemp("", "nettest-"+prefix+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A process left in a leftover namespace.
	nsenter, ok := findTool("nsenter")
	if !ok {
		testenv.Skip(t, "nsenter (util-linux) missing")
	}
	sleeper := exec.Command(nsenter, "--net="+nsPath(prefix+"h0"), "--", "sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleeper.Wait() }()
	t.Cleanup(func() { sleeper.Process.Kill() })
	// nsenter enters the namespace after it started.
	want, err := os.Stat(nsPath(prefix + "h0"))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st, err := os.Stat(fmt.Sprintf("/proc/%d/ns/net", sleeper.Process.Pid)); err == nil && os.SameFile(st, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sleeper did not enter its namespace")
		}
		time.Sleep(10 * time.Millisecond)
	}

	if err := Sweep(""); err == nil {
		t.Errorf("Sweep(\"\") did not fail")
	}
	if err := Sweep(prefix); err != nil {
		t.Fatal(err)
	}
	for _, n := range leftovers {
		if exists(nsPath(n)) {
			t.Errorf("namespace %s left after Sweep", n)
		}
	}
	if !exists(nsPath(foreign)) {
		t.Errorf("Sweep deleted %s, which is not a cluster's", foreign)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s left after Sweep", dir)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("process in a leftover namespace not killed by Sweep")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o  Options
		ok bool
	}{
		{Options{Hosts: 1}, true},
		{Options{Hosts: MaxHosts, Prefix: "abcdefghij"}, true},
		{Options{Hosts: 0}, false},
		{Options{Hosts: MaxHosts + 1}, false},
		{Options{Hosts: 1, Prefix: "abcdefghijk"}, false},
		{Options{Hosts: 1, Prefix: "Ab"}, false},
		{Options{Hosts: 1, Prefix: "1a"}, false},
		{Options{Hosts: 1, Prefix: "a-b"}, false},
		{Options{Hosts: 1, Env: []string{"A=b c"}}, true},
		{Options{Hosts: 1, Env: []string{"A"}}, false},
		{Options{Hosts: 1, Env: []string{"A=\"x"}}, false},
		{Options{Hosts: 1, Env: []string{"1A=x"}}, false},
	} {
		if err := tc.o.validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: validate() = %v, want ok=%v", tc.o, err, tc.ok)
		}
	}
	for range 100 {
		p := randomPrefix()
		if err := checkPrefix(p); err != nil || len(hostNSName(p, MaxHosts-1)) > 15 {
			t.Fatalf("random prefix %q: %v", p, err)
		}
	}
}

// fakeTB stands in for the test in New, so that New's failures and skips
// can be observed; what it does not override goes to the real test.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
	skipped  string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.mu.Lock(); f.cleanups = append(f.cleanups, fn); f.mu.Unlock() }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }
func (f *fakeTB) Skip(args ...any)                  { f.skipped = fmt.Sprint(args...); runtime.Goexit() }

// do runs fn on its own goroutine, as Goexit needs, and waits for it.
func (f *fakeTB) do(fn func()) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	<-done
}

// cleanup runs the registered cleanups, last first.
func (f *fakeTB) cleanup() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.do(f.cleanups[i])
	}
	f.cleanups = nil
}

func (f *fakeTB) errors() string { return strings.Join(f.errs, "\n") }

// leftovers lists the namespaces and directories with prefix.
func leftovers(t *testing.T, prefix string) []string {
	var left []string
	for _, n := range netnsList(t) {
		if strings.HasPrefix(n, prefix) {
			left = append(left, n)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "nettest-"+prefix+"-*"))
	return append(left, dirs...)
}

// TestFailedNew checks that a New that fails says where, and that its
// cleanup removes what it built, and only that.
func TestFailedNew(t *testing.T) {
	testenv.RequireRoot(t)

	t.Run("sshd", func(t *testing.T) {
		needTools(t)
		testHookSSHDConfig = func(s string) string { return s + "NoSuchOption yes\n" }
		defer func() { testHookSSHDConfig = nil }()
		prefix := "f" + randomPrefix()[len(defaultTag):]
		f := &fakeTB{TB: t}
		var c *Cluster
		f.do(func() { c = New(f, Options{Hosts: 2, Prefix: prefix}) })
		if c != nil || !strings.Contains(f.errors(), "host 1 ("+prefix+"h1): wait for sshd: sshd exited") ||
			!strings.Contains(f.errors(), "NoSuchOption") {
			t.Errorf("New with a bad sshd_config: cluster %v, errors:\n%s", c, f.errors())
		}
		t.Logf("New failed as expected:\n%s", f.errors())
		f.cleanup()
		if len(f.errs) > 1 {
			t.Errorf("teardown: %s", f.errors())
		}
		if left := leftovers(t, prefix); len(left) > 0 {
			t.Errorf("left after cleanup: %q", left)
		}
	})

	t.Run("namespace exists", func(t *testing.T) {
		needTools(t)
		prefix := "f" + randomPrefix()[len(defaultTag):]
		ip := mustTool(t, "ip")
		if out, err := exec.Command(ip, "netns", "add", prefix+"h1").CombinedOutput(); err != nil {
			t.Fatalf("ip netns add: %v: %s", err, out)
		}
		defer exec.Command(ip, "netns", "delete", prefix+"h1").Run()
		f := &fakeTB{TB: t}
		f.do(func() { New(f, Options{Hosts: 2, Prefix: prefix}) })
		if !strings.Contains(f.errors(), "host 1 ("+prefix+"h1): create network namespace") {
			t.Errorf("New over an existing namespace: errors:\n%s", f.errors())
		}
		f.cleanup()
		if len(f.errs) > 1 {
			t.Errorf("teardown: %s", f.errors())
		}
		if left := leftovers(t, prefix); len(left) != 1 || left[0] != prefix+"h1" {
			t.Errorf("left after cleanup: %q, want only the foreign %sh1", left, prefix)
		}
	})

	t.Run("missing tools", func(t *testing.T) {
		saved := systemDirs
		systemDirs = nil
		defer func() { systemDirs = saved }()
		t.Setenv("PATH", t.TempDir())
		t.Setenv(testenv.StrictVar, "")
		f := &fakeTB{TB: t}
		f.do(func() { New(f, Options{Hosts: 1}) })
		for _, want := range []string{"sshd (openssh-server)", "ssh-keygen (openssh-client)", "ip (iproute2)", "nsenter (util-linux)"} {
			if !strings.Contains(f.skipped, want) {
				t.Errorf("skip message %q does not name %s", f.skipped, want)
			}
		}
		if len(f.cleanups) != 0 || len(f.errs) != 0 {
			t.Errorf("skipped New registered cleanups or failed: %s", f.errors())
		}
	})
}

// needTools skips (or, under LAM_TEST_STRICT=1, fails) where a tool New
// needs is missing, naming the packages to install.
func needTools(t *testing.T) {
	t.Helper()
	if _, missing := lookTools(); len(missing) > 0 {
		testenv.Skip(t, "missing tools: "+strings.Join(missing, ", "))
	}
}

func TestSplitCPUsDeal(t *testing.T) {
	set := func(cpus ...int) *unix.CPUSet {
		var s unix.CPUSet
		for _, c := range cpus {
			s.Set(c)
		}
		return &s
	}
	for _, tc := range []struct {
		set  *unix.CPUSet
		n    int
		want string
	}{
		{set(0, 1), 2, "[[0] [1]]"},
		{set(0, 1, 2, 3), 2, "[[0 2] [1 3]]"},
		{set(0, 1, 2), 2, "[[0 2] [1]]"},
		{set(0, 1), 3, "[[0] [1] [0]]"},
		{set(3), 2, "[[3] [3]]"},
		{set(1, 5, 70), 1, "[[1 5 70]]"},
	} {
		if got := fmt.Sprint(splitCPUs(tc.set, tc.n)); got != tc.want {
			t.Errorf("splitCPUs(%v, %d) = %s, want %s", tc.set, tc.n, got, tc.want)
		}
	}
	if got := cpuList([]int{0, 2, 4}); got != "0,2,4" {
		t.Errorf("cpuList = %q", got)
	}
}

// With SplitCPUs a host's commands, and what ssh starts on it, run on the
// host's processors only.
func TestSplitCPUs(t *testing.T) {
	c := New(t, Options{Hosts: 2, SplitCPUs: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	allowed := func(cmd *exec.Cmd) string {
		out, _ := run(t, cmd)
		_, list, _ := strings.Cut(out, ":")
		return strings.TrimSpace(list)
	}
	for i, h := range c.Hosts {
		if len(h.CPUs) == 0 {
			t.Fatalf("host %d has no processors", i)
		}
		want := cpuList(h.CPUs)
		if len(h.CPUs) > 1 && h.CPUs[len(h.CPUs)-1]-h.CPUs[0] == len(h.CPUs)-1 {
			want = fmt.Sprintf("%d-%d", h.CPUs[0], h.CPUs[len(h.CPUs)-1]) // the kernel's range form
		}
		const grep = "grep Cpus_allowed_list /proc/self/status"
		if got := allowed(c.Command(ctx, i, "sh", "-c", grep)); got != want {
			t.Errorf("host %d: a command runs on %q, want %q", i, got, want)
		}
		agent, args := sshArgs(c, h.Addr.String(), grep)
		if got := allowed(c.Command(ctx, 1-i, agent, args...)); got != want {
			t.Errorf("host %d: a command through ssh runs on %q, want %q", i, got, want)
		}
	}
}
