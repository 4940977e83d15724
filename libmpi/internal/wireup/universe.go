package wireup

import (
	"context"
	"fmt"
)

// UniverseSize is the number of CPUs in the LAM universe, the sum of the
// CPU counts of its nodes (what LAM gives as MPI_UNIVERSE_SIZE); for a
// world of one started without mpirun, the world's size.
func (p *Process) UniverseSize(ctx context.Context) (int, error) {
	if p == nil || p.client == nil {
		if p == nil {
			return 1, nil
		}
		return p.Size, nil
	}
	nodes, err := p.client.Nodes(ctx)
	if err != nil {
		return 0, fmt.Errorf("ask the lamd for the universe's nodes: %w", err)
	}
	n := 0
	for _, nd := range nodes.Nodes {
		n += int(max(nd.CPUs, 1))
	}
	return max(n, 1), nil
}
