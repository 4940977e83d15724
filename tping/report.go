package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/nodespec"
)

// summary prints LAM's closing lines; the rate counts both directions.
func (c *cmd) summary(env *lamcli.Env, n, bytes, rounds int, total, min, max time.Duration) {
	secs := total.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = 2 * float64(bytes) / secs / 1024
	}
	avg := 0.0
	if rounds > 0 {
		avg = secs / float64(rounds)
	}
	fmt.Fprintf(env.Stdout, "\n%d message%s, %d byte%s (%4.3fK), %4.3f secs (%4.3fK/sec)\n",
		n, plural(n), bytes, plural(bytes), float64(bytes)/1024, secs, rate)
	fmt.Fprintf(env.Stdout, "roundtrip min/avg/max: %3.3f/%3.3f/%3.3f\n", min.Seconds(), avg, max.Seconds())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func unique(ids []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// describe names the targets as LAM's round lines do.
func describe(ids []int, self int32, local bool, nodes []nodespec.Node) string {
	if len(ids) == 1 {
		if local && ids[0] == int(self) {
			return "local"
		}
		return nodespec.Format(ids[0], nodes)
	}
	remote, here := 0, 0
	for _, id := range ids {
		if id == int(self) {
			here++
		} else {
			remote++
		}
	}
	s := fmt.Sprintf("%d remote node%s", remote, plural(remote))
	if here > 0 {
		s += " and 1 local node"
	}
	return s
}

// badNode names the node of a resolve error as the user wrote it.
func badNode(err error, where []string) string {
	var ne *nodespec.NodeError
	if errors.As(err, &ne) {
		return fmt.Sprintf("n%d", ne.ID)
	}
	if len(where) == 1 {
		return where[0]
	}
	return fmt.Sprint(where)
}
