package boot

import (
	"context"
	"errors"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// UniverseConfig is what lamboot asks for: plain values from its command
// line and Plan.
type UniverseConfig struct {
	Module   Module
	Nodes    []Node // resolved (Plan), the origin among them
	Settings *ssi.Settings
	Bindir   string // this installation's programs (for the origin)
	Prefix   string // LAM/Go's installation on remote nodes (-prefix)
	Conf     string // the process schema hboot runs (-c; "" = lam-conf.lamd)
	// SessionPrefix and SessionSuffix place the session directory.
	SessionPrefix, SessionSuffix string
	Debug                        bool
	FaultTolerant                bool // heartbeats between the lamds (-x)
	// Progress, if set, receives one line per event and the algorithm
	// that reports it (lamboot -v).
	Progress func(algorithm, line string)
}

// Universe boots a new universe: a lamd on every node, with the boot
// algorithm, window and timeouts of the SSI parameters and a new secret.
// When it returns nil every lamd knows every node. On failure, or when ctx
// ends (the error then wraps its cause), every lamd it started is stopped.
func Universe(ctx context.Context, c UniverseConfig) (*wire.Universe, error) {
	var origin *Node
	for i := range c.Nodes {
		if c.Nodes[i].Origin {
			origin = &c.Nodes[i]
		}
	}
	if origin == nil {
		return nil, errors.New("the boot schema does not name this host")
	}
	if err := checkTable(c.Nodes); err != nil {
		return nil, err
	}
	s := c.Settings
	alg := s.String(ParamAlgorithm)
	window, err := s.Int(ParamWindow)
	if err != nil {
		return nil, err
	}
	timeout, err := s.Duration(ParamTimeout)
	if err != nil {
		return nil, err
	}
	var heartbeat time.Duration
	if c.FaultTolerant {
		if heartbeat, err = s.Duration(ParamHeartbeat); err != nil {
			return nil, err
		}
	}
	secret, err := linkauth.NewSecret()
	if err != nil {
		return nil, err
	}
	progress := func(line string) {
		if c.Progress != nil {
			c.Progress(alg, line)
		}
	}
	b := &Lamds{
		Module: c.Module, Nodes: c.Nodes, Origin: origin.ID, Secret: secret, ListenAddr: origin.Addr,
		Bindir: c.Bindir, Prefix: c.Prefix, Conf: c.Conf,
		SessionPrefix: c.SessionPrefix, SessionSuffix: c.SessionSuffix, Debug: c.Debug, Heartbeat: heartbeat,
		Options: Options{Algorithm: alg, Window: window, Timeout: timeout, Progress: progress},
	}
	res, err := b.Boot(ctx)
	if err != nil {
		return nil, err
	}
	progress("finished")
	return res.Universe, nil
}
