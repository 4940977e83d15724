package basic

import (
	"sync/atomic"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/shared/ssi"
)

// The choices for large messages, measured on a 2-processor machine with up
// to 8 processes (docs/coll.md, bench/README.md "Session 16, big24"):
// there the processes outnumber the processors, so an algorithm whose
// processes wait on each other round after round pays for the switches
// between them, while the shared-memory rpis copy a long message once,
// straight from the sender's buffer into the receiver's.
func init() {
	ssi.RegisterParams(ssi.Coll, "base",
		ssi.Param{Name: "bcast_whole", Default: "262144", Type: ssi.Size,
			Help: "Bytes above which lam_basic's Bcast to three or more processes sends the message whole again (linear up to coll_base_crossover processes, a binomial tree above) instead of coll_base_bcast_scatter's scatter and ring, which so takes the sizes between the two (none by default); 0: never"},
		ssi.Param{Name: "linear_block", Default: "4096", Type: ssi.Size,
			Help: "Bytes per process above which lam_basic's Gather and Scatter send every block straight between the root's buffer and its process whatever the number of processes, instead of a binomial tree above coll_base_crossover processes; 0: never"},
	)
}

// The parameters' full names.
var (
	ParamBcastWhole  = ssi.FullName(ssi.Coll, "base", "bcast_whole")
	ParamLinearBlock = ssi.FullName(ssi.Coll, "base", "linear_block")
)

// tuning holds the large-message parameters as read from one job's
// settings.
type tuning struct {
	settings    *ssi.Settings
	bcastWhole  int
	linearBlock int
}

// tuned caches the tuning of the last settings read (a process has one).
var tuned atomic.Pointer[tuning]

// tuningOf returns c's large-message parameters; a value that does not
// parse counts as its default (the settings' Check reports it).
func tuningOf(c *coll.Comm) *tuning {
	s := c.Settings()
	if t := tuned.Load(); t != nil && t.settings == s {
		return t
	}
	size := func(full string) int {
		p, _ := ssi.LookupParam(full)
		v, err := ssi.ParseSize(p.Default)
		if s != nil {
			if w, err2 := s.Size(full); err2 == nil {
				v, err = w, nil
			}
		}
		if err != nil || v < 0 {
			return 0
		}
		return int(v)
	}
	t := &tuning{settings: s, bcastWhole: size(ParamBcastWhole), linearBlock: size(ParamLinearBlock)}
	tuned.Store(t)
	return t
}

// above reports whether n bytes exceed a threshold that is on (not 0).
func above(n, threshold int) bool { return threshold > 0 && n > threshold }

// bcastScatters reports whether a Bcast of size bytes scatters the
// message, then rings it (bcastScatter).
func bcastScatters(c *coll.Comm, size int) bool {
	return c.Size() > 2 && size > c.Params.BcastScatter && !above(size, tuningOf(c).bcastWhole)
}

// linearRooted reports whether a Gather or Scatter of blocks of bs bytes
// is linear.
func linearRooted(c *coll.Comm, bs int) bool {
	return isLinear(c) || above(bs, tuningOf(c).linearBlock)
}

// blockSize is the bytes per process of a Gather (or, with the buffers
// swapped, a Scatter) as every process sees it: its own block, or at a
// root in place (own nil) the root's buffer's n-th.
func blockSize(c *coll.Comm, own, all []byte) int {
	if own != nil {
		return len(own)
	}
	return len(all) / c.Size()
}
