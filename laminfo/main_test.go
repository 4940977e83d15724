package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
	"github.com/lamgo/lam/shared/ssi"
)

// Test-only modules, one per framework, so the tests can see how laminfo
// lists real registrations.
type testModule struct{ info ssi.Info }

func (m testModule) SSI() ssi.Info                                     { return m.info }
func (m testModule) Query(context.Context, *ssi.Settings) (int, error) { return m.info.Priority, nil }

func init() {
	for _, m := range []ssi.Info{
		{Framework: ssi.RPI, Name: "zz_test", Priority: 5, Params: []ssi.Param{{Name: "path", Default: strings.Repeat("/very/long/default", 4) + " with a space"}}},
		{Framework: ssi.RPI, Name: "aa_test", Priority: 6},
		{Framework: ssi.CR, Name: "cr_test", Priority: 1},
		{Framework: ssi.Boot, Name: "boot_test", Priority: 2},
		{Framework: ssi.Coll, Name: "coll_test", Priority: 3},
	} {
		m.API, m.Version = ssi.APIVersion[m.Framework], buildinfo.ModuleVersion
		ssi.Register(testModule{m})
	}
}

var prettyLine = regexp.MustCompile(`^( {0,19}[^ ].{0,19}: .*| {22}.*)$`)

func ours(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runLaminfo(t, current(install.At("/opt/lamgo")), args...)
}

func TestOurDefault(t *testing.T) {
	code, out, errs := ours(t)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if !prettyLine.MatchString(l) || strings.Index(l, ":") != 20 {
			t.Errorf("line not in LAM's pretty shape (colon at column 20): %q", l)
		}
	}
	if lines[0] != "             LAM/MPI: "+buildinfo.Version.String() || lines[1] != "              Prefix: /opt/lamgo" || !strings.HasPrefix(lines[2], "        Architecture: ") {
		t.Errorf("header lines: %q", lines[:3])
	}
	// Module lines: boot, coll, rpi, cr; names sorted inside each; every
	// registered module, test-only ones included.
	var names []string
	re := regexp.MustCompile(`^ +SSI (\w+): (\w+) \(API v([0-9.]+), Module v([0-9.]+)\)$`)
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			names = append(names, m[1]+":"+m[2])
		}
	}
	order := map[string]int{"boot": 0, "coll": 1, "rpi": 2, "cr": 3}
	for i := 1; i < len(names); i++ {
		a, b := strings.SplitN(names[i-1], ":", 2), strings.SplitN(names[i], ":", 2)
		if order[a[0]] > order[b[0]] || (a[0] == b[0] && a[1] >= b[1]) {
			t.Errorf("module lines out of order: %s before %s", names[i-1], names[i])
		}
	}
	var want []string
	for _, f := range ssi.Frameworks {
		for _, m := range ssi.Modules(f) {
			want = append(want, string(f)+":"+m.SSI().Name)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("module lines %v, want every registered module %v", names, want)
	}
	for _, n := range []string{"boot:boot_test", "coll:coll_test", "rpi:aa_test", "rpi:zz_test", "cr:cr_test"} {
		if !strings.Contains(strings.Join(names, " "), n) {
			t.Errorf("test module %s not listed", n)
		}
	}
}

func TestOurParams(t *testing.T) {
	code, out, _ := ours(t, "-param", "all", "all", "-parsable")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var names []string
	re := regexp.MustCompile(`^ssi:(base|boot|rpi|coll|cr):([a-z_]+):param:([a-z_]+):(.*)$`)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("parsable line %q not in LAM's shape", l)
		}
		names = append(names, m[3])
	}
	got := strings.Join(names, " ")
	var all []string
	for _, p := range ssi.Params() {
		all = append(all, p.Full)
	}
	if want := strings.Join(all, " "); got != want {
		t.Errorf("parameter order:\n got %s\nwant %s", got, want)
	}
	// LAM's order: the core first, then boot, rpi, coll, cr; a framework's
	// own parameters before its modules'.
	for _, seq := range [][]string{
		{"verbose", "boot_verbose", "boot", "rpi_verbose", "rpi", "coll_verbose", "coll", "cr_verbose", "cr"},
		{"boot", "boot_boot_test_priority", "rpi_aa_test_priority", "rpi_zz_test_priority", "rpi_zz_test_path", "coll_coll_test_priority", "cr_cr_test_priority"},
	} {
		last := -1
		for _, n := range seq {
			i := slices.Index(names, n)
			if i <= last {
				t.Errorf("parameter %s out of LAM's order in %s", n, got)
			}
			last = i
		}
	}
	_, pretty, _ := ours(t, "-param", "rpi", "zz_test")
	if !strings.Contains(pretty, `             SSI rpi: parameter "rpi_zz_test_path" (default value:`+"\n                      \"/very") {
		t.Errorf("long default not wrapped as LAM does:\n%s", pretty)
	}
}

func TestOurVersionAndPath(t *testing.T) {
	if _, out, _ := ours(t, "-version", "rpi:zz_test", "full", "-parsable"); out != "ssi:rpi:zz_test:version:ssi:1.0\nssi:rpi:zz_test:version:api:1.1\nssi:rpi:zz_test:version:module:0.1\n" {
		t.Errorf("-version rpi:zz_test full -parsable = %q", out)
	}
	if _, out, _ := ours(t, "-path", "sysconfdir"); out != "          Sysconfdir: /opt/lamgo/etc\n" {
		t.Errorf("-path sysconfdir = %q", out)
	}
}

func TestOurErrors(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-param", "bogus", "x"}, 1, `unknown SSI type "bogus"`},
		{[]string{"-version", "lam", "huge"}, 1, "unknown version scope"},
		{[]string{"-path", "nowhere"}, 1, "unknown path item"},
		{[]string{"-h"}, 226, "Synopsis:"},
		{[]string{"-pretty", "-parsable"}, 226, "Synopsis:"},
		// LAM prints its framed usage alone for an option without its values.
		{[]string{"-version", "lam"}, 226, strings.Repeat("-", 77) + "\nSynopsis:"},
		{[]string{"-param", "rpi"}, 226, strings.Repeat("-", 77) + "\nSynopsis:"},
		{[]string{"-ssi", "rpi_tcp_shrot", "1", "-arch"}, 0, `no module uses SSI parameter "rpi_tcp_shrot"`},
	}
	for _, tt := range tests {
		code, out, errs := ours(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.stderr) || (strings.HasPrefix(tt.stderr, "---") && !strings.HasPrefix(errs, tt.stderr)) {
			t.Errorf("laminfo %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errs, tt.code, tt.stderr)
		}
		if tt.code != 0 && out != "" {
			t.Errorf("laminfo %s printed %q on stdout", strings.Join(tt.args, " "), out)
		}
	}
}
