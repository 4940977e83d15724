package lamclient

import (
	"context"

	"github.com/lamgo/lam/shared/wire"
)

// Inspect asks node's lamd what its MPI processes are doing and, with
// msgs, which messages wait in its queue and in its processes' unexpected
// queues (up to max per queue).
func (c *Client) Inspect(ctx context.Context, node int32, msgs bool, max int) (*wire.Inspection, error) {
	return ask[*wire.Inspection](ctx, c, &wire.Inspect{Node: node, Msgs: msgs, MaxMsgs: int32(min(max, wire.MaxInspectMsgs))}, "an inspection")
}
