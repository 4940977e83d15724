package bhost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// host builds an expected Host from its key=value pairs, deriving the
// typed fields the way the package documents them.
func host(line int, name string, cpu int, kv ...string) Host {
	h := Host{Name: name, CPU: cpu, Schedule: true, Keys: map[string]string{}, Line: line}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Keys[kv[i]] = kv[i+1]
	}
	h.User = h.Keys["user"]
	h.Prefix = h.Keys["prefix"]
	if strings.EqualFold(h.Keys["schedule"], "no") {
		h.Schedule = false
	}
	return h
}

// name253 is a host name of 253 bytes, the longest there is.
var name253 = strings.Repeat(strings.Repeat("n", 62)+".", 4) + "n"

// parseTests is the table for TestParse and the seed corpus of FuzzParse.
// Warnings are given as Warning.String() of a file named "hosts".
var parseTests = []struct {
	name  string
	in    string
	hosts []Host
	warns []string
}{
	{name: "empty", in: ""},
	{name: "blank and comment lines", in: "\n   \n\t\n# a comment\n   # indented comment\n"},
	{name: "one host", in: "localhost\n", hosts: []Host{host(1, "localhost", 1)}},
	{name: "no final newline", in: "a\nb", hosts: []Host{host(1, "a", 1), host(2, "b", 1)}},
	{name: "known keys", in: "node1 cpu=4 user=alice prefix=/opt/lam schedule=yes\n",
		hosts: []Host{host(1, "node1", 4, "cpu", "4", "user", "alice", "prefix", "/opt/lam", "schedule", "yes")}},
	{name: "schedule no", in: "n schedule=no\n", hosts: []Host{host(1, "n", 1, "schedule", "no")}},
	{name: "cpu leading zeros", in: "n cpu=007\n", hosts: []Host{host(1, "n", 7, "cpu", "7")}},
	{name: "tabs and runs of spaces", in: "\t a\t\tcpu=2 \t user=u \t\n", hosts: []Host{host(1, "a", 2, "cpu", "2", "user", "u")}},
	{name: "line numbers count blank and comment lines",
		in:    "# schema\n\na\n# more\n\nb\n",
		hosts: []Host{host(3, "a", 1), host(6, "b", 1)}},

	// LAM observed localhost:3 and schedulable; we honour schedule=no.
	{name: "LAM observed cpu=2 then schedule=no", in: "localhost cpu=2\nlocalhost schedule=no\n",
		hosts: []Host{host(1, "localhost", 3, "cpu", "3", "schedule", "no")}},
	{name: "later schedule=yes does not re-enable", in: "a schedule=no\na schedule=yes\n",
		hosts: []Host{host(1, "a", 2, "cpu", "2", "schedule", "no")}},
	{name: "later schedule=no overrides earlier yes", in: "a schedule=yes\na schedule=NO\n",
		hosts: []Host{host(1, "a", 2, "cpu", "2", "schedule", "NO")}},
	{name: "duplicates case-insensitive, first spelling and line kept",
		in: "Alpha cpu=2\nbeta\nALPHA cpu=3 user=x\nalpha user=y\n",
		hosts: []Host{
			host(1, "Alpha", 6, "cpu", "6", "user", "x"),
			host(2, "beta", 1),
		}},
	{name: "duplicates: other keys first-wins", in: "a user=u1 prefix=/p1\na user=u2 prefix=/p2 foo=bar\n",
		hosts: []Host{host(1, "a", 2, "cpu", "2", "user", "u1", "prefix", "/p1", "foo", "bar")}},
	{name: "duplicates: cpu absent counts 1", in: "a\na cpu=4\na\n",
		hosts: []Host{host(1, "a", 6, "cpu", "6")}},
	{name: "order is first appearance", in: "c\nb\na\nb\nC\n",
		hosts: []Host{host(1, "c", 2, "cpu", "2"), host(2, "b", 2, "cpu", "2"), host(3, "a", 1)}},
	{name: "duplicates compared as text, not address", in: "localhost\n127.0.0.1\n",
		hosts: []Host{host(1, "localhost", 1), host(2, "127.0.0.1", 1)}},

	{name: "quoted host", in: `"my-host" cpu=2` + "\n",
		hosts: []Host{host(1, "my-host", 2, "cpu", "2")}},
	{name: "quoted host with spaces", in: `"my host" cpu=2` + "\n",
		warns: []string{`hosts:1: invalid host name "my host": " " is not allowed; ` + hostWant}},
	{name: "quoted value with spaces", in: `a user="a b"` + "\n",
		hosts: []Host{host(1, "a", 1, "user", "a b")}},
	{name: "quotes inside a token", in: `ho"st.na"me "cpu=2"` + "\n",
		hosts: []Host{host(1, "host.name", 2, "cpu", "2")}},
	{name: "quotes inside a token, with a space", in: `ho"st na"me "cpu=2"` + "\n",
		warns: []string{`hosts:1: invalid host name "host name": " " is not allowed; ` + hostWant}},
	// No boot module takes Globus contact strings: they are not host
	// names. A "/" before "=" still makes the token a host, not a key.
	{name: "globus contact string", in: `"host.example.org:2119/jobmanager:/O=Grid/CN=host" cpu=4 lam_install_path=/opt/lam` + "\n",
		warns: []string{`hosts:1: invalid host name "host.example.org:2119/jobmanager:/O=Grid/CN=host": ":" is not allowed; ` + hostWant}},
	{name: "slash before = is a host", in: "a/b=c\n",
		warns: []string{`hosts:1: invalid host name "a/b=c": "/" is not allowed; ` + hostWant}},
	{name: "value containing =", in: "a foo=x=y\n", hosts: []Host{host(1, "a", 1, "foo", "x=y")}},
	{name: "empty unknown value kept", in: "a foo=\n", hosts: []Host{host(1, "a", 1, "foo", "")}},

	{name: "CRLF", in: "a cpu=2\r\nb user=u\r\n\r\n# c\r\n",
		hosts: []Host{host(1, "a", 2, "cpu", "2"), host(2, "b", 1, "user", "u")}},
	{name: "CRLF without final newline", in: "a\r\nb cpu=3\r",
		hosts: []Host{host(1, "a", 1), host(2, "b", 3, "cpu", "3")}},
	{name: "byte-order mark", in: "\xef\xbb\xbfa\n", hosts: []Host{host(1, "a", 1)}},

	{name: "comment mid-line", in: "a cpu=2 # four cpus in fact\n", hosts: []Host{host(1, "a", 2, "cpu", "2")}},
	{name: "comment glued to host", in: "a#comment\n", hosts: []Host{host(1, "a", 1)}},
	{name: "comment glued to value", in: "a cpu=2#x\n", hosts: []Host{host(1, "a", 2, "cpu", "2")}},
	{name: "quote after comment ignored", in: "a # it's \"unbalanced\n", hosts: []Host{host(1, "a", 1)}},
	{name: "# inside quotes kept (LAM bug fixed)", in: `"a" user="bob#1" foo="x # y" # real comment` + "\n",
		hosts: []Host{host(1, "a", 1, "user", "bob#1", "foo", "x # y")}},
	{name: "# inside a quoted host kept, then refused", in: `"a#b" user="bob#1" # real comment` + "\n",
		warns: []string{`hosts:1: invalid host name "a#b": "#" is not allowed; ` + hostWant}},

	{name: "unknown keys preserved", in: "a lam_install_path=/opt/globus Foo=Bar\n",
		hosts: []Host{host(1, "a", 1, "lam_install_path", "/opt/globus", "foo", "Bar")}},
	{name: "keys case-insensitive", in: "a CPU=2 User=Bob SCHEDULE=No PREFIX=/x\n",
		hosts: []Host{host(1, "a", 2, "cpu", "2", "user", "Bob", "schedule", "No", "prefix", "/x")}},

	// Warnings. Every bad line is skipped; the lines around it count.
	{name: "imbalanced quotes", in: "a user=\"bob\nb\n\"c\n",
		hosts: []Host{host(2, "b", 1)},
		warns: []string{`hosts:1: imbalanced quotes: a closing '"' is missing`, `hosts:3: imbalanced quotes: a closing '"' is missing`}},
	{name: "# inside an open quote does not close it", in: "a user=\"x # y\n",
		warns: []string{`hosts:1: imbalanced quotes: a closing '"' is missing`}},
	{name: "host must come first", in: "cpu=2 a\nb\n", hosts: []Host{host(2, "b", 1)},
		warns: []string{`hosts:1: the host name must come first on the line, not key=value "cpu=2"`}},
	{name: "empty host name", in: `"" cpu=2` + "\n", warns: []string{`hosts:1: empty host name`}},
	{name: "spaces around =", in: "a cpu = 2\n",
		warns: []string{`hosts:1: unexpected "cpu" after host "a": want key=value with no spaces around "="`}},
	{name: "garbage after host", in: "a b\n",
		warns: []string{`hosts:1: unexpected "b" after host "a": want key=value with no spaces around "="`}},
	{name: "empty key", in: "a =3\n", warns: []string{`hosts:1: invalid key in "=3" for host "a"`}},
	{name: "key with space", in: `a "my key"=v` + "\n", warns: []string{`hosts:1: invalid key in "my key=v" for host "a"`}},
	{name: "invalid cpu x", in: "a\nb\nalpha cpu=x\n", hosts: []Host{host(1, "a", 1), host(2, "b", 1)},
		warns: []string{`hosts:3: invalid cpu count "x" for host "alpha": want a positive integer`}},
	{name: "invalid cpu 0", in: "a cpu=0\n", warns: []string{`hosts:1: invalid cpu count "0" for host "a": want a positive integer`}},
	{name: "invalid cpu negative", in: "a cpu=-1\n", warns: []string{`hosts:1: invalid cpu count "-1" for host "a": want a positive integer`}},
	{name: "invalid cpu plus", in: "a cpu=+2\n", warns: []string{`hosts:1: invalid cpu count "+2" for host "a": want a positive integer`}},
	{name: "invalid cpu fraction", in: "a cpu=2.5\n", warns: []string{`hosts:1: invalid cpu count "2.5" for host "a": want a positive integer`}},
	{name: "invalid cpu empty", in: "a cpu=\n", warns: []string{`hosts:1: invalid cpu count "" for host "a": want a positive integer`}},
	{name: "cpu too large", in: "a cpu=2147483648\n", warns: []string{`hosts:1: cpu count "2147483648" for host "a" is larger than 16777216, the most a node may have`}},
	{name: "cpu overflows int64", in: "a cpu=99999999999999999999999\n",
		warns: []string{`hosts:1: cpu count "99999999999999999999999" for host "a" is larger than 16777216, the most a node may have`}},
	{name: "cpu at the limit", in: "a cpu=16777216\n", hosts: []Host{host(1, "a", 16777216, "cpu", "16777216")}},
	{name: "total cpu too large", in: "a cpu=16777216\na\n", hosts: []Host{host(1, "a", 16777216, "cpu", "16777216")},
		warns: []string{`hosts:2: total cpu count for host "a" is larger than 16777216, the most a node may have`}},
	{name: "total cpu at the limit", in: "a cpu=16777215\na\n", hosts: []Host{host(1, "a", 16777216, "cpu", "16777216")}},
	{name: "cpu twice", in: "a cpu=1 CPU=2\n", warns: []string{`hosts:1: key "cpu" given twice for host "a"`}},
	{name: "user empty", in: "a user=\n", warns: []string{`hosts:1: empty user for host "a"`}},
	{name: "user empty quoted", in: `a user=""` + "\n", warns: []string{`hosts:1: empty user for host "a"`}},
	{name: "user twice", in: "a user=x user=y\n", warns: []string{`hosts:1: key "user" given twice for host "a"`}},
	{name: "schedule invalid", in: "a schedule=maybe\n",
		warns: []string{`hosts:1: invalid schedule value "maybe" for host "a": want yes or no`}},
	{name: "schedule empty", in: "a schedule=\n",
		warns: []string{`hosts:1: invalid schedule value "" for host "a": want yes or no`}},
	{name: "schedule twice", in: "a schedule=no schedule=no\n", warns: []string{`hosts:1: key "schedule" given twice for host "a"`}},
	{name: "prefix empty", in: "a prefix=\n", warns: []string{`hosts:1: empty prefix for host "a"`}},
	{name: "unknown key twice", in: "a foo=1 FOO=2\n", warns: []string{`hosts:1: key "foo" given twice for host "a"`}},
	{name: "control character in host", in: "a\x00b\n", warns: []string{`hosts:1: control character in "a\x00b"`}},
	{name: "control character in quoted value", in: "a user=\"x\x01\"\n", warns: []string{`hosts:1: control character in "user=x\x01"`}},
	{name: "skipped duplicate line contributes nothing", in: "a\na cpu=5 user=u bad\n",
		hosts: []Host{host(1, "a", 1)},
		warns: []string{`hosts:2: unexpected "bad" after host "a": want key=value with no spaces around "="`}},
	{name: "skipped first line: host appears at its first good line", in: "a cpu=x\nb\na\n",
		hosts: []Host{host(2, "b", 1), host(3, "a", 1)},
		warns: []string{`hosts:1: invalid cpu count "x" for host "a": want a positive integer`}},
	// Counts and names are checked against what the wire carries and
	// what a resolver accepts (issue 14).
	{name: "cpu beyond the wire's bound", in: "a cpu=16777217\nb\n", hosts: []Host{host(2, "b", 1)},
		warns: []string{`hosts:1: cpu count "16777217" for host "a" is larger than 16777216, the most a node may have`}},
	{name: "raw high bytes as host", in: "a\n\xff\xfe\xc3\x28\nb\n", hosts: []Host{host(1, "a", 1), host(3, "b", 1)},
		warns: []string{`hosts:2: invalid host name "\xff\xfe\xc3(": byte 0xff is not allowed; want a host name (letters, digits and hyphens, in labels separated by dots) or an IP address`}},
	{name: "UTF-8 host", in: "h\u00f4te\n",
		warns: []string{`hosts:1: invalid host name "hôte": byte 0xc3 is not allowed; ` + hostWant}},
	{name: "addresses and names", in: "10.0.0.1\n::1\nfe80::1%eth0\nnode-1.example.org.\nN0DE\n3com\n",
		hosts: []Host{host(1, "10.0.0.1", 1), host(2, "::1", 1), host(3, "fe80::1%eth0", 1), host(4, "node-1.example.org.", 1),
			host(5, "N0DE", 1), host(6, "3com", 1)}},
	{name: "not an IPv4 address", in: "10.0.0.256\n1.2.3\n42\n",
		warns: []string{
			`hosts:1: invalid host name "10.0.0.256": not an IP address, and the last label of a host name may not be all digits`,
			`hosts:2: invalid host name "1.2.3": not an IP address, and the last label of a host name may not be all digits`,
			`hosts:3: invalid host name "42": not an IP address, and the last label of a host name may not be all digits`,
		}},
	{name: "bracketed IPv6", in: "[::1]\n", warns: []string{`hosts:1: invalid host name "[::1]": "[" is not allowed; ` + hostWant}},
	{name: "underscore", in: "my_node\n", warns: []string{`hosts:1: invalid host name "my_node": "_" is not allowed; ` + hostWant}},
	{name: "empty labels", in: "a..b\n.a\na..\n.\n", warns: []string{
		`hosts:1: invalid host name "a..b": empty label (two dots in a row, or a dot at the start)`,
		`hosts:2: invalid host name ".a": empty label (two dots in a row, or a dot at the start)`,
		`hosts:3: invalid host name "a..": empty label (two dots in a row, or a dot at the start)`,
		`hosts:4: invalid host name ".": empty label (two dots in a row, or a dot at the start)`,
	}},
	{name: "label of 63 bytes", in: strings.Repeat("l", 63) + ".x\n", hosts: []Host{host(1, strings.Repeat("l", 63)+".x", 1)}},
	{name: "label of 64 bytes", in: strings.Repeat("l", 64) + ".x\n",
		warns: []string{`hosts:1: invalid host name "` + strings.Repeat("l", 64) + `"...: label "` + strings.Repeat("l", 64) + `" is longer than 63 bytes`}},
	{name: "name of 253 bytes", in: name253 + "\n" + name253 + ".\n",
		hosts: []Host{host(1, name253, 1), host(2, name253+".", 1)}},
	{name: "name of 254 bytes", in: "x" + name253 + "\n",
		warns: []string{`hosts:1: invalid host name "x` + name253[:63] + `"...: longer than 253 bytes`}},
	{name: "hyphen at a label's end", in: "a-.b\n", warns: []string{`hosts:1: invalid host name "a-.b": a label may not begin or end with "-"`}},
	{name: "IPv6 zone of high bytes", in: "fe80::1%\xff\n",
		warns: []string{`hosts:1: invalid host name "fe80::1%\xff": the zone of an IPv6 address must be printable ASCII`}},
	{name: "user beginning with -", in: "a user=-oProxyCommand=x\n",
		warns: []string{`hosts:1: user "-oProxyCommand=x" for host "a" may not begin with "-"`}},
	{name: "user of 255 bytes", in: "a user=" + strings.Repeat("u", 255) + "\n", hosts: []Host{host(1, "a", 1, "user", strings.Repeat("u", 255))}},
	{name: "user of 256 bytes", in: "a user=" + strings.Repeat("u", 256) + "\n",
		warns: []string{`hosts:1: user for host "a" is longer than 255 bytes`}},
	{name: "prefix of 4095 bytes", in: "a prefix=/" + strings.Repeat("p", 4094) + "\n", hosts: []Host{host(1, "a", 1, "prefix", "/"+strings.Repeat("p", 4094))}},
	{name: "prefix of 4096 bytes", in: "a prefix=/" + strings.Repeat("p", 4095) + "\n",
		warns: []string{`hosts:1: prefix for host "a" is longer than 4095 bytes`}},
	{name: "host that looks like an option", in: "-oProxyCommand\n",
		warns: []string{`hosts:1: invalid host name "-oProxyCommand": a label may not begin or end with "-"`}},
	{name: "vsock guest", in: "vsock:5 cpu=2\nvsock:6:2222\n", hosts: []Host{host(1, "vsock:5", 2, "cpu", "2"), host(2, "vsock:6:2222", 1)}},
	{name: "vsock reserved cid", in: "vsock:1\n",
		warns: []string{`hosts:1: invalid host name "vsock:1": context id 1 names no peer (0, 1 and 4294967295 are reserved)`}},
	{name: "vsock bad port", in: "vsock:5:0\n",
		warns: []string{`hosts:1: invalid host name "vsock:5:0": the port must be a number from 1 to 4294967294`}},
	{name: "user@host", in: "alice@node1\n",
		warns: []string{`hosts:1: invalid host name "alice@node1": give the user as user=alice`}},
	{name: "long token shortened in warning", in: "a " + strings.Repeat("x", 100) + "\n",
		warns: []string{`hosts:1: unexpected "` + strings.Repeat("x", 64) + `"... after host "a": want key=value with no spaces around "="`}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "hosts")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if s.File != "hosts" {
				t.Errorf("File = %q", s.File)
			}
			if len(s.Hosts) != 0 || len(tt.hosts) != 0 {
				if !reflect.DeepEqual(s.Hosts, tt.hosts) {
					t.Errorf("Hosts:\n got %+v\nwant %+v", s.Hosts, tt.hosts)
				}
			}
			var got []string
			for _, w := range s.Warnings {
				got = append(got, w.String())
			}
			if !reflect.DeepEqual(got, tt.warns) {
				t.Errorf("Warnings:\n got %q\nwant %q", got, tt.warns)
			}
		})
	}
}

// TestLAMObserved spells out the case of facts §3.3 field by field.
func TestLAMObserved(t *testing.T) {
	s, err := Parse(strings.NewReader("localhost cpu=2\nlocalhost schedule=no\n"), "bhost")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Hosts) != 1 || len(s.Warnings) != 0 {
		t.Fatalf("got %+v", s)
	}
	h := s.Hosts[0]
	if h.Name != "localhost" || h.CPU != 3 || h.Schedule || h.Line != 1 {
		t.Errorf("got %+v; want localhost, CPU 3, Schedule false, Line 1", h)
	}
}

func TestWarningString(t *testing.T) {
	w := Warning{File: "/etc/lam/lam-bhost.def", Line: 12, Reason: "empty host name"}
	if got, want := w.String(), "/etc/lam/lam-bhost.def:12: empty host name"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestLongLines(t *testing.T) {
	exact := "a foo=" + strings.Repeat("u", maxLine-len("a foo="))
	over := exact + "u"
	tests := []struct {
		name  string
		in    string
		hosts int
		warns []string
	}{
		{"exactly the limit", exact + "\nb\n", 2, nil},
		{"exactly the limit with CRLF", exact + "\r\nb\r\n", 2, nil},
		{"exactly the limit at EOF", exact, 1, nil},
		{"one byte over", over + "\nb\n", 1, []string{"x:1: line longer than 65536 bytes"}},
		{"one byte over with CRLF", over + "\r\nb\n", 1, []string{"x:1: line longer than 65536 bytes"}},
		{"far over", "a\n" + strings.Repeat("#", 5*maxLine) + "\nb\n", 2, []string{"x:2: line longer than 65536 bytes"}},
		{"far over at EOF", "a\n" + strings.Repeat("y", 3*maxLine+7), 1, []string{"x:2: line longer than 65536 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range s.Warnings {
				got = append(got, w.String())
			}
			if len(s.Hosts) != tt.hosts || !reflect.DeepEqual(got, tt.warns) {
				t.Errorf("got %d hosts, warnings %q; want %d, %q", len(s.Hosts), got, tt.hosts, tt.warns)
			}
		})
	}
}

// endless yields n bytes of 'a' and no newline, without holding them.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	e.n -= k
	return k, nil
}

func TestEndlessLine(t *testing.T) {
	s, err := Parse(&endless{n: 64 << 20}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Hosts) != 0 || len(s.Warnings) != 1 || s.Warnings[0].Line != 1 {
		t.Errorf("got %+v", s)
	}
}

func TestTooManyHosts(t *testing.T) {
	var b bytes.Buffer
	for i := range MaxHosts {
		fmt.Fprintf(&b, "h%d\n", i)
	}
	fmt.Fprintf(&b, "H0 cpu=2\n") // a duplicate is not a new host
	s, err := Parse(bytes.NewReader(b.Bytes()), "x")
	if err != nil {
		t.Fatalf("%d hosts: %v", MaxHosts, err)
	}
	if len(s.Hosts) != MaxHosts || s.Hosts[0].CPU != 3 {
		t.Fatalf("got %d hosts, first %+v", len(s.Hosts), s.Hosts[0])
	}
	b.WriteString("one-too-many\n")
	s, err = Parse(bytes.NewReader(b.Bytes()), "x")
	if err == nil || s != nil || !strings.Contains(err.Error(), "more than 65536 hosts") {
		t.Errorf("got %v, %v; want a too-many-hosts error", s, err)
	}
}

func TestTooMuchHostData(t *testing.T) {
	val := strings.Repeat("v", maxLine-100)
	var b bytes.Buffer
	for i := 0; b.Len() < maxRetained+maxLine; i++ {
		fmt.Fprintf(&b, "h a%d=%s\n", i, val) // one host, ever more keys
	}
	_, err := Parse(bytes.NewReader(b.Bytes()), "x")
	if err == nil || !strings.Contains(err.Error(), "MiB of host data") {
		t.Errorf("got %v; want a too-much-data error", err)
	}
	b.Reset()
	for i := 0; b.Len() < maxRetained+maxLine; i++ {
		fmt.Fprintf(&b, "h%d a=%s\n", i, val) // many hosts
	}
	_, err = Parse(bytes.NewReader(b.Bytes()), "x")
	if err == nil || !strings.Contains(err.Error(), "MiB of host data") {
		t.Errorf("got %v; want a too-much-data error", err)
	}
}

func TestWarningCap(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("good\n")
	for range maxWarnings + 500 {
		b.WriteString("cpu=1\n")
	}
	s, err := Parse(&b, "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Hosts) != 1 || len(s.Warnings) != maxWarnings+1 {
		t.Fatalf("got %d hosts, %d warnings", len(s.Hosts), len(s.Warnings))
	}
	last := s.Warnings[maxWarnings]
	if want := "x:1002: 500 more bad lines not reported"; last.String() != want {
		t.Errorf("last warning %q; want %q", last, want)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom))
	s, err := Parse(r, "x")
	if !errors.Is(err, boom) || s != nil || !strings.Contains(err.Error(), "x") {
		t.Errorf("got %v, %v; want an error wrapping boom and naming x", s, err)
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lam-bhost.def")
	if err := os.WriteFile(p, []byte("localhost cpu=2\nbad cpu=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.File != p || len(s.Hosts) != 1 || s.Hosts[0].CPU != 2 {
		t.Errorf("got %+v", s)
	}
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0].String(), p+":2: ") {
		t.Errorf("warnings %v; want one for %s:2", s.Warnings, p)
	}
	_, err = ParseFile(filepath.Join(dir, "missing"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: got %v", err)
	}
}
