package ssi

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fresh gives the test an empty registry and restores the real one after.
func fresh(t *testing.T) {
	t.Helper()
	old := reg
	reg = newRegistry()
	t.Cleanup(func() { reg = old })
}

// fake is a test-only module.
type fake struct {
	info     Info
	pri      int
	err      error
	openErr  error
	opened   bool
	closed   bool
	queried  bool
	withOpen bool
}

func (f *fake) SSI() Info { return f.info }
func (f *fake) Query(ctx context.Context, s *Settings) (int, error) {
	f.queried = true
	return f.pri, f.err
}

type openFake struct{ *fake }

func (o openFake) Open(ctx context.Context, s *Settings) error {
	o.opened = true
	return o.openErr
}
func (o openFake) Close() error { o.closed = true; return nil }

func rpiMod(name string, pri int, ver Version, params ...Param) *fake {
	return &fake{info: Info{Framework: RPI, Name: name, API: APIVersion[RPI], Version: ver, Priority: max(pri, 0), Params: params}, pri: pri}
}

func TestVersionString(t *testing.T) {
	tests := []struct {
		v    Version
		want string
	}{
		{Version{Major: 7, Minor: 1}, "7.1"},
		{Version{Major: 7, Minor: 1, Release: 4}, "7.1.4"},
		{Version{Major: 1, Minor: 0, Beta: 2}, "1.0b2"},
		{Version{Major: 1, Minor: 0, Alpha: 3, SVN: 12}, "1.0a3svn12"},
		{Version{Major: 0, Minor: 1, SVN: 7}, "0.1svn7"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.v, got, tt.want)
		}
		back, err := ParseVersion(tt.want)
		if err != nil || back != tt.v {
			t.Errorf("ParseVersion(%q) = %+v, %v; want %+v", tt.want, back, err, tt.v)
		}
	}
	for _, bad := range []string{"", "7", "7.x", "1.2.3.4", "1.0c1", "1.0a", "-1.0", "1.0svnx", "+1.2"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) succeeded", bad)
		}
	}
}

func TestVersionScope(t *testing.T) {
	v := Version{Major: 7, Minor: 1, Release: 4}
	want := map[string]string{"full": "7.1.4", "major": "7", "minor": "1", "release": "4", "alpha": "0", "beta": "0", "svn": "0"}
	for scope, w := range want {
		if got, err := v.Scope(scope); err != nil || got != w {
			t.Errorf("Scope(%q) = %q, %v; want %q", scope, got, err, w)
		}
	}
	if _, err := v.Scope("bogus"); err == nil {
		t.Error("Scope(bogus) succeeded")
	}
}

func TestVersionCompatibleCompare(t *testing.T) {
	a := Version{Major: 1, Minor: 1}
	if !a.Compatible(Version{Major: 1, Minor: 1, Release: 9}) {
		t.Error("1.1 and 1.1.9 should be compatible")
	}
	if a.Compatible(Version{Major: 1, Minor: 0}) || a.Compatible(Version{Major: 2, Minor: 1}) {
		t.Error("different major.minor should not be compatible")
	}
	order := []Version{{Major: 1, Minor: 0, Alpha: 1}, {Major: 1, Minor: 0, Alpha: 2}, {Major: 1, Minor: 0, Beta: 1}, {Major: 1}, {Major: 1, Release: 1}, {Major: 1, Minor: 1}, {Major: 2}}
	for i := range order {
		for j := range order {
			got := order[i].Compare(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestParseValues(t *testing.T) {
	ints := map[string]int{"0": 0, "65536": 65536, "-1": -1, " 7 ": 7, "0x10": 16}
	for s, want := range ints {
		if got, err := ParseInt(s); err != nil || got != want {
			t.Errorf("ParseInt(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "x", "1.5", "99999999999", "1k"} {
		if _, err := ParseInt(s); err == nil {
			t.Errorf("ParseInt(%q) succeeded", s)
		}
	}
	bools := map[string]bool{"1": true, "0": false, "yes": true, "No": false, "TRUE": true, "off": false}
	for s, want := range bools {
		if got, err := ParseBool(s); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "2", "maybe"} {
		if _, err := ParseBool(s); err == nil {
			t.Errorf("ParseBool(%q) succeeded", s)
		}
	}
	sizes := map[string]int64{"0": 0, "8192": 8192, "64k": 65536, "64K": 65536, "1m": 1 << 20, "1MiB": 1 << 20, "2G": 2 << 30, "16kb": 16384, "-1": -1}
	for s, want := range sizes {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "k", "-5", "1t", "1.5m", "99999999999999g", "0x10"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) succeeded", s)
		}
	}
	durs := map[string]time.Duration{"60": time.Minute, "0.5": 500 * time.Millisecond, "250ms": 250 * time.Millisecond, "1m30s": 90 * time.Second, "0": 0}
	for s, want := range durs {
		if got, err := ParseDuration(s); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1", "soon", "-2s", "1e300", "NaN"} {
		if _, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", s)
		}
	}
}

func TestFullName(t *testing.T) {
	tests := []struct {
		f            Framework
		module, name string
		want         string
	}{
		{RPI, "tcp", "short", "rpi_tcp_short"},
		{Coll, "base", "crossover", "coll_base_crossover"},
		{Boot, "", "verbose", "boot_verbose"},
		{Base, "", "verbose", "verbose"},
	}
	for _, tt := range tests {
		if got := FullName(tt.f, tt.module, tt.name); got != tt.want {
			t.Errorf("FullName(%q,%q,%q) = %q, want %q", tt.f, tt.module, tt.name, got, tt.want)
		}
	}
}

func TestRegisterAndParams(t *testing.T) {
	fresh(t)
	Register(rpiMod("tcp", 20, Version{Major: 7, Minor: 1}, Param{Name: "short", Default: "65536", Type: Size}, Param{Name: "sockbuf", Default: "-1", Type: Int}))
	Register(rpiMod("crtcp", 25, Version{Major: 1, Minor: 1}))
	RegisterParams(Coll, "base", Param{Name: "crossover", Default: "4", Type: Int})
	Register(&fake{info: Info{Framework: Boot, Name: "rsh", API: APIVersion[Boot], Priority: 10}})

	var names []string
	for _, p := range Params() {
		names = append(names, p.Full)
	}
	want := "verbose boot_verbose boot boot_rsh_priority rpi_verbose rpi rpi_crtcp_priority rpi_tcp_priority rpi_tcp_short rpi_tcp_sockbuf coll_verbose coll coll_base_crossover cr_verbose cr"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("Params order:\n got %s\nwant %s", got, want)
	}
	p, ok := LookupParam("rpi_tcp_priority")
	if !ok || p.Default != "20" || p.Module != "tcp" || p.Framework != RPI {
		t.Errorf("rpi_tcp_priority = %+v, %v", p, ok)
	}
	mods := Modules(RPI)
	if len(mods) != 2 || mods[0].SSI().Name != "crtcp" || mods[1].SSI().Name != "tcp" {
		t.Errorf("Modules(rpi) not sorted: %v", mods)
	}
	if _, ok := Lookup(RPI, "tcp"); !ok {
		t.Error("Lookup(rpi, tcp) failed")
	}
	if _, ok := Lookup(RPI, "gm"); ok {
		t.Error("Lookup(rpi, gm) succeeded")
	}
}

func TestRegisterPanics(t *testing.T) {
	tests := []struct {
		name string
		do   func()
	}{
		{"nil", func() { Register(nil) }},
		{"unknown framework", func() { Register(&fake{info: Info{Framework: "nope", Name: "x"}}) }},
		{"bad name", func() { Register(rpiMod("Bad-Name", 1, Version{})) }},
		{"reserved all", func() { Register(rpiMod("all", 1, Version{})) }},
		{"reserved base", func() { Register(rpiMod("base", 1, Version{})) }},
		{"duplicate", func() { Register(rpiMod("dup", 1, Version{})); Register(rpiMod("dup", 1, Version{})) }},
		{"incompatible api", func() {
			m := rpiMod("old", 1, Version{})
			m.info.API = Version{Major: 0, Minor: 9}
			Register(m)
		}},
		{"priority range", func() { m := rpiMod("hot", 1, Version{}); m.info.Priority = 101; Register(m) }},
		{"bad default", func() { Register(rpiMod("bd", 1, Version{}, Param{Name: "n", Default: "x", Type: Int})) }},
		{"bad param name", func() { Register(rpiMod("bp", 1, Version{}, Param{Name: "N-1"})) }},
		{"duplicate param", func() {
			Register(rpiMod("dp", 1, Version{}, Param{Name: "a"}, Param{Name: "a"}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh(t)
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.do()
		})
	}
}

func TestSettingsPrecedence(t *testing.T) {
	fresh(t)
	Register(rpiMod("tcp", 20, Version{}, Param{Name: "short", Default: "65536", Type: Size}, Param{Name: "sockbuf", Default: "-1", Type: Int}, Param{Name: "fast", Default: "0", Type: Bool}))
	env := []string{"LAM_MPI_SSI_rpi_tcp_short=1k", "LAM_MPI_SSI_rpi_tcp_sockbuf=77", "PATH=/bin", "LAM_MPI_SSI_=x", "LAM_MPI_SSI_rpi_tcp_fast=maybe"}
	s := NewSettings([]Arg{{"rpi_tcp_short", "2k"}, {"rpi_tcp_short", "4k"}}, env)

	tests := []struct {
		name string
		want string
		src  Source
	}{
		{"rpi_tcp_short", "2k", FromCommandLine},
		{"rpi_tcp_sockbuf", "77", FromEnvironment},
		{"rpi_tcp_priority", "20", FromDefault},
		{"unregistered", "", FromDefault},
	}
	for _, tt := range tests {
		v, src := s.Value(tt.name)
		if v != tt.want || src != tt.src {
			t.Errorf("Value(%s) = %q from %v; want %q from %v", tt.name, v, src, tt.want, tt.src)
		}
	}
	if n, err := s.Size("rpi_tcp_short"); err != nil || n != 2048 {
		t.Errorf("Size = %d, %v", n, err)
	}
	if n, err := s.Int("rpi_tcp_sockbuf"); err != nil || n != 77 {
		t.Errorf("Int = %d, %v", n, err)
	}
	_, err := s.Bool("rpi_tcp_fast")
	var pe *ParamError
	if !errors.As(err, &pe) || !errors.Is(err, ErrBadValue) {
		t.Fatalf("Bool(bad) error = %v", err)
	}
	for _, part := range []string{"rpi_tcp_fast", `"maybe"`, "LAM_MPI_SSI_rpi_tcp_fast"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not name %s", err, part)
		}
	}
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "rpi_tcp_fast") {
		t.Errorf("Check() = %v", err)
	}
	if got := strings.Join(s.Environ(), " "); got != "LAM_MPI_SSI_rpi_tcp_short=2k" {
		t.Errorf("Environ = %q (repeated key must keep the first)", got)
	}
	s2 := NewSettings([]Arg{{"rpi_tcp_shrt", "1"}, {"rpi", "tcp"}}, []string{"LAM_MPI_SSI_cr_selff=1", "LAM_MPI_SSI_rpi_tcp_short=1"})
	if got := strings.Join(s2.Unknown(), ","); got != "cr_selff,rpi_tcp_shrt" {
		t.Errorf("Unknown = %q", got)
	}
}

func TestSelect(t *testing.T) {
	ctx := context.Background()
	type mod struct {
		name    string
		pri     int
		err     error
		ver     Version
		openErr error
		opener  bool
	}
	tests := []struct {
		name    string
		mods    []mod
		args    []Arg
		env     []string
		want    string
		wantErr error
		errHas  []string
	}{
		{name: "highest wins", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}, {name: "sysv", pri: 30}}, want: "usysv"},
		{name: "tie goes to last name", mods: []mod{{name: "lamd", pri: 20}, {name: "tcp", pri: 20}}, want: "tcp"},
		{name: "tie then version", mods: []mod{{name: "a", pri: 5, ver: Version{Major: 1}}}, want: "a"},
		{name: "negative is unavailable", mods: []mod{{name: "usysv", pri: -1}, {name: "tcp", pri: 20}}, want: "tcp"},
		{name: "error is unavailable", mods: []mod{{name: "usysv", pri: 40, err: errors.New("no shm")}, {name: "tcp", pri: 20}}, want: "tcp"},
		{name: "open failure is unavailable", mods: []mod{{name: "usysv", pri: 40, opener: true, openErr: errors.New("boom")}, {name: "tcp", pri: 20}}, want: "tcp"},
		{name: "priority override from command line", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}}, args: []Arg{{"rpi_tcp_priority", "90"}}, want: "tcp"},
		{name: "priority override from env", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}}, env: []string{"LAM_MPI_SSI_rpi_tcp_priority=41"}, want: "tcp"},
		{name: "override disables", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}}, args: []Arg{{"rpi_usysv_priority", "-1"}}, want: "tcp"},
		{name: "restriction", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}}, args: []Arg{{"rpi", "tcp"}}, want: "tcp"},
		{name: "restriction from env", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 40}}, env: []string{"LAM_MPI_SSI_rpi= tcp ,"}, want: "tcp"},
		{name: "restriction cannot run", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: -1}}, args: []Arg{{"rpi", "usysv"}}, wantErr: ErrNoModule, errHas: []string{"usysv", "requested", "priority -1"}},
		{name: "unknown requested", mods: []mod{{name: "tcp", pri: 20}}, args: []Arg{{"rpi", "tcp,gm"}}, wantErr: ErrUnknownModule, errHas: []string{"gm"}},
		{name: "nothing can run names all", mods: []mod{{name: "tcp", pri: 20, err: errors.New("no network")}, {name: "usysv", pri: -1}}, wantErr: ErrNoModule, errHas: []string{"tcp: no network", "usysv: not available"}},
		{name: "none built in", wantErr: ErrNoModule, errHas: []string{"none is built in"}},
		{name: "bad override value", mods: []mod{{name: "tcp", pri: 20}}, args: []Arg{{"rpi_tcp_priority", "high"}}, wantErr: ErrNoModule, errHas: []string{"rpi_tcp_priority", `"high"`}},
		{name: "clamped to 100", mods: []mod{{name: "tcp", pri: 20}, {name: "usysv", pri: 100}}, args: []Arg{{"rpi_tcp_priority", "500"}}, want: "usysv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh(t)
			var mods []Module
			var fakes []*fake
			for _, m := range tt.mods {
				f := rpiMod(m.name, m.pri, m.ver)
				f.err, f.openErr = m.err, m.openErr
				fakes = append(fakes, f)
				if m.opener {
					mods = append(mods, openFake{f})
				} else {
					mods = append(mods, f)
				}
				Register(mods[len(mods)-1])
			}
			s := NewSettings(tt.args, tt.env)
			got, rep, err := Select(ctx, RPI, s, Modules(RPI))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				var se *SelectError
				if !errors.As(err, &se) {
					t.Fatalf("err %T is not a *SelectError", err)
				}
				for _, h := range tt.errHas {
					if !strings.Contains(err.Error(), h) {
						t.Errorf("error %q lacks %q", err, h)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.SSI().Name != tt.want || rep.Chosen != tt.want {
				t.Errorf("chose %s (report %s), want %s", got.SSI().Name, rep.Chosen, tt.want)
			}
		})
	}
}

func TestSelectClosesLosers(t *testing.T) {
	fresh(t)
	a := &fake{info: Info{Framework: RPI, Name: "a", API: APIVersion[RPI]}, pri: 10}
	b := &fake{info: Info{Framework: RPI, Name: "b", API: APIVersion[RPI]}, pri: 50}
	c := &fake{info: Info{Framework: RPI, Name: "c", API: APIVersion[RPI]}, pri: 1, openErr: errors.New("x")}
	for _, f := range []*fake{a, b, c} {
		Register(openFake{f})
	}
	got, _, err := Select(context.Background(), RPI, NewSettings(nil, nil), Modules(RPI))
	if err != nil || got.SSI().Name != "b" {
		t.Fatalf("Select = %v, %v", got, err)
	}
	if !a.closed || b.closed || c.closed {
		t.Errorf("closed: a=%v b=%v c=%v; want only a (c never opened)", a.closed, b.closed, c.closed)
	}
}

func TestSelectCancelled(t *testing.T) {
	fresh(t)
	Register(rpiMod("tcp", 20, Version{}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Select(ctx, RPI, NewSettings(nil, nil), Modules(RPI)); !errors.Is(err, ErrNoModule) || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("Select with cancelled context = %v", err)
	}
}

func TestParseVerbose(t *testing.T) {
	tests := []struct {
		in   string
		want Verbose
		bad  bool
	}{
		{in: "", want: Verbose{}},
		{in: "level:1000,stderr", want: Verbose{Level: 1000, Stderr: true}},
		{in: "level:0,stderr", want: Verbose{Stderr: true}},
		{in: "5", want: Verbose{Level: 5, Stderr: true}},
		{in: "stdout,file", want: Verbose{Stdout: true, File: "lam-ssi.txt"}},
		{in: "file:boot,fileappend", want: Verbose{File: "lam-boot", FileAppend: true}},
		{in: "syslog,syslogpri:debug,syslogid:lamd", want: Verbose{Syslog: true, SyslogPri: "debug", SyslogID: "lamd"}},
		{in: "level:x", bad: true},
		{in: "file:../x", bad: true},
		{in: "syslogpri:loud", bad: true},
		{in: "bogus", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseVerbose(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseVerbose(%q) succeeded", tt.in)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseVerbose(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"7.1.4", "1.0b2svn3", "64k", "-1", "level:5,stderr", "file:x", "0x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseVersion(s); err == nil {
			if back, err := ParseVersion(v.String()); err != nil || back != v {
				t.Errorf("version %q → %+v does not round-trip", s, v)
			}
		}
		if n, err := ParseSize(s); err == nil && n < -1 {
			t.Errorf("ParseSize(%q) = %d", s, n)
		}
		_, _ = ParseInt(s)
		_, _ = ParseBool(s)
		if v, err := ParseVerbose(s); err == nil && strings.ContainsAny(v.File, "/") {
			t.Errorf("ParseVerbose(%q) file %q escapes the session directory", s, v.File)
		}
	})
}

// Known knows every framework's parameters, linked or not.
func TestKnown(t *testing.T) {
	for name, want := range map[string]bool{"boot_rsh_agent": true, "boot_base_timeout": true, "rpi_tcp_short": true,
		"coll_base_crossover": true, "verbose": true, "rpi_tcp_shrt": false, "": false} {
		if Known(name) != want {
			t.Errorf("Known(%q) = %v", name, !want)
		}
	}
	if !slices.IsSorted(knownParams) {
		t.Error("knownParams is not sorted")
	}
}
