package bhost

import (
	"errors"
	"github.com/lamgo/lam/shared/linknet"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never fails on input within the limits,
// keeps its invariants, and that writing the hosts back out and parsing
// them again gives the same hosts.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("a\x00\"b\"#c\r\n\"\"=\"\"\n/=/ =/ \"cpu\"=1"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse(strings.NewReader(string(in)), "f")
		if err != nil {
			// Inputs from the fuzzer are far below the host and data
			// limits, and reading a strings.Reader cannot fail.
			t.Fatalf("Parse: %v", err)
		}
		checkSchema(t, s, strings.Count(string(in), "\n")+1)

		// Round trip: one fully quoted line per host.
		var b strings.Builder
		for _, h := range s.Hosts {
			b.WriteString(`"` + h.Name + `"`)
			for k, v := range h.Keys {
				b.WriteString(` "` + k + "=" + v + `"`)
			}
			b.WriteString("\n")
		}
		s2, err := Parse(strings.NewReader(b.String()), "f")
		if err != nil {
			t.Fatalf("re-Parse: %v", err)
		}
		if len(s2.Warnings) != 0 {
			t.Fatalf("re-Parse of %q warns %v", b.String(), s2.Warnings)
		}
		if len(s2.Hosts) != len(s.Hosts) {
			t.Fatalf("re-Parse: %d hosts; want %d", len(s2.Hosts), len(s.Hosts))
		}
		for i := range s.Hosts {
			h, h2 := s.Hosts[i], s2.Hosts[i]
			h.Line, h2.Line = 0, 0
			if !reflect.DeepEqual(h, h2) {
				t.Fatalf("re-Parse host %d:\n got %+v\nwant %+v", i, h2, h)
			}
		}
	})
}

// checkSchema checks the invariants of a parsed schema of lines lines.
func checkSchema(t *testing.T, s *Schema, lines int) {
	t.Helper()
	if len(s.Hosts) > MaxHosts {
		t.Fatalf("%d hosts", len(s.Hosts))
	}
	if len(s.Warnings) > maxWarnings+1 {
		t.Fatalf("%d warnings", len(s.Warnings))
	}
	seen := map[string]bool{}
	prev := 0
	for _, h := range s.Hosts {
		if h.Name == "" || h.CPU < 1 || h.CPU > MaxCPU || h.Keys == nil {
			t.Fatalf("bad host %+v", h)
		}
		k := asciiLower(h.Name)
		if seen[k] {
			t.Fatalf("duplicate host %q", h.Name)
		}
		seen[k] = true
		if h.Line <= prev || h.Line > lines {
			t.Fatalf("host %q on line %d after line %d (of %d)", h.Name, h.Line, prev, lines)
		}
		prev = h.Line
		if hasControl(h.Name) || strings.Contains(h.Name, `"`) || CheckHost(h.Name) != nil {
			t.Fatalf("bad host name %q", h.Name)
		}
		if len(h.User) > MaxUser || strings.HasPrefix(h.User, "-") || len(h.Prefix) > MaxPrefix {
			t.Fatalf("host %q: bad user %q or prefix %q", h.Name, h.User, h.Prefix)
		}
		for key, v := range h.Keys {
			if key == "" || key != asciiLower(key) || hasControl(key+v) || strings.ContainsAny(key+v, `"`) {
				t.Fatalf("host %q: bad key %q=%q", h.Name, key, v)
			}
		}
		if h.User != h.Keys["user"] || h.Prefix != h.Keys["prefix"] {
			t.Fatalf("host %+v: fields disagree with Keys", h)
		}
		if c, ok := h.Keys["cpu"]; ok && c != strconv.Itoa(h.CPU) || !ok && h.CPU != 1 {
			t.Fatalf("host %+v: Keys[cpu] disagrees with CPU", h)
		}
		if h.Schedule == strings.EqualFold(h.Keys["schedule"], "no") {
			t.Fatalf("host %+v: Schedule disagrees with Keys", h)
		}
	}
	prev = 0
	for _, w := range s.Warnings {
		if w.File != s.File || w.Line < prev || w.Line < 1 || w.Line > lines || w.Reason == "" {
			t.Fatalf("bad warning %+v after line %d (of %d)", w, prev, lines)
		}
		prev = w.Line
	}
}

// FuzzCheckHost checks that CheckHost accepts only what a resolver takes
// (an IP address, or ASCII letters, digits, hyphens and dots within the
// RFC 1123 lengths) and that a schema line naming an accepted host parses
// without a warning.
func FuzzCheckHost(f *testing.F) {
	for _, s := range []string{"localhost", "a.b.c", "node-1.example.org.", "10.0.0.1", "::1", "fe80::1%eth0",
		"\xff\xfe", "-x", "a..b", "alice@node1", "1.2.3", "[::1]", "my_node", "vsock:3", "vsock:4:22", "vsock:1", name253, "x" + name253, "h\u00f4te"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := CheckHost(name)
		if err != nil {
			if !errors.Is(err, ErrHostName) {
				t.Fatalf("CheckHost(%q) = %v, not wrapping ErrHostName", name, err)
			}
			return
		}
		if linknet.IsVsock(name) {
			if _, _, verr := linknet.ParseVsock(name); verr != nil {
				t.Fatalf("CheckHost accepts %q: %v", name, verr)
			}
		} else if _, aerr := netip.ParseAddr(name); aerr != nil {
			h := strings.TrimSuffix(name, ".")
			if h == "" || len(h) > MaxHostName || strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != "" {
				t.Fatalf("CheckHost accepts %q", name)
			}
			for _, l := range strings.Split(h, ".") {
				if l == "" || len(l) > MaxLabel || l[0] == '-' || l[len(l)-1] == '-' {
					t.Fatalf("CheckHost accepts %q (label %q)", name, l)
				}
			}
		}
		if hasControl(name) || strings.ContainsAny(name, "\" #=") {
			return // fine for a resolver, but not one plain schema token
		}
		s, perr := Parse(strings.NewReader(name+" cpu=2\n"), "f")
		if perr != nil || len(s.Warnings) != 0 || len(s.Hosts) != 1 || s.Hosts[0].Name != name {
			t.Fatalf("schema line for accepted host %q: %+v, %v", name, s, perr)
		}
	})
}
