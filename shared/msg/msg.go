// Package msg is the message catalog: every user-facing help and error
// text of the tools, keyed by LAM's "program:topic" names so that LAM
// users find the same topics, in this project's own words.
//
// The catalog is in LAM's lam-helpfile(5) format: a block starts with a
// line -*-program:topic-*- and runs to the next such line; lines starting
// with # are comments; %1 … %9 are replaced by the arguments. A topic under
// the program ALL serves every program that lacks its own. Show prints a
// block framed by lines of 77 dashes, as LAM does.
package msg

import (
	_ "embed"
	"fmt"
	"io"
	"strings"
)

//go:embed catalog.txt
var catalogText string

// Rule is the line that frames every message.
var Rule = strings.Repeat("-", 77)

var catalog = mustParse(catalogText)

// Parse reads a catalog in lam-helpfile format.
func Parse(text string) (map[string]string, error) {
	out := map[string]string{}
	key := ""
	var body []string
	flush := func() {
		if key != "" {
			out[key] = strings.TrimRight(strings.Join(body, "\n"), "\n")
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "-*-") && strings.HasSuffix(line, "-*-") && len(line) > 6 {
			flush()
			key, body = line[3:len(line)-3], nil
			prog, topic, ok := strings.Cut(key, ":")
			if !ok || prog == "" || topic == "" {
				return nil, fmt.Errorf("catalog line %d: bad topic line %q", i+1, line)
			}
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("catalog line %d: topic %s appears twice", i+1, key)
			}
			continue
		}
		if key == "" {
			if strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("catalog line %d: text before the first topic", i+1)
			}
			continue
		}
		body = append(body, line)
	}
	flush()
	return out, nil
}

func mustParse(text string) map[string]string {
	c, err := Parse(text)
	if err != nil {
		panic("msg: built-in catalog: " + err.Error())
	}
	return c
}

// Has reports whether program (or ALL) has topic.
func Has(program, topic string) bool {
	_, ok := lookup(program, topic)
	return ok
}

func lookup(program, topic string) (string, bool) {
	if t, ok := catalog[program+":"+topic]; ok {
		return t, true
	}
	t, ok := catalog["ALL:"+topic]
	return t, ok
}

// Text returns the topic's text with %1 … %9 replaced by args. A topic
// that does not exist yields a text saying so, never an empty message.
func Text(program, topic string, args ...string) string {
	t, ok := lookup(program, topic)
	if !ok {
		return fmt.Sprintf("%s: (no message text for %s:%s; arguments: %s)", program, program, topic, strings.Join(args, ", "))
	}
	return substitute(t, args)
}

func substitute(t string, args []string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] == '%' && i+1 < len(t) && t[i+1] >= '1' && t[i+1] <= '9' {
			n := int(t[i+1] - '1')
			if n < len(args) {
				b.WriteString(args[n])
			}
			i++
			continue
		}
		b.WriteByte(t[i])
	}
	return b.String()
}

// Show writes the topic's text framed by Rule lines.
func Show(w io.Writer, program, topic string, args ...string) {
	fmt.Fprintf(w, "%s\n%s\n%s\n", Rule, Text(program, topic, args...), Rule)
}
