// Package appschema reads LAM application schemas (appschema(5), LAM
// 7.1.4's share/boot/asc_parse.c) and the equivalent mpirun/lamexec
// command lines, and schedules their processes onto the nodes of a
// universe with LAM's rules.
//
// # Schema syntax
//
// Each line of a schema is
//
//	[<where>...] [-np N | -c N] [-s <node>] [-wd <dir>] [-x <vars>]... [--] <program> [<args>...]
//
// where <where> is node/CPU notation (see package nodespec: n0-3, c2, N,
// C, h, o). Options and where specifications may come in any order
// before the program; the first word that is neither is the program, and
// every word after it is an argument of the program, even one that looks
// like an option or a where specification. "--" ends the options: the
// next word is the program even if it starts with "-" or looks like a
// where specification.
//
//   - -np N and -c N (the same thing; only one of them, once) need a
//     decimal integer from 1 to MaxProcs.
//   - -s <node> loads the program from that node; it must name exactly one
//     node: nX or cX with one id, h, or o.
//   - -wd <dir> sets the working directory; it must not be empty.
//   - -x <vars> exports environment variables, as split by SplitExport.
//     -x may be given several times and every one is honoured. (LAM
//     honoured only the first: "-x AA -x BB" exported AA alone.)
//
// Any other word starting with "-" before the program is an error (LAM
// took it as the program's name), as is a second -np/-c, -s or -wd, and a
// line with options or where specifications but no program.
//
// Words are separated by spaces and tabs. Outside quotes, # starts a
// comment that runs to the end of the line; blank and comment-only lines
// are skipped. Double quotes group words and are removed; inside them \"
// is a double quote and \\ a backslash, any other backslash is itself. As
// in LAM (whose splitter also honoured them), single quotes group too and
// keep everything up to the next single quote as it is. Outside quotes,
// \\, \" and \' stand for the character after the backslash. A quote left
// open is an error ("a b 'c" is not silently "a b c" as in LAM). Quoted
// parts next to unquoted ones join into one word: a"b c" is "ab c".
//
// A schema must be text: valid UTF-8, printable characters and tabs only,
// lines ending in LF or CRLF, an optional UTF-8 byte order mark at the
// start. Anything else — and a first line starting with "#!", which is a
// script — is refused with ErrNotText ("Exec format error" in LAM, which
// accepted ASCII only). Limits: a line may hold MaxLine bytes, a schema
// MaxLines lines and MaxBytes bytes.
//
// Errors about a schema are *SyntaxError values naming file and line,
// "app:3: -np needs a positive integer, not \"x\"", and wrap ErrSyntax
// (LAM said only "syntax error in application schema, line 3").
package appschema

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lamgo/lam/shared/nodespec"
)

// Limits.
const (
	MaxLine  = 64 << 10 // bytes in one line, without its line end
	MaxLines = 1 << 16  // lines in one schema, blank and comment lines included
	MaxBytes = 16 << 20 // bytes in one schema
	MaxProcs = 1 << 20  // processes in one job, and the largest -np
)

// ErrSyntax is wrapped by every error about the text of a schema line or
// of a command line given to ParseLine.
var ErrSyntax = errors.New("syntax error in application schema")

// ErrNotText is wrapped, besides ErrSyntax, by errors about content that
// is not text (LAM's ENOEXEC, "Exec format error").
var ErrNotText = errors.New("exec format error")

// ErrTooMany is wrapped by Schedule's error when a job would have more
// than MaxProcs processes.
var ErrTooMany = errors.New("too many processes")

// SyntaxError is a mistake in a schema line or a command line. Its text
// is "file:N: reason" for a schema and the reason alone for a command
// line. It wraps ErrSyntax and Err.
type SyntaxError struct {
	File string // the schema's name; "" for a command line
	Line int    // 1-based line in the schema; 0 for a command line
	Err  error  // the reason; may wrap ErrNotText or nodespec.ErrBadSpec
}

func (e *SyntaxError) Error() string {
	why := ErrSyntax.Error()
	if e.Err != nil {
		why = e.Err.Error()
	}
	if e.File == "" && e.Line == 0 {
		return why
	}
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + why
}

// Unwrap returns ErrSyntax and the reason.
func (e *SyntaxError) Unwrap() []error { return []error{ErrSyntax, e.Err} }

func syntaxf(format string, args ...any) error {
	return &SyntaxError{Err: fmt.Errorf(format, args...)}
}

// Line is one parsed app schema line (or the command line's equivalent).
type Line struct {
	Where   []nodespec.Spec // where specifications in written order; nil if none
	NP      int             // -np N or -c N; 0 = not given
	Source  string          // -s <node> as written (load the program from that node); "" if none
	Wd      string          // -wd dir; "" if none
	Export  []string        // the items of every -x, in order: "NAME" or "NAME=value"; nil if none
	Program string
	Args    []string // nil if none
	LineNo  int      // 1-based line in the schema file; 0 for a command line
}

// ParseLine reads the options, where specifications, program and
// arguments of one line, already split into words (one schema line, or
// mpirun's arguments after its own options). Errors are *SyntaxError
// values without file or line; a malformed where specification's error
// also wraps nodespec.ErrBadSpec.
func ParseLine(tokens []string) (Line, error) {
	var l Line
	np := "" // "-np" or "-c" once one was given
	seenS, seenWd := false, false
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		value := func() (string, error) {
			if i+1 >= len(tokens) {
				return "", syntaxf("%s needs a value", tok)
			}
			i++
			return tokens[i], nil
		}
		// onceValue is the value of an option that may be given once.
		onceValue := func(seen *bool) (string, error) {
			if *seen {
				return "", syntaxf("%s given twice", tok)
			}
			*seen = true
			return value()
		}
		switch tok {
		case "--":
			if i+1 >= len(tokens) {
				return Line{}, syntaxf("no program after --")
			}
			return program(l, tokens[i+1:])
		case "-np", "-c":
			switch np {
			case tok:
				return Line{}, syntaxf("%s given twice", tok)
			case "-np", "-c":
				return Line{}, syntaxf("-np and -c cannot both be given")
			}
			np = tok
			v, err := value()
			if err != nil {
				return Line{}, err
			}
			n, err := count(tok, v)
			if err != nil {
				return Line{}, err
			}
			l.NP = n
		case "-s":
			v, err := onceValue(&seenS)
			if err != nil {
				return Line{}, err
			}
			if err := checkSource(v); err != nil {
				return Line{}, err
			}
			l.Source = v
		case "-wd":
			v, err := onceValue(&seenWd)
			if err != nil {
				return Line{}, err
			}
			if v == "" {
				return Line{}, syntaxf("-wd needs a directory, not an empty word")
			}
			l.Wd = v
		case "-x":
			v, err := value()
			if err != nil {
				return Line{}, err
			}
			items, err := SplitExport(v)
			if err != nil {
				return Line{}, syntaxf("-x %s: %w", quoteShort(v), err)
			}
			l.Export = append(l.Export, items...)
		default:
			if nodespec.Is(tok) {
				s, err := nodespec.Parse(tok)
				if err != nil {
					return Line{}, &SyntaxError{Err: err}
				}
				l.Where = append(l.Where, s)
				continue
			}
			if strings.HasPrefix(tok, "-") {
				return Line{}, syntaxf("unknown option %s before the program (use -- before a program whose name starts with -)", quoteShort(tok))
			}
			return program(l, tokens[i:])
		}
	}
	if len(tokens) == 0 {
		return Line{}, syntaxf("no program")
	}
	return Line{}, syntaxf("no program after the options")
}

// program completes l with the program tokens[0] and its arguments.
func program(l Line, tokens []string) (Line, error) {
	if tokens[0] == "" {
		return Line{}, syntaxf("empty program name")
	}
	l.Program = tokens[0]
	if len(tokens) > 1 {
		l.Args = append([]string(nil), tokens[1:]...)
	}
	return l, nil
}

// count reads the value of -np or -c.
func count(opt, v string) (int, error) {
	digits := v != ""
	for i := 0; digits && i < len(v); i++ {
		digits = '0' <= v[i] && v[i] <= '9'
	}
	if !digits {
		return 0, syntaxf("%s needs a positive integer, not %s", opt, quoteShort(v))
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n > MaxProcs: // only digits: err is a range error
		return 0, syntaxf("%s %s: more than %d processes", opt, quoteShort(v), MaxProcs)
	case n == 0:
		return 0, syntaxf("%s needs a positive integer, not %s", opt, quoteShort(v))
	}
	return n, nil
}

// checkSource checks that the value of -s names exactly one node.
func checkSource(v string) error {
	s, err := nodespec.Parse(v)
	if err == nil {
		switch s.Kind {
		case nodespec.Local, nodespec.OriginNode:
			return nil
		case nodespec.Nodes, nodespec.CPUs:
			if len(s.IDs) == 1 {
				return nil
			}
		}
	}
	if err != nil {
		return syntaxf("-s needs one node (nX, cX, h or o): %w", err)
	}
	return syntaxf("-s needs one node (nX, cX, h or o), not %s", quoteShort(v))
}

// quoteShort quotes s for an error message, shortening it.
func quoteShort(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

// Parse reads a whole application schema from r; file names it in
// errors. It returns one Line per line holding a program, in order, with
// LineNo set; a schema of comments and blank lines gives none and no
// error. Errors about the content are *SyntaxError values wrapping
// ErrSyntax; an error reading r is returned wrapped, prefixed by file.
func Parse(r io.Reader, file string) ([]Line, error) {
	br := bufio.NewReaderSize(r, 4096)
	var out []Line
	total := 0
	for n := 1; ; n++ {
		raw, more, err := readLine(br)
		if err != nil {
			if errors.Is(err, errLong) {
				return nil, &SyntaxError{File: file, Line: n, Err: fmt.Errorf("line longer than %d bytes", MaxLine)}
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if !more {
			return out, nil
		}
		if n > MaxLines {
			return nil, &SyntaxError{File: file, Line: n, Err: fmt.Errorf("more than %d lines", MaxLines)}
		}
		if total += len(raw) + 1; total > MaxBytes {
			return nil, &SyntaxError{File: file, Line: n, Err: fmt.Errorf("schema larger than %d bytes", MaxBytes)}
		}
		if n == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
			if bytes.HasPrefix(raw, []byte("#!")) {
				return nil, &SyntaxError{File: file, Line: n, Err: fmt.Errorf("%w: starts with #!: a script, not an application schema", ErrNotText)}
			}
		}
		if err := checkText(raw); err != nil {
			return nil, &SyntaxError{File: file, Line: n, Err: err}
		}
		words, err := splitWords(string(raw))
		if err != nil {
			return nil, &SyntaxError{File: file, Line: n, Err: err}
		}
		if len(words) == 0 {
			continue
		}
		l, err := ParseLine(words)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				err = se.Err
			}
			return nil, &SyntaxError{File: file, Line: n, Err: err}
		}
		l.LineNo = n
		out = append(out, l)
	}
}

var errLong = errors.New("line too long")

// readLine reads one line without its LF or CRLF. more is false at the
// end of the input. A line longer than MaxLine is refused as soon as it
// is seen to be, so it is never held whole in memory.
func readLine(br *bufio.Reader) (line []byte, more bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine+2 { // room for CR LF
			return nil, false, errLong
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(buf) == 0 {
				return nil, false, nil
			}
		case err != nil:
			return nil, false, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > MaxLine {
			return nil, false, errLong
		}
		return buf, true, nil
	}
}

// checkText refuses a line that is not printable UTF-8 text.
func checkText(line []byte) error {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("%w: not UTF-8 text (byte 0x%02x at column %d)", ErrNotText, line[i], i+1)
		case r != '\t' && !unicode.IsPrint(r):
			return fmt.Errorf("%w: non-printable character %U at column %d", ErrNotText, r, i+1)
		}
		i += size
	}
	return nil
}

// splitWords cuts a line into words (see the package comment for the
// quoting rules).
func splitWords(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte // the open quote, or 0
	quoteCol := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line) && (line[i+1] == '\\' || line[i+1] == '"'):
				i++
				cur.WriteByte(line[i])
			default:
				cur.WriteByte(c)
			}
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#':
			i = len(line)
		case c == '"' || c == '\'':
			quote, quoteCol, inWord = c, i+1, true
		case c == '\\' && i+1 < len(line) && (line[i+1] == '\\' || line[i+1] == '"' || line[i+1] == '\''):
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		name := "double"
		if quote == '\'' {
			name = "single"
		}
		return nil, fmt.Errorf("unbalanced %s quote (opened at column %d)", name, quoteCol)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// quoteWord writes a word so that splitWords reads it back.
func quoteWord(w string) string {
	// Outside quotes a backslash escapes only \, " and ', so a lone
	// backslash may stay; quotes, # and blanks need quoting.
	if w != "" && !strings.ContainsAny(w, " \t\"'#") && !strings.Contains(w, `\\`) {
		return w
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(w); i++ {
		if w[i] == '"' || w[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(w[i])
	}
	b.WriteByte('"')
	return b.String()
}

// String writes the line as one app schema line, options in a fixed
// order, words quoted where needed and each -x item in its own -x, so
// that Parse reads back the same Line (apart from LineNo). A Line that
// Parse could not have returned, e.g. with a control character or an
// empty program, may give a line that Parse refuses.
func (l Line) String() string {
	var w []string
	for _, s := range l.Where {
		w = append(w, s.String())
	}
	if l.NP != 0 {
		w = append(w, "-np", strconv.Itoa(l.NP))
	}
	if l.Source != "" {
		w = append(w, "-s", l.Source)
	}
	if l.Wd != "" {
		w = append(w, "-wd", l.Wd)
	}
	for _, x := range l.Export {
		w = append(w, "-x", strings.ReplaceAll(x, ",", `\,`))
	}
	if l.Program == "" || strings.HasPrefix(l.Program, "-") || nodespec.Is(l.Program) {
		w = append(w, "--")
	}
	w = append(w, l.Program)
	w = append(w, l.Args...)
	for i := range w {
		w[i] = quoteWord(w[i])
	}
	return strings.Join(w, " ")
}

// SplitExport splits the value of -x into its items: a comma-separated
// list of NAME (export this variable's current value) or NAME=value
// (define it), where \, is a comma inside an item and any other
// backslash is itself. There is no other quoting. Every item needs a
// name: an empty item ("A,,B", "A,"), an empty name ("=v"), and a name
// with a space or control character are refused, as is a NUL anywhere.
// The value may hold anything else, "=" included.
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
	for k, it := range out {
		name, _, _ := strings.Cut(it, "=")
		switch {
		case it == "":
			return nil, fmt.Errorf("item %d is empty", k+1)
		case name == "":
			return nil, fmt.Errorf("item %d (%s) has no variable name", k+1, quoteShort(it))
		case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f || !unicode.IsPrint(r) }):
			return nil, fmt.Errorf("item %d: bad variable name %s", k+1, quoteShort(name))
		case strings.IndexByte(it, 0) >= 0:
			return nil, fmt.Errorf("item %d (%s) holds a NUL", k+1, quoteShort(it))
		}
	}
	return out, nil
}

// Proc is one process to start.
type Proc struct {
	Rank int   // rank in MPI_COMM_WORLD: the position in Schedule's result
	Node int   // node id
	Line *Line // the line it comes from: an element of the slice given to Schedule
}

// Schedule assigns ranks in line order, per LAM's rules (mpirun(1),
// appschema(5)). For each line:
//
//   - only where → one process per target: N per schedulable node, C per
//     schedulable CPU, nX and cX per listed id (see nodespec.Resolve);
//   - only -np → NP processes round-robin over C (all schedulable CPUs,
//     wrapping);
//   - both → NP processes round-robin over the where targets;
//   - neither → one process on the local node (h).
//
// So "N -np 16" places processes by node and "-np 16" by CPU. A line
// whose targets are empty (N or C with no schedulable node) is an error
// wrapping nodespec.ErrBadNode, as are nodes and CPUs not in the
// universe (a *nodespec.NodeError). More than MaxProcs processes in all is
// an error wrapping ErrTooMany. Errors about a schema line start with
// "line N: ".
func Schedule(lines []Line, nodes []nodespec.Node) ([]Proc, error) {
	var out []Proc
	for i := range lines {
		l := &lines[i]
		if l.NP < 0 {
			return nil, lineErr(l, fmt.Errorf("%w: -np %d", ErrSyntax, l.NP))
		}
		if l.NP > MaxProcs-len(out) {
			return nil, lineErr(l, fmt.Errorf("%w: more than %d processes", ErrTooMany, MaxProcs))
		}
		specs := l.Where
		switch {
		case len(specs) > 0:
		case l.NP > 0:
			specs = []nodespec.Spec{{Kind: nodespec.AllCPUs}}
		default:
			specs = []nodespec.Spec{{Kind: nodespec.Local}}
		}
		targets, err := nodespec.Resolve(specs, nodes)
		if err != nil {
			return nil, lineErr(l, err)
		}
		if len(targets) == 0 {
			return nil, lineErr(l, fmt.Errorf("%w: no schedulable node to run %s on", nodespec.ErrBadNode, l.Program))
		}
		count := len(targets)
		if l.NP > 0 {
			count = l.NP
		}
		if count > MaxProcs-len(out) {
			return nil, lineErr(l, fmt.Errorf("%w: more than %d processes", ErrTooMany, MaxProcs))
		}
		for k := range count {
			out = append(out, Proc{Rank: len(out), Node: targets[k%len(targets)], Line: l})
		}
	}
	return out, nil
}

func lineErr(l *Line, err error) error {
	if l.LineNo > 0 {
		return fmt.Errorf("line %d: %w", l.LineNo, err)
	}
	return err
}
