// Package appschema reads LAM application schemas (appschema(5)) and the
// equivalent mpirun/lamexec command lines, and schedules their processes
// onto the nodes of a universe with LAM's rules.
//
// Each line of a schema is
//
//	[<where>...] [-np N | -c N] [-s <node>] [-wd <dir>] [-x <vars>]... <program> [<args>...]
//
// with options in any order before the program; everything after the
// program belongs to it. # starts a comment; double quotes group words.
// Unlike LAM, which honoured only the first, -x may be repeated.
package appschema

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lamgo/lam/shared/nodespec"
)

// Limits.
const (
	MaxLine  = 64 << 10
	MaxLines = 1 << 16
	MaxProcs = 1 << 20
)

// ErrSyntax is wrapped by every error about a schema line.
var ErrSyntax = errors.New("syntax error in application schema")

// Line is one line of an application schema, or a command line.
type Line struct {
	Where   []nodespec.Spec
	NP      int      // -np or -c; 0 when not given
	Source  string   // -s: node to load the program from
	Wd      string   // -wd
	Export  []string // -x items: NAME or NAME=value
	Program string
	Args    []string
	LineNo  int // 1-based; 0 for a command line
}

// ParseLine reads the options, program and arguments of one line, already
// split into words.
func ParseLine(tokens []string) (Line, error) {
	var l Line
	seen := map[string]bool{}
	once := func(opt string) error {
		if seen[opt] {
			return fmt.Errorf("%s given twice", opt)
		}
		seen[opt] = true
		return nil
	}
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		value := func() (string, error) {
			if i+1 >= len(tokens) {
				return "", fmt.Errorf("%s needs a value", tok)
			}
			i++
			return tokens[i], nil
		}
		switch tok {
		case "-np", "-c":
			if seen["-np"] || seen["-c"] {
				return Line{}, errors.New("-np and -c given more than once")
			}
			seen[tok] = true
			v, err := value()
			if err != nil {
				return Line{}, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return Line{}, fmt.Errorf("%s needs a positive count, not %q", tok, v)
			}
			l.NP = n
		case "-s", "-wd":
			if err := once(tok); err != nil {
				return Line{}, err
			}
			v, err := value()
			if err != nil {
				return Line{}, err
			}
			if tok == "-s" {
				if _, err := nodespec.Parse(v); err != nil {
					return Line{}, fmt.Errorf("-s %s: %v", v, err)
				}
				l.Source = v
			} else {
				l.Wd = v
			}
		case "-x":
			v, err := value()
			if err != nil {
				return Line{}, err
			}
			items, err := SplitExport(v)
			if err != nil {
				return Line{}, fmt.Errorf("-x %s: %v", v, err)
			}
			l.Export = append(l.Export, items...)
		default:
			if nodespec.Is(tok) && l.Program == "" {
				s, _ := nodespec.Parse(tok)
				l.Where = append(l.Where, s)
				continue
			}
			if strings.HasPrefix(tok, "-") {
				return Line{}, fmt.Errorf("unknown option %s", tok)
			}
			if tok == "" {
				return Line{}, errors.New("empty program name")
			}
			l.Program, l.Args = tok, append([]string(nil), tokens[i+1:]...)
			return l, nil
		}
	}
	return Line{}, errors.New("no program")
}

// Parse reads a whole application schema.
func Parse(r io.Reader, file string) ([]Line, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Line
	for n := 1; ; n++ {
		if n > MaxLines {
			return nil, fmt.Errorf("%w: %s: more than %d lines", ErrSyntax, file, MaxLines)
		}
		raw, err := readLine(br)
		if err != nil && err != io.EOF {
			if errors.Is(err, errLong) {
				return nil, fmt.Errorf("%w: %s:%d: line longer than %d bytes", ErrSyntax, file, n, MaxLine)
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if raw == "" && err == io.EOF {
			return out, nil
		}
		if !utf8.ValidString(raw) || strings.ContainsFunc(raw, func(r rune) bool { return r < ' ' && r != '\t' }) {
			return nil, fmt.Errorf("%w: %s:%d: not text (exec format error)", ErrSyntax, file, n)
		}
		toks, terr := split(raw)
		if terr != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrSyntax, file, n, terr)
		}
		if len(toks) > 0 {
			l, perr := ParseLine(toks)
			if perr != nil {
				return nil, fmt.Errorf("%w: %s:%d: %v", ErrSyntax, file, n, perr)
			}
			l.LineNo = n
			out = append(out, l)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

var errLong = errors.New("line too long")

// readLine reads one line without its end, refusing lines over MaxLine
// without holding them in memory.
func readLine(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, err := br.ReadSlice('\n')
		if b.Len()+len(chunk) > MaxLine+2 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return "", errLong
		}
		b.Write(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), "\r")
		return s, err
	}
}

// split cuts a line into words: # starts a comment outside quotes, double
// quotes group words and are removed.
func split(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, inQuote := false, false
	for _, r := range line {
		switch {
		case inQuote:
			if r == '"' {
				inQuote = false
			} else {
				cur.WriteRune(r)
			}
		case r == '"':
			inQuote, inWord = true, true
		case r == '#':
			if inWord {
				out = append(out, cur.String())
			}
			return out, nil
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inQuote {
		return nil, errors.New("unbalanced quote")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// SplitExport splits a -x value into items: a comma-separated list of NAME
// or NAME=value, where \, is a comma inside a value.
func SplitExport(v string) ([]string, error) {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ',':
			cur.WriteByte(',')
			i++
		case v[i] == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(v[i])
		}
	}
	out = append(out, cur.String())
	for _, it := range out {
		name, _, _ := strings.Cut(it, "=")
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("bad variable %q", it)
		}
	}
	return out, nil
}

// Proc is one process to start.
type Proc struct {
	Rank int
	Node int
	Line *Line
}

// Schedule assigns ranks in line order, with LAM's rules for each line:
// only where specifications start one process per target (N: per
// schedulable node; C: per schedulable CPU; nX, cX: per listed id); only
// -np starts that many round-robin over C; both start -np round-robin over
// the listed targets; neither starts one process on the local node.
func Schedule(lines []Line, nodes []nodespec.Node) ([]Proc, error) {
	var out []Proc
	for i := range lines {
		l := &lines[i]
		var targets []int
		var err error
		switch {
		case len(l.Where) > 0:
			targets, err = nodespec.Resolve(l.Where, nodes)
		case l.NP > 0:
			targets, err = nodespec.Resolve([]nodespec.Spec{{Kind: nodespec.AllCPUs}}, nodes)
		default:
			targets, err = nodespec.Resolve([]nodespec.Spec{{Kind: nodespec.Local}}, nodes)
		}
		if err != nil {
			if l.LineNo > 0 {
				return nil, fmt.Errorf("line %d: %w", l.LineNo, err)
			}
			return nil, err
		}
		if len(targets) == 0 {
			return nil, fmt.Errorf("%w: no schedulable node for %s", nodespec.ErrBadNode, l.Program)
		}
		count := len(targets)
		if l.NP > 0 {
			count = l.NP
		}
		if len(out)+count > MaxProcs {
			return nil, fmt.Errorf("more than %d processes", MaxProcs)
		}
		for k := 0; k < count; k++ {
			out = append(out, Proc{Rank: len(out), Node: targets[k%len(targets)], Line: l})
		}
	}
	return out, nil
}
