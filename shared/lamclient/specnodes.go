package lamclient

import (
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// SpecNodes converts a lamd's node table for node/CPU specifications: the
// answering lamd's node is the local one (h).
func SpecNodes(t *wire.Nodes) []nodespec.Node {
	out := make([]nodespec.Node, 0, len(t.Nodes))
	for _, n := range t.Nodes {
		if n.Flags&wire.NodeDead != 0 {
			continue
		}
		out = append(out, nodespec.Node{
			ID: int(n.ID), Host: n.Host, CPUs: int(n.CPUs),
			Schedulable: n.Flags&wire.NodeNoSchedule == 0,
			Origin:      n.Flags&wire.NodeOrigin != 0,
			Local:       n.ID == t.Self,
		})
	}
	return out
}
