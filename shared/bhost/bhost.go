// Package bhost parses LAM boot schemas ("bhost" files, bhost(5)) and
// finds the schema that lamboot, recon and lamwipe should use.
//
// # Syntax
//
// A boot schema lists one host per line:
//
//	# comment
//	localhost cpu=2
//	node1.example.org user=alice prefix=/opt/lam
//	node2 schedule=no          # runs a lamd but gets no processes
//	192.168.1.7 cpu=4
//
// The rules are LAM 7.1.4's (share/boot/bhostparse.c), with the fixes
// listed under "Differences from LAM 7.1.4":
//
//   - Lines end in LF or CRLF. Everything from the first # outside double
//     quotes is a comment. Blank and comment-only lines are ignored.
//   - Tokens are separated by spaces and tabs (a stray carriage return,
//     vertical tab or form feed counts as a space). Double quotes group
//     characters, spaces included, into one token and are removed.
//   - The first token is the host. A first token that contains "=" with
//     no "/" before it is a key=value, not a host, and the line is
//     rejected with a message saying so. The host must be what a resolver
//     accepts (see [CheckHost]): a host name of ASCII letters, digits and
//     hyphens in dot-separated labels (RFC 1123), an IP address, or
//     vsock:CID[:port] for a virtual machine reached over AF_VSOCK (not in
//     LAM). There is no user@host form; the user is given with user=.
//   - Every other token is key=value, with no spaces around "=". Keys are
//     case-insensitive and stored lower-cased. Known keys: cpu (a positive
//     decimal integer, at most [MaxCPU]; 1 when absent), user (non-empty,
//     at most [MaxUser] bytes, not beginning with "-"), schedule (yes or
//     no, any case) and prefix (the remote LAM installation, non-empty, at
//     most [MaxPrefix] bytes). Other keys, such as LAM's globus module's
//     lam_install_path, are kept in Host.Keys without comment.
//   - A host named on several lines (names compared case-insensitively as
//     text, as LAM does; not by address) becomes one Host at the place of
//     its first line. Its cpu counts are summed; any other key is taken
//     from the first line that gives it.
//
// A bad line does not stop the parse. As in LAM, the line is skipped and
// reported as a Warning, and the boot goes on with the other hosts. A
// skipped line contributes nothing, not even the cpu count of a host
// that appears on other lines.
//
// # Differences from LAM 7.1.4
//
// This package deliberately fixes the bhost bugs of facts §8 item 7:
//
//   - A # inside a double-quoted token is part of the token. LAM cut the
//     line at the first # even inside quotes, which broke quoted values
//     containing #.
//   - schedule=no on a later line for an already listed host is honoured.
//     LAM silently ignored it, so "localhost cpu=2" followed by
//     "localhost schedule=no" gave a schedulable host with 3 cpus; here
//     the host has 3 cpus and is not schedulable. A later schedule=yes
//     never re-enables a host that an earlier line marked schedule=no.
//   - A line with a bad cpu value (cpu=abc, cpu=0) is skipped, as LAM's
//     own message (bhost-parse:invalid-cpu-count) says. LAM 7.1.4 in fact
//     booted that host with 0 cpus, a node that C and -np never schedule
//     on (issue 17); here the warning tells the truth.
//
// It is also stricter where LAM was silent: a key given twice on one line
// (not only cpu and user), a bad schedule value, an empty user or prefix,
// control characters in a token, a host that is neither a host name nor an
// address (LAM handed raw bytes, or a Globus contact string, to the
// resolver or the remote shell), and a cpu count beyond what the node
// table carries (LAM let it reach the lamds) are all reported and the line
// is skipped. A UTF-8 byte-order mark at the start of the file is ignored.
//
// # Limits
//
// Hostile input cannot make Parse use unbounded memory or time. A line
// longer than 64 KiB is skipped with a warning, without being held in
// memory. Parse fails with an error when the schema names more than
// [MaxHosts] (65536, the node ids of the node table) distinct hosts or
// keeps more than 32 MiB of host data. A host's total cpu count may not
// exceed [MaxCPU] (16777216, what the node table carries): a line that
// would take it further is skipped with a warning. At most 1000 warnings
// are kept; one final warning counts the rest.
package bhost

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Limits; see the package documentation.
const (
	maxLine     = 64 << 10 // bytes in a line, terminator excluded
	maxRetained = 32 << 20 // bytes of host data kept (approximate)
	maxWarnings = 1000     // warnings kept before summarising
	maxQuoted   = 64       // bytes of a token quoted in a warning
	hostCost    = 128      // retained-size charge for a Host
	keyCost     = 32       // retained-size charge for a Keys entry
)

// Host is one node of a boot schema after duplicate lines are merged.
//
// The typed fields are authoritative. Keys holds every key=value given
// for the host, merged first-wins like the fields, with two exceptions
// that keep it in step with them: Keys["cpu"] is the summed count,
// present whenever a line gave cpu or the count is not 1; and
// Keys["schedule"] is the value that turned scheduling off when a later
// line did so.
type Host struct {
	Name     string            // host as written (quotes stripped)
	CPU      int               // cpu= count; 1 when absent; summed over duplicate lines
	User     string            // user=, "" when absent
	Schedule bool              // false when schedule=no
	Prefix   string            // prefix= (remote LAM installation path), "" when absent
	Keys     map[string]string // every key=value of the host (keys lower-cased), known and unknown, in case a module needs one (e.g. lam_install_path)
	Line     int               // line of first appearance (1-based)
}

// Warning is a bad line: LAM reports it and skips the line; the boot goes on.
type Warning struct {
	File   string // file name given to Parse
	Line   int    // 1-based line number
	Reason string // what is wrong, naming the offending token
}

// String returns the warning as "file:line: reason".
func (w Warning) String() string {
	return w.File + ":" + strconv.Itoa(w.Line) + ": " + w.Reason
}

// Schema is a parsed boot schema.
type Schema struct {
	File     string    // file name given to Parse
	Hosts    []Host    // in order of first appearance; index i is node n<i>
	Warnings []Warning // skipped lines, in line order
}

// ParseFile reads and parses the boot schema at path. Warnings name the
// file as path.
func ParseFile(path string) (*Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read boot schema: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a boot schema from r. file names the schema in warnings and
// errors. Bad lines become Warnings; the error is only for a failure to
// read r or for input beyond the package's limits (too many hosts, too
// much host data).
func Parse(r io.Reader, file string) (*Schema, error) {
	p := &parser{
		s:     &Schema{File: file},
		index: map[string]int{},
	}
	br := bufio.NewReaderSize(r, maxLine+2) // room for a full line and CRLF
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		tooLong := false
		if errors.Is(err, bufio.ErrBufferFull) {
			// More than maxLine bytes before the terminator: drop the
			// rest of the line without keeping it.
			tooLong = true
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading boot schema %s: %w", file, err)
		}
		if err == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		line = trimEOL(line)
		if n == 1 {
			line = trimBOM(line)
		}
		if tooLong || len(line) > maxLine {
			p.warn(n, fmt.Sprintf("line longer than %d bytes", maxLine))
		} else if err := p.line(n, line); err != nil {
			return nil, err
		}
		if err == io.EOF {
			break
		}
	}
	p.finish()
	return p.s, nil
}

// parser holds the state of one Parse.
type parser struct {
	s          *Schema
	index      map[string]int // folded host name → index in s.Hosts
	retained   int            // approximate bytes of host data kept
	suppressed int            // warnings beyond maxWarnings
	firstSupp  int            // line of the first suppressed warning
}

// entry is one valid host line before merging.
type entry struct {
	name     string
	cpu      int // 0 when the line has no cpu=
	schedNo  bool
	keys     map[string]string
	keyBytes int
}

// warn records a bad line.
func (p *parser) warn(line int, reason string) {
	if len(p.s.Warnings) >= maxWarnings {
		if p.suppressed == 0 {
			p.firstSupp = line
		}
		p.suppressed++
		return
	}
	p.s.Warnings = append(p.s.Warnings, Warning{File: p.s.File, Line: line, Reason: reason})
}

// line parses and merges line n. It returns an error only for input
// beyond the limits.
func (p *parser) line(n int, text []byte) error {
	toks, ok := splitLine(text)
	if !ok {
		p.warn(n, `imbalanced quotes: a closing '"' is missing`)
		return nil
	}
	if len(toks) == 0 {
		return nil
	}
	e, reason := parseEntry(toks)
	if reason != "" {
		p.warn(n, reason)
		return nil
	}
	return p.merge(n, e)
}

// parseEntry checks the tokens of one non-empty line. A non-empty reason
// rejects the line.
func parseEntry(toks []string) (*entry, string) {
	for _, t := range toks {
		if hasControl(t) {
			return nil, fmt.Sprintf("control character in %s", quote(t))
		}
	}
	e := &entry{name: toks[0], keys: map[string]string{}}
	if e.name == "" {
		return nil, "empty host name"
	}
	if i := strings.IndexByte(e.name, '='); i >= 0 && strings.IndexByte(e.name[:i], '/') < 0 {
		return nil, fmt.Sprintf("the host name must come first on the line, not key=value %s", quote(e.name))
	}
	if err := CheckHost(e.name); err != nil {
		return nil, err.Error()
	}
	host := quote(e.name)
	for _, t := range toks[1:] {
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			return nil, fmt.Sprintf("unexpected %s after host %s: want key=value with no spaces around \"=\"", quote(t), host)
		}
		key, val := asciiLower(t[:eq]), t[eq+1:]
		if key == "" || strings.ContainsAny(key, " \t") {
			return nil, fmt.Sprintf("invalid key in %s for host %s", quote(t), host)
		}
		if _, dup := e.keys[key]; dup {
			return nil, fmt.Sprintf("key %s given twice for host %s", quote(key), host)
		}
		switch key {
		case "cpu":
			c, reason := parseCPU(val, host)
			if reason != "" {
				return nil, reason
			}
			e.cpu = c
		case "user":
			switch {
			case val == "":
				return nil, fmt.Sprintf("empty user for host %s", host)
			case len(val) > MaxUser:
				return nil, fmt.Sprintf("user for host %s is longer than %d bytes", host, MaxUser)
			case val[0] == '-':
				return nil, fmt.Sprintf("user %s for host %s may not begin with \"-\"", quote(val), host)
			}
		case "schedule":
			switch {
			case strings.EqualFold(val, "no"):
				e.schedNo = true
			case strings.EqualFold(val, "yes"):
			default:
				return nil, fmt.Sprintf("invalid schedule value %s for host %s: want yes or no", quote(val), host)
			}
		case "prefix":
			switch {
			case val == "":
				return nil, fmt.Sprintf("empty prefix for host %s", host)
			case len(val) > MaxPrefix:
				return nil, fmt.Sprintf("prefix for host %s is longer than %d bytes", host, MaxPrefix)
			}
		}
		e.keys[key] = val
		e.keyBytes += len(key) + len(val) + keyCost
	}
	return e, ""
}

// parseCPU checks a cpu= value: a positive decimal integer no larger
// than MaxCPU.
func parseCPU(val, host string) (int, string) {
	if val == "" {
		return 0, fmt.Sprintf("invalid cpu count %s for host %s: want a positive integer", quote(val), host)
	}
	for i := 0; i < len(val); i++ {
		if val[i] < '0' || val[i] > '9' {
			return 0, fmt.Sprintf("invalid cpu count %s for host %s: want a positive integer", quote(val), host)
		}
	}
	c, err := strconv.ParseInt(val, 10, 64)
	if err != nil || c > MaxCPU {
		return 0, fmt.Sprintf("cpu count %s for host %s is larger than %d, the most a node may have", quote(val), host, MaxCPU)
	}
	if c == 0 {
		return 0, fmt.Sprintf("invalid cpu count %s for host %s: want a positive integer", quote(val), host)
	}
	return int(c), ""
}

// merge adds a valid line to the schema, merging it into an earlier line
// for the same host.
func (p *parser) merge(n int, e *entry) error {
	cpu := e.cpu
	if cpu == 0 {
		cpu = 1
	}
	k := asciiLower(e.name)
	i, seen := p.index[k]
	if !seen {
		if len(p.s.Hosts) >= MaxHosts {
			return fmt.Errorf("boot schema %s: more than %d hosts", p.s.File, MaxHosts)
		}
		if err := p.charge(hostCost + 2*len(e.name) + e.keyBytes); err != nil {
			return err
		}
		p.index[k] = len(p.s.Hosts)
		p.s.Hosts = append(p.s.Hosts, Host{
			Name:     e.name,
			CPU:      cpu,
			Schedule: !e.schedNo,
			Keys:     e.keys,
			Line:     n,
		})
		return nil
	}
	h := &p.s.Hosts[i]
	if h.CPU > MaxCPU-cpu {
		p.warn(n, fmt.Sprintf("total cpu count for host %s is larger than %d, the most a node may have", quote(e.name), MaxCPU))
		return nil
	}
	h.CPU += cpu
	for key, val := range e.keys {
		if _, ok := h.Keys[key]; ok {
			continue
		}
		if err := p.charge(len(key) + len(val) + keyCost); err != nil {
			return err
		}
		h.Keys[key] = val
	}
	if e.schedNo && h.Schedule {
		// LAM ignored this; see the package documentation.
		h.Schedule = false
		h.Keys["schedule"] = e.keys["schedule"]
	}
	return nil
}

// charge accounts for n more bytes of kept host data.
func (p *parser) charge(n int) error {
	p.retained += n
	if p.retained > maxRetained {
		return fmt.Errorf("boot schema %s: more than %d MiB of host data", p.s.File, maxRetained>>20)
	}
	return nil
}

// finish fills the fields derived from Keys and summarises suppressed
// warnings.
func (p *parser) finish() {
	for i := range p.s.Hosts {
		h := &p.s.Hosts[i]
		h.User = h.Keys["user"]
		h.Prefix = h.Keys["prefix"]
		if _, ok := h.Keys["cpu"]; ok || h.CPU != 1 {
			h.Keys["cpu"] = strconv.Itoa(h.CPU)
		}
	}
	if p.suppressed > 0 {
		p.s.Warnings = append(p.s.Warnings, Warning{
			File:   p.s.File,
			Line:   p.firstSupp,
			Reason: fmt.Sprintf("%d more bad lines not reported", p.suppressed),
		})
	}
}

// splitLine splits a line, terminator removed, into tokens. Double quotes
// group characters and are dropped; # outside quotes starts a comment.
// ok is false when a quote is left open.
func splitLine(line []byte) (toks []string, ok bool) {
	var (
		buf     []byte
		inTok   bool
		inQuote bool
	)
	for _, c := range line {
		if inQuote {
			if c == '"' {
				inQuote = false
			} else {
				buf = append(buf, c)
			}
			continue
		}
		if c == '#' {
			break
		}
		switch c {
		case '"':
			inQuote, inTok = true, true
		case ' ', '\t', '\r', '\v', '\f':
			if inTok {
				toks = append(toks, string(buf))
				buf, inTok = buf[:0], false
			}
		default:
			buf = append(buf, c)
			inTok = true
		}
	}
	if inQuote {
		return nil, false
	}
	if inTok {
		toks = append(toks, string(buf))
	}
	return toks, true
}

// trimEOL removes a trailing LF or CRLF.
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// trimBOM removes a leading UTF-8 byte-order mark.
func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

// hasControl reports whether s holds an ASCII control character.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// asciiLower lower-cases ASCII letters only, as LAM's strcasecmp compares
// (and as DNS names compare).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// quote quotes a token for a warning, shortening a long one.
func quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}
