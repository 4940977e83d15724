package lamcli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Syntax describes a tool's LAM-style command line for Rewrite.
type Syntax struct {
	// Long maps LAM's single-dash long option names ("np", "ssi",
	// "sessionprefix") to the number of values each takes (0, 1 or 2).
	Long map[string]int
	// Program means the first positional argument that is not a node or
	// CPU specification is a program: it and everything after it are left
	// alone (LAM's mpirun and lamexec).
	Program bool
	// IsSpec recognises node and CPU specifications (nodespec.Is).
	IsSpec func(string) bool
	// Raw passes every argument through as a positional one.
	Raw bool
}

// Rewrite turns a LAM command line into one kong parses:
//
//   - a single-dash long option from Long gains a second dash
//     (-np 4 → --np 4, -sessionprefix p → --sessionprefix p);
//   - an option with two values becomes --name=a=b (-ssi rpi tcp →
//     --ssi=rpi=tcp), from either -name or --name;
//   - single letters (-v, -c 3) stay short flags; listing one in Long
//     with its value count lets Rewrite step over its value;
//   - with Program set, options and node/CPU specifications may come in
//     any order before the program, as LAM's mpirun reads them (mpirun n0
//     -np 3 ./hello): the options come out first, then "--", the
//     specifications in their order, the program and its arguments, so
//     that neither the specifications nor the program's own options are
//     read as the tool's.
//
// An exact match in Long wins over reading the word as single letters, so
// "-c2c" is not "-c 2c" when c2c is listed.
//
// With Program set, Long lists every option of the tool (LAM's mpirun and
// lamexec match options whole): an option before the program that is not
// in Long (save -h, -help and --help) is a usage error: LAM's framed
// usage alone, exit 226, with no line naming the option (LAM 7.1.4 has
// none: shared/integration/testdata/lam-7.1.4). Left to kong, it would be read as short flags ("-f" "-rob") whose
// rest becomes the first of the passed-through arguments, the program.
func Rewrite(args []string, s Syntax) ([]string, error) {
	if s.Raw {
		return append([]string{"--"}, args...), nil
	}
	out := make([]string, 0, len(args)+1)
	var specs []string // Program: the where specifications, in order
	tail := func(rest []string) []string {
		if !s.Program {
			return append(out, rest...)
		}
		out = append(out, "--")
		out = append(out, specs...)
		return append(out, rest...)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if s.Program {
				return tail(args[i+1:]), nil
			}
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, hasEq := strings.Cut(a[2:], "=")
			if _, ok := s.Long[name]; !ok && s.Program && a != "--help" {
				return nil, Usage()
			}
			if n, ok := s.Long[name]; ok && n == 2 && !hasEq {
				if i+2 >= len(args) {
					return nil, missingValue(s)
				}
				out = append(out, "--"+name+"="+args[i+1]+"="+args[i+2])
				i += 2
				continue
			}
			out = append(out, a)
			if n, ok := s.Long[name]; ok && n == 1 && !hasEq && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			n, ok := s.Long[a[1:]]
			if !ok {
				if s.Program && a != "-h" && a != "-help" {
					return nil, Usage()
				}
				out = append(out, a) // kong's short flags
				continue
			}
			name := a[1:]
			if len(name) == 1 {
				// A short flag: keep it, but step over its values so they
				// are not taken for the program name.
				if i+n >= len(args) {
					return nil, missingValue(s)
				}
				out = append(out, args[i:i+n+1]...)
				i += n
				continue
			}
			switch n {
			case 0:
				out = append(out, "--"+name)
			case 1:
				if i+1 >= len(args) {
					return nil, missingValue(s)
				}
				// "=" keeps a value that starts with "-" from being read as a flag.
				out = append(out, "--"+name+"="+args[i+1])
				i++
			case 2:
				if i+2 >= len(args) {
					return nil, missingValue(s)
				}
				out = append(out, "--"+name+"="+args[i+1]+"="+args[i+2])
				i += 2
			default:
				return nil, fmt.Errorf("lamcli: option -%s declared with %d values", name, n)
			}
		default:
			if s.Program {
				if s.IsSpec != nil && s.IsSpec(a) {
					specs = append(specs, a)
					continue
				}
				return tail(args[i:]), nil
			}
			out = append(out, a)
		}
	}
	if len(specs) > 0 {
		return tail(nil), nil
	}
	return out, nil
}

// missingValue is the error of an option whose value is missing at the end
// of the command line: for mpirun and lamexec (Program) LAM's "mpirun:
// Invalid argument" and exit 22 (EINVAL, from its option parser), the
// framed usage for the other tools.
func missingValue(s Syntax) error {
	if s.Program {
		return Exit(int(syscall.EINVAL), errInvalidArgument)
	}
	return Usage()
}

// errInvalidArgument is LAM's text for EINVAL.
var errInvalidArgument = errors.New("Invalid argument")
