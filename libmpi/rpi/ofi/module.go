// Package ofi is the ofi rpi module: the processes of a job reach each
// other through libfabric (OFI), the interface of today's fabrics
// (Slingshot, EFA, Omni-Path, InfiniBand verbs) and of its software
// providers (tcp, shm). It descends from LAM's GM and VIA modules.
//
// Every process opens one reliable-datagram endpoint (FI_EP_RDM) and
// publishes its name; a link to a peer is a FIFO byte stream cut into
// messages of at most rpi_ofi_bufsize bytes. A receiver pre-posts
// rpi_ofi_credits receive buffers for each peer, and a sender never has
// more messages in flight to a peer than that peer has given it credits:
// a buffer read empty is posted again and its credit goes back, on the
// next message or in a message of its own. Messages up to rpi_ofi_tiny
// bytes are injected (no completion to wait for). Matching, eager and
// rendezvous protocols stay in the MPI core, as for every module; the
// receiver of a long message pulls it as a tagged message (tagged.go) or
// reads it from the sender's registered buffer (rma.go) where the
// provider can. Unless rpi_ofi_onnode is set (or the provider reaches
// only its node), usysv carries the peers on a process's node and the
// endpoint only those on other nodes (Open).
//
// The implementation uses cgo and is compiled only with the build tag
// "ofi" (the Makefile sets it where pkg-config finds libfabric). Without
// it the module is still registered, so that laminfo and the parameter
// lists are the same in every build, but its query declines: "this build
// has no libfabric". With it, the query declines when libfabric has no
// provider that can serve the job. See docs/ofi.md.
package ofi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/usysv"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// name is the module's SSI name.
const name = "ofi"

// Priorities: the module yields to tcp and the shared-memory modules
// when libfabric offers only software providers (tcp, shm, sockets,
// udp), whose work our own modules do faster; over a hardware provider
// it is preferred to every other module.
const (
	prioritySoftware = 10
	priorityHardware = 60
)

// Module is the ofi rpi module.
type Module struct{}

func init() { rpi.Register(Module{}) }

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{
		Framework: ssi.RPI, Name: name, API: ssi.APIVersion[ssi.RPI], Version: buildinfo.ModuleVersion,
		Priority: prioritySoftware,
		Params: []ssi.Param{
			{Name: "provider", Default: "", Help: "libfabric provider to use, as fi_info names it (e.g. tcp, shm, verbs); empty: the first libfabric offers"},
			{Name: "short", Default: "65536", Type: ssi.Size, Help: "Largest message sent eagerly; larger ones wait for the receiver (rendezvous)"},
			{Name: "tiny", Default: "1024", Type: ssi.Size, Help: "Largest fabric message injected (sent without waiting for its completion), within the provider's inject size"},
			{Name: "bufsize", Default: "32768", Type: ssi.Size, Help: "Size of each pre-posted receive buffer (and of the largest fabric message), in bytes"},
			{Name: "credits", Default: "16", Type: ssi.Int, Help: "Receive buffers posted for each peer: how many messages a peer may have in flight to this process"},
			{Name: "rma", Default: "1", Type: ssi.Bool, Help: "Let the receiver of a long message read it from the sender's memory (FI_RMA) where the provider offers it"},
			{Name: "tagged", Default: "1", Type: ssi.Bool, Help: "Move long messages as tagged messages (FI_TAGGED) straight into the receive buffer where the provider offers them, in preference to remote reads"},
			{Name: "onnode", Default: "0", Type: ssi.Bool, Help: "Carry the peers on this node through ofi too; 0: through usysv's shared memory, ofi only between nodes (the shm provider, which reaches only this node, carries every peer)"},
		},
	}
}

// config is the module's parameters, checked.
type config struct {
	provider string
	short    int
	tiny     int
	bufsize  int
	credits  int
	rma      bool
	tagged   bool
	onnode   bool
}

// Limits of the parameters.
const (
	minBufsize = 256
	maxBufsize = 16 << 20
	minCredits = 4
	maxCredits = 4096
)

func settings(s *ssi.Settings) (config, error) {
	var c config
	c.provider = s.String(ssi.FullName(ssi.RPI, name, "provider"))
	for _, p := range []struct {
		name string
		to   *int
	}{{"short", &c.short}, {"tiny", &c.tiny}, {"bufsize", &c.bufsize}} {
		v, err := s.Size(ssi.FullName(ssi.RPI, name, p.name))
		if err != nil {
			return c, err
		}
		*p.to = int(min(v, 1<<40))
	}
	var err error
	if c.credits, err = s.Int(ssi.FullName(ssi.RPI, name, "credits")); err != nil {
		return c, err
	}
	for _, p := range []struct {
		name string
		to   *bool
	}{{"rma", &c.rma}, {"tagged", &c.tagged}, {"onnode", &c.onnode}} {
		if *p.to, err = s.Bool(ssi.FullName(ssi.RPI, name, p.name)); err != nil {
			return c, err
		}
	}
	switch {
	case c.short < 0 || c.short > 1<<30:
		return c, fmt.Errorf("rpi ofi: rpi_ofi_short=%d is out of range (0..1 GiB)", c.short)
	case c.tiny < 0:
		return c, fmt.Errorf("rpi ofi: rpi_ofi_tiny=%d is negative", c.tiny)
	case c.bufsize < minBufsize || c.bufsize > maxBufsize:
		return c, fmt.Errorf("rpi ofi: rpi_ofi_bufsize=%d is out of range (%d..%d)", c.bufsize, minBufsize, maxBufsize)
	case c.credits < minCredits || c.credits > maxCredits:
		return c, fmt.Errorf("rpi ofi: rpi_ofi_credits=%d is out of range (%d..%d)", c.credits, minCredits, maxCredits)
	}
	return c, nil
}

// errNotAsked is why the module declines in a job that did not ask for
// it, on a machine without a fabric device.
var errNotAsked = errors.New("not asked for (-ssi rpi ofi) and no fabric device here")

// Query: the module can run where libfabric offers a provider with
// reliable datagrams and ordered messages. Asking libfabric loads it and
// every provider (about a tenth of a second of processor time here), so
// a job that did not name the module (-ssi rpi ofi, or one of its
// parameters) asks only where a fabric device is present.
func (Module) Query(_ context.Context, s *ssi.Settings) (int, error) {
	c, err := settings(s)
	if err != nil {
		return -1, err
	}
	if !asked(s) && !fabricDevice() {
		return -1, errNotAsked
	}
	p, err := probe(c.provider)
	if err != nil {
		return -1, err
	}
	if p.hardware {
		return priorityHardware, nil
	}
	return prioritySoftware, nil
}

// Open opens an endpoint on the provider the parameters name. Unless
// rpi_ofi_onnode is set or the provider reaches only this node (shm), the
// endpoint serves the peers on other nodes only: usysv serves those on
// this node, as it does with tcp (shm.Module.OpenOver), which is faster
// at every size (docs/ofi.md).
func (Module) Open(ctx context.Context, job *rpi.Job) (rpi.Transport, error) {
	c, err := settings(job.Settings)
	if err != nil {
		return nil, err
	}
	t, err := open(ctx, job, c)
	if err != nil || c.onnode || nodeOnly(t) {
		return t, err
	}
	if _, err := usysv.Module.Query(ctx, job.Settings); err != nil {
		return t, nil // no shared memory: ofi for every peer
	}
	h, err := usysv.Module.OpenOver(job, t)
	if err != nil {
		return nil, fmt.Errorf("rpi ofi: usysv for the peers on this node: %w", err)
	}
	return h, nil
}

// nodeOnly reports whether t's provider reaches only this node.
func nodeOnly(t rpi.Transport) bool {
	n, ok := t.(interface{ nodeOnly() bool })
	return ok && n.nodeOnly()
}

// asked reports whether the job names the module: in -ssi rpi, or by
// setting its priority or provider.
func asked(s *ssi.Settings) bool {
	return slices.Contains(ssi.Requested(s, ssi.RPI), name) ||
		s.IsSet(ssi.FullName(ssi.RPI, name, "priority")) || s.IsSet(ssi.FullName(ssi.RPI, name, "provider"))
}

// fabricDevices are where Linux lists the devices of libfabric's
// hardware providers: verbs, EFA and Omni-Path (infiniband), Slingshot
// (cxi).
var fabricDevices = []string{"/sys/class/infiniband", "/sys/class/cxi"}

// fabricDevice reports whether this machine has a fabric device.
func fabricDevice() bool {
	for _, d := range fabricDevices {
		if es, err := os.ReadDir(d); err == nil && len(es) > 0 {
			return true
		}
	}
	return false
}

// provider is what probe found.
type provider struct {
	name     string
	hardware bool
}
