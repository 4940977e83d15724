package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// parseSchema reads a process schema (conf(5)): one program and its
// arguments per line, # comments, an optional { option(value) ... } block
// at the end of a line (ignored), and $variables replaced by vars (a
// variable not in vars expands to nothing if it is one of LAM's, and is an
// error otherwise).
func parseSchema(path string, vars map[string][]string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]bool{"$inet_topo": true, "$rtr_topo": true, "$debug": true, "$session_prefix": true, "$session_suffix": true}
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text, _, _ = strings.Cut(text, "{")
		var argv []string
		for _, tok := range strings.Fields(text) {
			if strings.HasPrefix(tok, "$") {
				if !known[tok] {
					return nil, fmt.Errorf("%s:%d: unknown variable %s", path, line, tok)
				}
				argv = append(argv, vars[tok]...)
				continue
			}
			argv = append(argv, tok)
		}
		if len(argv) > 0 {
			out = append(out, argv)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no program to start", path)
	}
	return out, nil
}
