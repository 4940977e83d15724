//go:build !ofi || !cgo

package ofi

import (
	"context"
	"errors"

	"github.com/lamgo/lam/libmpi/rpi"
)

// errNotBuilt is why the module declines in a build without libfabric.
var errNotBuilt = errors.New("this build has no libfabric (build with the tag ofi where libfabric-dev is installed)")

func probe(string) (provider, error) { return provider{}, errNotBuilt }

func open(context.Context, *rpi.Job, config) (rpi.Transport, error) { return nil, errNotBuilt }

// Traffic: no endpoint in a build without libfabric.
func Traffic() []uint64 { return nil }
