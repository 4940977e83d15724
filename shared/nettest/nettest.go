// Package nettest builds clusters of simulated hosts on one Linux machine,
// for integration tests of the LAM run-time environment that must boot a
// universe across several hosts with lamboot really going through ssh.
//
// Each simulated host is a network namespace plus a UTS namespace (its own
// hostname) plus a mount namespace (its own /etc/hosts, see below); all
// hosts are joined by a Linux bridge that lives in a separate "switch"
// network namespace, and each host runs a real OpenSSH sshd that accepts a
// key generated for the cluster. Nothing is created in the root network
// namespace, so the hosts can reach each other but not the outside world,
// and the root namespace (where the test binary runs) cannot reach them:
// every command that should run "on" a host must be started with
// [Cluster.Command].
//
// The hosts share the machine's filesystem, with one exception: inside
// every host, /etc/hosts is the file [Cluster.HostsFile] (bind-mounted over
// it in the host's private mount namespace), which holds the machine's
// /etc/hosts plus a line for every cluster host. So host names resolve
// inside the hosts (ssh, lamboot, getent hosts) while the machine's real
// /etc/hosts is never edited. Mounts made in the root mount namespace after
// the cluster was built still propagate into the hosts (the host mount
// namespaces are slaves of the root one); mounts made inside a host stay
// there. /sys inside a host still shows the root namespace's view.
//
// A typical test:
//
//	c := nettest.New(t, nettest.Options{Hosts: 3})
//	// a boot schema listing c.Hosts[i].Addr.String() (or the names,
//	// which resolve inside the hosts only), written anywhere: the hosts
//	// share the filesystem
//	// ...
//	cmd := c.Command(ctx, 0, "lamboot", "-ssi", "boot_rsh_agent", c.SSHAgent(), schema)
//
// Commands run over ssh get sshd's login environment (HOME=/root, sshd's
// default PATH, ...), as modified by the login shell's startup files (bash
// reads root's ~/.bashrc for ssh commands), not the caller's: use absolute
// paths, or set variables for every ssh session with [Options.Env].
//
// New needs root and the tools ip (iproute2), unshare, nsenter and mount
// (util-linux), sshd (openssh-server), ssh and ssh-keygen (openssh-client);
// without them it skips the test with [testenv.Skip], naming what is
// missing. It installs nothing.
//
// Everything a cluster creates is torn down by a t.Cleanup that New
// registers (also after a failed or panicking test), or earlier by
// [Cluster.Close]. The processes it starts carry PR_SET_PDEATHSIG=SIGKILL,
// so a test binary killed mid-way leaves at worst its network namespaces
// (named with the cluster's unique prefix), its temporary directory and
// any daemon that detached from an ssh session; [Sweep] removes those.
package nettest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/testenv"
)

// MaxHosts is the largest number of hosts a cluster may have.
const MaxHosts = 32

// MaxPrefixLen is the longest [Options.Prefix] accepted, so that namespace
// names and hostnames stay within 15 characters.
const MaxPrefixLen = 10

// ConnectTimeout is the ConnectTimeout, in seconds, that [Cluster.SSHAgent]'s
// ssh configuration sets.
const ConnectTimeout = 5

const (
	// stepTimeout bounds every single setup step (one command, one wait).
	stepTimeout = 10 * time.Second
	// killGrace is how long a process gets after SIGTERM, and again after
	// SIGKILL, before teardown gives up on it.
	killGrace = 2 * time.Second
	// netnsDir is where ip(8) keeps named network namespaces.
	netnsDir = "/run/netns"
	// sshdPrivsepDir must exist for sshd to start.
	sshdPrivsepDir = "/run/sshd"
	// defaultTag is how a default prefix starts.
	defaultTag = "lt"
)

var (
	prefixRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	// nsNameRE matches every namespace name a cluster creates:
	// <prefix>sw and <prefix>h<i>.
	nsNameRE  = regexp.MustCompile(`^[a-z][a-z0-9]*(sw|h[0-9]{1,2})$`)
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	sshVerRE  = regexp.MustCompile(`OpenSSH_([0-9]+)\.([0-9]+)`)
)

// Options configures [New].
type Options struct {
	// Hosts is the number of hosts, 1 to MaxHosts.
	Hosts int

	// Prefix starts the name of every namespace and hostname of the
	// cluster: the switch namespace is Prefix+"sw" and host i is
	// Prefix+"h"+i (e.g. "lt3k9xah0"). It must be lower-case letters and
	// digits, start with a letter and be at most MaxPrefixLen long. The
	// default is "lt" plus a random 5-character tag, so that test
	// binaries running in parallel (and several clusters in one binary)
	// do not collide; set it only when a fixed name matters, and then
	// never share it between clusters that may exist at the same time.
	Prefix string

	// SplitCPUs gives every host processors of its own, as real hosts
	// have: the processors the test may run on are dealt out among the
	// hosts (host i gets every len(Hosts)-th one from the i-th on, or,
	// with more hosts than processors, the (i mod n)-th of the n), and
	// every process started on host i ([Cluster.Command], its sshd, so
	// whatever ssh starts there, and their children) runs on host i's
	// processors only ([Host.CPUs]). Without it every host's processes
	// may run on all of them: two hosts of two busy processes each on a
	// two-processor machine are four processes on two processors, each of
	// which sees its host's two processors as its own. Needs taskset
	// (util-linux).
	SplitCPUs bool

	// Env holds "NAME=VALUE" pairs that sshd sets for every ssh session
	// on every host (sshd_config SetEnv), overriding sshd's defaults, e.g.
	// "PATH=/work/bin:/usr/bin:/bin" so that the LAM binaries are found
	// by commands lamboot runs through ssh (the remote login shell's
	// startup files may still add to them). Values must not contain '"',
	// '\\' or newlines.
	Env []string
}

// Host is one simulated host of a [Cluster].
type Host struct {
	// Name is the hostname inside the host (what hostname(1) prints
	// there) and also the name of its network namespace
	// (ip -n <Name> ...). It resolves to Addr inside every host of the
	// cluster, but not in the root namespace.
	Name string

	// Addr is the host's IPv4 address on the cluster's bridge, on its
	// interface eth0. It is reachable only from inside the cluster's
	// hosts.
	Addr netip.Addr

	// CPUs are the processors the host's processes run on with
	// [Options.SplitCPUs]; nil (any processor) without.
	CPUs []int
}

// Cluster is a set of simulated hosts built by [New].
type Cluster struct {
	// Hosts are the cluster's hosts, indexed by the host numbers that the
	// methods take. Do not modify.
	Hosts []Host

	t          testing.TB
	tools      tools
	prefix     string
	subnet     netip.Prefix
	dir        string
	sshConfig  string
	hostsFile  string
	authKeys   string
	hostKey    string
	sshVersion [2]int
	env        []string

	netns   []string // namespaces created (and so to delete), in order
	holders []*proc  // per host: the process that holds its UTS and mount ns

	mu    sync.Mutex
	sshds []*proc // per host: its sshd, nil when not running

	closed    atomic.Bool
	closeOnce sync.Once
}

// tools holds the absolute paths of the programs the package runs.
type tools struct {
	ip, unshare, nsenter, mount, sshd, ssh, keygen, sh, sleep string
	taskset                                                   string // with Options.SplitCPUs only
}

// toolPackages names the Debian package providing each tool, for messages.
var toolPackages = map[string]string{
	"ip": "iproute2", "unshare": "util-linux", "nsenter": "util-linux",
	"mount": "mount", "sshd": "openssh-server", "ssh": "openssh-client",
	"ssh-keygen": "openssh-client", "sh": "dash", "sleep": "coreutils",
	"taskset": "util-linux",
}

// systemDirs are searched for tools after PATH.
var systemDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// testHookSSHDConfig, when set, rewrites every sshd_config (tests only).
var testHookSSHDConfig func(string) string

// findTool returns the absolute path of a program, looking in PATH and
// then in the usual system directories (PATH may lack the sbin ones).
func findTool(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil && filepath.IsAbs(p) {
		return p, true
	}
	for _, d := range systemDirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// lookTools finds every tool, and returns the ones missing as
// "name (package)".
func lookTools() (tools, []string) {
	var missing []string
	find := func(name string) string {
		p, ok := findTool(name)
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (%s)", name, toolPackages[name]))
		}
		return p
	}
	tl := tools{
		ip:      find("ip"),
		unshare: find("unshare"),
		nsenter: find("nsenter"),
		mount:   find("mount"),
		sshd:    find("sshd"),
		ssh:     find("ssh"),
		keygen:  find("ssh-keygen"),
		sh:      find("sh"),
		sleep:   find("sleep"),
	}
	return tl, missing
}

// validate checks o, filling nothing in.
func (o Options) validate() error {
	if o.Hosts < 1 || o.Hosts > MaxHosts {
		return fmt.Errorf("Options.Hosts = %d, want 1..%d", o.Hosts, MaxHosts)
	}
	if o.Prefix != "" {
		if err := checkPrefix(o.Prefix); err != nil {
			return err
		}
	}
	for _, kv := range o.Env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !envNameRE.MatchString(name) {
			return fmt.Errorf("Options.Env entry %q is not NAME=VALUE", kv)
		}
		if strings.ContainsAny(value, "\"\\\n\r\x00") {
			return fmt.Errorf("Options.Env entry %q: value must not contain '\"', '\\\\' or newlines", kv)
		}
	}
	return nil
}

func checkPrefix(p string) error {
	if len(p) > MaxPrefixLen || !prefixRE.MatchString(p) {
		return fmt.Errorf("Options.Prefix %q: want 1..%d lower-case letters and digits, starting with a letter", p, MaxPrefixLen)
	}
	return nil
}

// randomPrefix returns "lt" plus 5 random base-36 characters.
func randomPrefix() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		// Cannot happen on Linux; fall back on the pid and the clock.
		v := uint64(os.Getpid())<<20 ^ uint64(time.Now().UnixNano())
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
	tag := make([]byte, len(b))
	for i, x := range b {
		tag[i] = digits[int(x)%len(digits)]
	}
	return defaultTag + string(tag)
}

// subnetFor picks the cluster's /24 in 10.213.0.0/16 from its prefix. The
// hosts live in their own namespaces, so two clusters could even share a
// subnet; distinct ones just make logs easier to read.
func subnetFor(prefix string) netip.Prefix {
	h := fnv.New32a()
	io.WriteString(h, prefix)
	k := byte(h.Sum32()%250 + 1)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 213, k, 0}), 24)
}

func (c *Cluster) switchNS() string          { return c.prefix + "sw" }
func hostNSName(prefix string, i int) string { return prefix + "h" + strconv.Itoa(i) }
func nsPath(name string) string              { return filepath.Join(netnsDir, name) }

// New builds a cluster of o.Hosts hosts and registers a t.Cleanup that
// tears all of it down (see [Cluster.Close]). It must be called from the
// test's goroutine; it fails the test (t.Fatal) when building fails, with
// the host and step that failed and the tail of the relevant log, and
// skips it (testenv.Skip, which fails under LAM_TEST_STRICT=1) when not
// running as root on Linux or when a needed tool is missing.
//
// When New returns, every host's sshd accepts the cluster's key: ssh with
// [Cluster.SSHAgent] from host 0 to every host has succeeded.
func New(t testing.TB, o Options) *Cluster {
	t.Helper()
	if runtime.GOOS != "linux" {
		testenv.Skip(t, "nettest: needs Linux namespaces")
	}
	if os.Geteuid() != 0 {
		testenv.Skip(t, "nettest: needs root (network namespaces, sshd)")
	}
	tl, missing := lookTools()
	if o.SplitCPUs {
		var ok bool
		if tl.taskset, ok = findTool("taskset"); !ok {
			missing = append(missing, "taskset ("+toolPackages["taskset"]+")")
		}
	}
	if len(missing) > 0 {
		testenv.Skip(t, "nettest: missing tools: "+strings.Join(missing, ", "))
	}
	if err := o.validate(); err != nil {
		t.Fatalf("nettest: %v", err)
	}
	c := &Cluster{t: t, tools: tl, env: o.Env}
	t.Cleanup(c.Close)
	if err := c.build(o); err != nil {
		t.Fatalf("nettest: %v", err)
	}
	return c
}

// build creates everything; Close undoes whatever part of it was done.
func (c *Cluster) build(o Options) error {
	c.sshVersion = sshdVersion(c.tools.sshd)

	// Names. A default prefix is retried while its namespaces exist.
	c.prefix = o.Prefix
	if c.prefix == "" {
		for range 10 {
			c.prefix = randomPrefix()
			if !exists(nsPath(c.switchNS())) && !exists(nsPath(hostNSName(c.prefix, 0))) {
				break
			}
		}
	}
	c.subnet = subnetFor(c.prefix)
	base := c.subnet.Addr().As4()
	c.Hosts = make([]Host, o.Hosts)
	for i := range c.Hosts {
		a := base
		a[3] = byte(i + 1)
		c.Hosts[i] = Host{Name: hostNSName(c.prefix, i), Addr: netip.AddrFrom4(a)}
	}
	if o.SplitCPUs {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return fmt.Errorf("the test's processors: %w", err)
		}
		for i, cpus := range splitCPUs(&set, o.Hosts) {
			c.Hosts[i].CPUs = cpus
		}
	}
	c.holders = make([]*proc, o.Hosts)
	c.sshds = make([]*proc, o.Hosts)

	// The directory: keys, configurations, logs. Its path must hold no
	// white space, since it ends up in SSHAgent's command line.
	tmp := os.TempDir()
	if strings.ContainsAny(tmp, " \t\n\r\"'\\") {
		tmp = "/tmp"
	}
	dir, err := os.MkdirTemp(tmp, "nettest-"+c.prefix+"-")
	if err != nil {
		return fmt.Errorf("create cluster directory: %w", err)
	}
	c.dir = dir
	c.sshConfig = filepath.Join(dir, "ssh_config")
	c.hostsFile = filepath.Join(dir, "hosts")
	c.authKeys = filepath.Join(dir, "authorized_keys")
	c.hostKey = filepath.Join(dir, "ssh_host_ed25519_key")
	clientKey := filepath.Join(dir, "id_ed25519")

	// Keys.
	for _, k := range []struct{ path, comment string }{
		{c.hostKey, "nettest host key " + c.prefix},
		{clientKey, "nettest client key " + c.prefix},
	} {
		if err := runStep("generate key", "", c.tools.keygen, "-q", "-t", "ed25519", "-N", "", "-C", k.comment, "-f", k.path); err != nil {
			return err
		}
	}
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		return fmt.Errorf("read client key: %w", err)
	}
	if err := os.WriteFile(c.authKeys, pub, 0o600); err != nil {
		return fmt.Errorf("write authorized_keys: %w", err)
	}

	// Configuration files.
	if err := c.writeHostsFile(); err != nil {
		return err
	}
	if err := os.WriteFile(c.sshConfig, []byte(c.sshConfigText(clientKey)), 0o644); err != nil {
		return fmt.Errorf("write ssh_config: %w", err)
	}
	for i := range c.Hosts {
		cfg := c.sshdConfigText(i)
		if testHookSSHDConfig != nil {
			cfg = testHookSSHDConfig(cfg)
		}
		if err := os.WriteFile(c.sshdConfigPath(i), []byte(cfg), 0o644); err != nil {
			return fmt.Errorf("host %d (%s): write sshd_config: %w", i, c.Hosts[i].Name, err)
		}
	}

	// The switch: a bridge in its own namespace.
	sw := c.switchNS()
	if err := c.addNetns(sw); err != nil {
		return fmt.Errorf("switch: %w", err)
	}
	if err := runStep("switch: create bridge", "link add br0 type bridge\nlink set br0 up\nlink set lo up\n",
		c.tools.ip, "-n", sw, "-batch", "-"); err != nil {
		return err
	}

	// The hosts' networks: eth0 in the host, its veth peer v<i> on the
	// bridge.
	var swBatch strings.Builder
	for i, h := range c.Hosts {
		if err := c.addNetns(h.Name); err != nil {
			return fmt.Errorf("host %d (%s): %w", i, h.Name, err)
		}
		batch := fmt.Sprintf("link add eth0 type veth peer name v%d netns %s\n"+
			"addr add %s/%d dev eth0\n"+
			"link set lo up\n"+
			"link set eth0 up\n", i, sw, h.Addr, c.subnet.Bits())
		if err := runStep(fmt.Sprintf("host %d (%s): configure network", i, h.Name), batch,
			c.tools.ip, "-n", h.Name, "-batch", "-"); err != nil {
			return err
		}
		fmt.Fprintf(&swBatch, "link set v%d master br0\nlink set v%d up\n", i, i)
	}
	if err := runStep("switch: attach hosts to the bridge", swBatch.String(),
		c.tools.ip, "-n", sw, "-batch", "-"); err != nil {
		return err
	}

	// The hosts' UTS and mount namespaces.
	for i := range c.Hosts {
		if err := c.startHolder(i); err != nil {
			return fmt.Errorf("host %d (%s): %w", i, c.Hosts[i].Name, err)
		}
	}

	// sshd everywhere, started together, then waited for together.
	if err := ensureDir(sshdPrivsepDir, 0o755); err != nil {
		return fmt.Errorf("sshd privilege separation directory: %w", err)
	}
	for i := range c.Hosts {
		p, err := c.startSSHD(i)
		if err != nil {
			return fmt.Errorf("host %d (%s): start sshd: %w", i, c.Hosts[i].Name, err)
		}
		c.mu.Lock()
		c.sshds[i] = p
		c.mu.Unlock()
	}
	errs := make([]error, len(c.Hosts))
	var wg sync.WaitGroup
	for i := range c.Hosts {
		wg.Go(func() { errs[i] = c.waitSSH(i, c.sshds[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addNetns creates a named network namespace and records it for Close.
func (c *Cluster) addNetns(name string) error {
	if err := runStep("create network namespace "+name, "", c.tools.ip, "netns", "add", name); err != nil {
		return err
	}
	c.netns = append(c.netns, name)
	return nil
}

// writeHostsFile writes the machine's /etc/hosts plus the cluster's hosts.
func (c *Cluster) writeHostsFile() error {
	orig, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return fmt.Errorf("read /etc/hosts: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated by nettest for cluster %s: the machine's /etc/hosts, then the\n", c.prefix)
	fmt.Fprintf(&b, "# cluster's hosts. Bind-mounted over /etc/hosts inside every cluster host.\n")
	b.Write(orig)
	if len(orig) > 0 && orig[len(orig)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "\n# nettest cluster %s\n", c.prefix)
	b.WriteString(c.clusterHostsLines())
	if err := os.WriteFile(c.hostsFile, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write hosts file: %w", err)
	}
	return nil
}

func (c *Cluster) clusterHostsLines() string {
	var b strings.Builder
	for _, h := range c.Hosts {
		fmt.Fprintf(&b, "%s\t%s\n", h.Addr, h.Name)
	}
	return b.String()
}

// sshConfigText is the client configuration behind SSHAgent.
func (c *Cluster) sshConfigText(clientKey string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ssh_config for nettest cluster %s, generated by nettest.\n", c.prefix)
	for _, h := range c.Hosts {
		fmt.Fprintf(&b, "Host %s\n  HostName %s\n", h.Name, h.Addr)
	}
	fmt.Fprintf(&b, `Host *
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  PubkeyAuthentication yes
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  GlobalKnownHostsFile /dev/null
  CheckHostIP no
  UpdateHostKeys no
  BatchMode yes
  LogLevel ERROR
  ConnectTimeout %d
  ConnectionAttempts 1
  AddressFamily inet
  ForwardAgent no
  ForwardX11 no
  ControlMaster no
  ControlPath none
`, clientKey, ConnectTimeout)
	return b.String()
}

func (c *Cluster) sshdConfigPath(i int) string {
	return filepath.Join(c.dir, fmt.Sprintf("sshd_config.h%d", i))
}

func (c *Cluster) sshdLogPath(i int) string {
	return filepath.Join(c.dir, fmt.Sprintf("sshd.h%d.log", i))
}

// sshdConfigText is host i's sshd configuration.
func (c *Cluster) sshdConfigText(i int) string {
	h := c.Hosts[i]
	var b strings.Builder
	fmt.Fprintf(&b, "# sshd_config for nettest host %d (%s), generated by nettest.\n", i, h.Name)
	fmt.Fprintf(&b, `ListenAddress %s
Port 22
AddressFamily inet
HostKey %s
AuthorizedKeysFile %s
PidFile %s
UsePAM no
StrictModes no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitEmptyPasswords no
PermitUserEnvironment no
PrintMotd no
PrintLastLog no
Banner none
UseDNS no
X11Forwarding no
MaxStartups 64:30:128
LoginGraceTime 30
LogLevel ERROR
`, h.Addr, c.hostKey, c.authKeys, filepath.Join(c.dir, fmt.Sprintf("sshd.h%d.pid", i)))
	// OpenSSH 9.8 and later penalise sources whose connections fail, which
	// tests of failures would trip over.
	if v := c.sshVersion; v[0] > 9 || v[0] == 9 && v[1] >= 8 {
		b.WriteString("PerSourcePenalties no\n")
	}
	// One SetEnv line: sshd keeps only the first one.
	if len(c.env) > 0 {
		b.WriteString("SetEnv")
		for _, kv := range c.env {
			fmt.Fprintf(&b, " \"%s\"", kv)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sshdVersion returns sshd's OpenSSH version, or 0.0 when unknown.
func sshdVersion(sshd string) [2]int {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	out, _ := exec.CommandContext(ctx, sshd, "-V").CombinedOutput()
	m := sshVerRE.FindSubmatch(out)
	if m == nil {
		return [2]int{}
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	return [2]int{major, minor}
}

// holderScript runs in a host's network namespace, in new UTS and mount
// namespaces: it sets the hostname, bind-mounts the cluster's hosts file
// over /etc/hosts, says so and then waits forever. $1 hostname, $2 hosts
// file, $3 mount, $4 sleep.
const holderScript = `echo "$1" > /proc/sys/kernel/hostname || exit 1
"$3" --bind "$2" /etc/hosts || exit 1
echo ready
exec "$4" infinity`

// startHolder starts host i's holder process, whose namespaces Command
// enters.
func (c *Cluster) startHolder(i int) error {
	h := c.Hosts[i]
	logPath := filepath.Join(c.dir, fmt.Sprintf("holder.h%d.log", i))
	logf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create holder log: %w", err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(c.tools.nsenter, "--net="+nsPath(h.Name), "--",
		c.tools.unshare, "--uts", "--mount", "--propagation", "slave", "--",
		c.tools.sh, "-c", holderScript, "sh", h.Name, c.hostsFile, c.tools.mount, c.tools.sleep)
	cmd.Dir = "/"
	cmd.Stdin = nil
	cmd.Stdout = w
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p, err := startProc("holder of "+h.Name, cmd)
	w.Close()
	if err != nil {
		return fmt.Errorf("start namespace holder: %w", err)
	}
	c.holders[i] = p
	r.SetReadDeadline(time.Now().Add(stepTimeout))
	line, err := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		if err == nil {
			err = fmt.Errorf("unexpected output %q", line)
		}
		return fmt.Errorf("set up UTS and mount namespaces (hostname, /etc/hosts): %v%s", err, logTail("holder log", logPath))
	}
	return nil
}

// startSSHD starts host i's sshd in the background.
func (c *Cluster) startSSHD(i int) (*proc, error) {
	logPath := c.sshdLogPath(i)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := c.Command(context.Background(), i, c.tools.sshd, "-D", "-e", "-f", c.sshdConfigPath(i))
	cmd.Dir = "/"
	cmd.Stdout = logf
	cmd.Stderr = logf
	return startProc("sshd of "+c.Hosts[i].Name, cmd)
}

// waitSSH waits, bounded, until ssh from host 0 to host i succeeds.
func (c *Cluster) waitSSH(i int, p *proc) error {
	h := c.Hosts[i]
	deadline := time.Now().Add(stepTimeout)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("host %d (%s): wait for sshd: %s%s", i, h.Name, fmt.Sprintf(format, args...),
			logTail("sshd log", c.sshdLogPath(i)))
	}
	for {
		if p.exited() {
			return fail("sshd exited: %v", p.cmd.ProcessState)
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		cmd := c.Command(ctx, 0, c.tools.ssh, "-F", c.sshConfig, h.Addr.String(), "true")
		cmd.Dir = "/"
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fail("ssh from host 0 to %s did not succeed within %v: %v: %s",
				h.Addr, stepTimeout, err, bytes.TrimSpace(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Command returns a command that runs name with args on host i: in its
// network, UTS and mount namespaces (so hostname prints Hosts[i].Name,
// the only IPv4 interfaces are lo and eth0, and /etc/hosts knows the
// cluster), as root, with the caller's environment (cmd.Env nil) and
// working directory (cmd.Dir, default the caller's). name is looked up in
// PATH inside the host, i.e. like on the machine.
//
// It is an ordinary exec.CommandContext of nsenter(1), which execs name
// in place (with Options.SplitCPUs through taskset(1), which does the
// same), so cmd.Process is the command itself and ctx, Stdin, Stdout,
// Env... work as usual. SysProcAttr is set to Pdeathsig SIGKILL, so the
// command dies with the test binary's thread that started it; replace it
// if that is not wanted. Command panics if i is out of range; after Close
// the command fails to start.
func (c *Cluster) Command(ctx context.Context, i int, name string, args ...string) *exec.Cmd {
	h := c.holder(i)
	a := make([]string, 0, 7+len(args))
	a = append(a, "--target", strconv.Itoa(h.pid()), "--net", "--uts", "--mount", "--wd=.", "--")
	if cpus := c.Hosts[i].CPUs; cpus != nil {
		a = append(a, c.tools.taskset, "-c", cpuList(cpus)) // which execs name in place
	}
	a = append(a, name)
	a = append(a, args...)
	cmd := exec.CommandContext(ctx, c.tools.nsenter, a...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if c.closed.Load() || h.exited() {
		cmd.Err = fmt.Errorf("nettest: host %d (%s): cluster closed", i, c.Hosts[i].Name)
	}
	return cmd
}

// splitCPUs deals the processors of set out among n hosts: host i gets
// every n-th from the i-th on, or, with fewer processors than hosts, the
// (i mod len)-th.
func splitCPUs(set *unix.CPUSet, n int) [][]int {
	var all []int
	for cpu := 0; cpu < len(set)*64; cpu++ {
		if set.IsSet(cpu) {
			all = append(all, cpu)
		}
	}
	out := make([][]int, n)
	if len(all) == 0 {
		return out // cannot happen: the test runs somewhere
	}
	if len(all) < n {
		for i := range out {
			out[i] = []int{all[i%len(all)]}
		}
		return out
	}
	for k, cpu := range all {
		out[k%n] = append(out[k%n], cpu)
	}
	return out
}

// cpuList is taskset's form of a processor list: "0,2,4".
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for k, cpu := range cpus {
		s[k] = strconv.Itoa(cpu)
	}
	return strings.Join(s, ",")
}

func (c *Cluster) holder(i int) *proc {
	if i < 0 || i >= len(c.Hosts) {
		panic(fmt.Sprintf("nettest: host %d out of range [0,%d)", i, len(c.Hosts)))
	}
	h := c.holders[i]
	if h == nil {
		panic(fmt.Sprintf("nettest: host %d (%s) was not set up", i, c.Hosts[i].Name))
	}
	return h
}

// SSHAgent returns a remote-shell agent command line for LAM's
// boot_rsh_agent (or any tool that splits it on spaces): the absolute path
// of ssh, "-F" and the cluster's ssh_config, e.g.
// "/usr/bin/ssh -F /tmp/nettest-lt3k9xa-123/ssh_config". It holds no
// quoting and no white space but the separators. Run it inside a host
// (through Command): it reaches any host by address or by name, as root,
// with the cluster's key, without host-key checks or prompts, and prints
// nothing on stderr for a successful login.
func (c *Cluster) SSHAgent() string {
	ssh := c.tools.ssh
	if strings.ContainsAny(ssh, " \t") {
		ssh = "ssh"
	}
	return ssh + " -F " + c.sshConfig
}

// SSHConfig returns the path of the ssh client configuration that SSHAgent
// uses.
func (c *Cluster) SSHConfig() string { return c.sshConfig }

// HostsFile returns the path of a file in /etc/hosts format: the machine's
// /etc/hosts followed by a "<address>\t<name>" line per cluster host. It
// is bind-mounted over /etc/hosts inside every host, so host names resolve
// there; in the root namespace they do not. Boot schemas may use either
// Hosts[i].Name or Hosts[i].Addr.String(); the address is the choice for
// anything resolved outside the hosts.
func (c *Cluster) HostsFile() string { return c.hostsFile }

// Dir returns the cluster's temporary directory, which holds its keys,
// configurations and logs (sshd.h<i>.log). Close removes it. Its path has
// no white space.
func (c *Cluster) Dir() string { return c.dir }

// Prefix returns the prefix of the cluster's namespace names and
// hostnames.
func (c *Cluster) Prefix() string { return c.prefix }

// StopSSH stops host i's sshd (SIGTERM, then SIGKILL after a bound) and
// waits for it to exit, so that ssh to host i is refused at once
// (connections already open go on). It does nothing if that sshd is not
// running. It panics if i is out of range.
func (c *Cluster) StopSSH(i int) {
	c.holder(i)
	c.mu.Lock()
	p := c.sshds[i]
	c.sshds[i] = nil
	c.mu.Unlock()
	if p == nil {
		return
	}
	if err := p.stop(); err != nil {
		c.t.Errorf("nettest: host %d (%s): stop sshd: %v", i, c.Hosts[i].Name, err)
	}
}

// StartSSH starts host i's sshd again after StopSSH and waits, bounded,
// until ssh from host 0 to host i succeeds (host 0's sshd need not run).
// It fails the test (t.Fatal, so call it from the test's goroutine) if
// that does not happen. It does nothing if that sshd is running.
func (c *Cluster) StartSSH(i int) {
	c.t.Helper()
	c.holder(i)
	if c.closed.Load() {
		c.t.Fatalf("nettest: host %d (%s): StartSSH after Close", i, c.Hosts[i].Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sshds[i] != nil {
		return
	}
	p, err := c.startSSHD(i)
	if err != nil {
		c.t.Fatalf("nettest: host %d (%s): start sshd: %v", i, c.Hosts[i].Name, err)
	}
	c.sshds[i] = p
	if err := c.waitSSH(i, p); err != nil {
		c.t.Fatalf("nettest: %v", err)
	}
}

// Close tears the cluster down: it stops every sshd, kills any process
// still inside a host's network namespace (e.g. daemons started over
// ssh; SIGTERM, then SIGKILL after a bound), stops the namespace holders,
// deletes every namespace it created and removes Dir. It reports problems
// with t.Errorf. Close is idempotent and is called by the t.Cleanup that
// New registered; call it earlier to test what happens without the
// cluster.
func (c *Cluster) Close() {
	c.closeOnce.Do(c.close)
}

func (c *Cluster) close() {
	c.closed.Store(true)
	var errs []error

	c.mu.Lock()
	sshds := c.sshds
	c.sshds = make([]*proc, len(sshds))
	c.mu.Unlock()
	errs = append(errs, stopAll(sshds)...)

	// Whatever else runs in the hosts: processes that ssh sessions left.
	var paths []string
	holderPids := map[int]bool{}
	for _, name := range c.netns {
		if name != c.switchNS() {
			paths = append(paths, nsPath(name))
		}
	}
	for _, h := range c.holders {
		if h != nil {
			holderPids[h.pid()] = true
		}
	}
	killed, err := killInNetns(paths, holderPids)
	if err != nil {
		errs = append(errs, err)
	}
	if len(killed) > 0 {
		c.t.Logf("nettest: killed %d process(es) left in the hosts: %s", len(killed), strings.Join(killed, ", "))
	}

	errs = append(errs, stopAll(c.holders)...)

	// Namespaces, hosts first; ip(8) complains if one is already gone.
	for i := len(c.netns) - 1; i >= 0; i-- {
		name := c.netns[i]
		if err := runStep("delete network namespace "+name, "", c.tools.ip, "netns", "delete", name); err != nil {
			errs = append(errs, err)
		}
	}
	c.netns = nil

	if c.dir != "" {
		// A failed test's sshd logs may tell why; they go with the dir.
		if c.t.Failed() {
			for i := range c.Hosts {
				if tail := logTail("sshd log", c.sshdLogPath(i)); tail != "" {
					c.t.Logf("nettest: host %d (%s):%s", i, c.Hosts[i].Name, tail)
				}
			}
		}
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", c.dir, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		c.t.Errorf("nettest: teardown of cluster %s: %v", c.prefix, err)
	}
}

// Sweep removes what clusters whose prefix begins with prefix left behind
// when their test binary died before its cleanup ran (SIGKILL, a go test
// -timeout panic, ...): every network namespace in /run/netns whose name
// begins with prefix and ends like a cluster's ("sw", or "h" and a host
// number), after killing the processes still in it, and the clusters'
// directories nettest-<prefix>* in the temporary directory and /tmp.
// prefix must not be empty; Sweep("lt") covers every default prefix. It
// must not run while a test using a matching cluster runs, which it
// would destroy. It is meant for manual cleanup, e.g. from a test run
// with a flag, and needs root and ip(8).
func Sweep(prefix string) error {
	if prefix == "" {
		return errors.New("nettest: Sweep needs a non-empty prefix")
	}
	ip, ok := findTool("ip")
	if !ok {
		return errors.New("nettest: Sweep: ip (iproute2) not found")
	}
	var errs []error
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, prefix) && nsNameRE.MatchString(n) {
			names = append(names, n)
		}
	}
	var paths []string
	for _, n := range names {
		paths = append(paths, nsPath(n))
	}
	if _, err := killInNetns(paths, nil); err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		if err := runStep("delete network namespace "+n, "", ip, "netns", "delete", n); err != nil {
			errs = append(errs, err)
		}
	}
	bases := []string{os.TempDir()}
	if bases[0] != "/tmp" {
		bases = append(bases, "/tmp")
	}
	for _, base := range bases {
		dirs, _ := filepath.Glob(filepath.Join(base, "nettest-"+prefix+"*"))
		for _, d := range dirs {
			if st, err := os.Lstat(d); err == nil && st.IsDir() {
				if err := os.RemoveAll(d); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("nettest: Sweep(%q): %w", prefix, err)
	}
	return nil
}

// proc is a process the cluster started and waits for.
type proc struct {
	name    string
	cmd     *exec.Cmd
	done    chan struct{}
	once    sync.Once
	stopErr error
}

func startProc(name string, cmd *exec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process: SIGTERM, then SIGKILL, each with a bound.
func (p *proc) stop() error {
	p.once.Do(func() {
		if p.exited() {
			return
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
			return
		case <-time.After(killGrace):
		}
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(killGrace):
			p.stopErr = fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.pid())
		}
	})
	return p.stopErr
}

// stopAll stops processes in parallel.
func stopAll(ps []*proc) []error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		if p != nil {
			wg.Go(func() { errs[i] = p.stop() })
		}
	}
	wg.Wait()
	return errs
}

// killInNetns ends every process (but those in skip) whose network
// namespace is one of the namespace files in paths: SIGTERM, then SIGKILL
// after a bound. Processes are signalled through pidfds, so a reused pid
// is never hit. It returns "pid (command)" for each.
func killInNetns(paths []string, skip map[int]bool) ([]string, error) {
	type nsid struct{ dev, ino uint64 }
	want := map[nsid]bool{}
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err == nil {
			want[nsid{st.Dev, st.Ino}] = true
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	inNS := func(pid int) bool {
		var st unix.Stat_t
		if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/net", pid), &st); err != nil {
			return false
		}
		return want[nsid{st.Dev, st.Ino}]
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var fds []int
	var killed []string
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || skip[pid] || !inNS(pid) {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		if !inNS(pid) { // the pid was reused between the check and the open
			unix.Close(fd)
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		killed = append(killed, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(comm))))
		fds = append(fds, fd)
	}
	if len(fds) == 0 {
		return nil, nil
	}
	// alive returns the pidfds of processes that have not exited.
	alive := func(fds []int) []int {
		var left []int
		for _, fd := range fds {
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, err := unix.Poll(pfd, 0); err == nil && n == 0 {
				left = append(left, fd)
			}
		}
		return left
	}
	waitGone := func(fds []int) []int {
		deadline := time.Now().Add(killGrace)
		for {
			fds = alive(fds)
			if len(fds) == 0 || time.Now().After(deadline) {
				return fds
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, fd := range fds {
		unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
	}
	left := waitGone(fds)
	for _, fd := range left {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
	left = waitGone(left)
	if len(left) > 0 {
		return killed, fmt.Errorf("%d process(es) in the hosts' namespaces survived SIGKILL", len(left))
	}
	sort.Strings(killed)
	return killed, nil
}

// runStep runs one bounded setup command, feeding it stdin, and turns a
// failure into an error naming the step and quoting the output.
func runStep(step, stdin, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	cmd.WaitDelay = time.Second
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %s %s: %v: %s", step, name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// logTail returns "\n<what> (path):\n" and the last lines of a log file,
// or "" when it is empty or unreadable.
func logTail(what, path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	const max = 2000
	if len(b) > max {
		b = b[len(b)-max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return fmt.Sprintf("\n%s (%s):\n%s", what, path, bytes.TrimRight(b, "\n"))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ensureDir creates dir with mode perm if it is missing, and leaves it.
func ensureDir(dir string, perm os.FileMode) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return os.Chmod(dir, perm)
}
