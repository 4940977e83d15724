// Package boot is the boot framework: it starts a lamd on every node of a
// universe (lamboot, lamgrow) or runs a command there (lamwipe, recon),
// through a boot module such as rsh.
//
// A module reads the nodes (from a boot schema, or one host for lamgrow)
// and launches a command on one node. The framework does the rest: it
// resolves hosts and finds the origin, runs a boot algorithm (linear,
// windowed, or parallel), and runs the rendezvous of LAM's seed 001: each
// new lamd calls back with where it can be reached, and once all have, each
// is sent the universe's node table.
package boot

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lamgo/lam/shared/ssi"
)

// Framework parameters.
const (
	ParamWindow    = "boot_base_window_size"
	ParamAlgorithm = "boot_base_algorithm"
	ParamTimeout   = "boot_base_timeout"
	ParamHeartbeat = "boot_base_heartbeat"
	ParamHalt      = "boot_base_halt_timeout"
	// The lamd's limits on connections (see kernel.Config).
	ParamMaxClients      = "boot_base_max_clients"
	ParamMaxLinkAttempts = "boot_base_max_link_attempts"
)

func init() {
	ssi.RegisterParams(ssi.Boot, "base",
		ssi.Param{Name: "window_size", Default: "5", Type: ssi.Int, Help: "Most nodes the windowed algorithm boots at once"},
		ssi.Param{Name: "algorithm", Default: "parallel", Help: "Boot algorithm: parallel, windowed or linear"},
		ssi.Param{Name: "timeout", Default: "60", Type: ssi.Duration, Help: "How long a node may take to boot (seconds, or e.g. 500ms)"},
		ssi.Param{Name: "heartbeat", Default: "5", Type: ssi.Duration, Help: "Heartbeat period of lamds booted with -x; a node silent for three periods is dead"},
		ssi.Param{Name: "halt_timeout", Default: "15", Type: ssi.Duration, Help: "How long lamhalt waits for each node"},
		ssi.Param{Name: "max_clients", Default: "1024", Type: ssi.Int, Help: "Most local clients a lamd serves at once (MPI processes, and tools such as mpirun and lamnodes, which have 16 more places); more are refused"},
		ssi.Param{Name: "max_link_attempts", Default: "64", Type: ssi.Int, Help: "Most link connections a lamd lets authenticate at once; more are closed"},
	)
}

// Node is a node to boot.
type Node struct {
	ID       int32
	Host     string // as the boot schema names it
	Addr     string // resolved IP address, or vsock:CID ("" until resolved)
	User     string // remote user ("" = the same)
	CPUs     int32
	Schedule bool
	Prefix   string // LAM/Go's installation directory there ("" = use PATH)
	Origin   bool   // the node lamboot runs on
}

// String names the node as LAM's messages do: "n1 (host)".
func (n *Node) String() string { return "n" + strconv.Itoa(int(n.ID)) + " (" + n.Host + ")" }

// Request is what a boot tool asks of a module.
type Request struct {
	Schema     string // boot schema named on the command line
	Host       string // lamgrow's host
	Getenv     func(string) string
	Cwd        string
	Sysconfdir string
	Settings   *ssi.Settings
	// Warn reports a problem that does not stop the boot (a bad schema line).
	Warn func(string)
}

// Module is a boot module.
type Module interface {
	ssi.Module
	// Nodes lists the nodes of the boot schema (or, for lamgrow, the one
	// host) in id order, unresolved.
	Nodes(ctx context.Context, req *Request) ([]Node, error)
	// Launch runs argv on node n, with stdin as its standard input, and
	// returns when the command has exited. On failure the error says why,
	// including what the remote shell printed.
	Launch(ctx context.Context, n *Node, argv []string, stdin []byte) error
}

// Register registers a boot module from its package's init.
func Register(m Module) { ssi.Register(m) }

// Select chooses the boot module, as -ssi boot and the priorities say.
func Select(ctx context.Context, s *ssi.Settings) (Module, error) {
	var mods []Module
	for _, m := range ssi.Modules(ssi.Boot) {
		if bm, ok := m.(Module); ok {
			mods = append(mods, bm)
		}
	}
	m, _, err := ssi.Select(ctx, ssi.Boot, s, mods)
	if err != nil {
		return nil, fmt.Errorf("boot module: %w", err)
	}
	return m, nil
}
