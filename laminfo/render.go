package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lamgo/lam/shared/install"
	"github.com/lamgo/lam/shared/ssi"
)

// Inventory is everything laminfo can report. current() builds it from this
// build; the golden tests build one from LAM 7.1.4's own output.
type Inventory struct {
	Version  ssi.Version
	Paths    install.Paths
	Arch     string
	Hostname string
	// Config holds the configuration values by parsable key (see
	// configRows); rows whose key is missing are not printed.
	Config  map[string]string
	Modules []ModuleInfo
	Params  []ParamInfo
}

// ModuleInfo is one module line.
type ModuleInfo struct {
	Type, Name        string
	SSI, API, Version ssi.Version
}

// ParamInfo is one parameter line.
type ParamInfo struct {
	Type    string // the label's type: a framework, "base", or LAM's "mpi"
	Module  string // "base" for a framework's own parameters
	Name    string // full name
	Default string // "" shows as <none>
	Info    bool   // an information-only value
}

// Request is what the command line asked for.
type Request struct {
	All, Arch, Config bool
	Params            [][2]string // (type, module)
	Paths             []string
	Versions          [][2]string // (item, scope)
	Parsable          bool
	Hostname          bool
}

// A configRow is one configuration line, in LAM's order. Detail rows
// (sizes and alignments) are printed only by -config and -all.
type configRow struct {
	label, key string
	detail     bool
}

var configRows = []configRow{
	{"Configured by", "config:user", false},
	{"Configured on", "config:timestamp", false},
	{"Configure host", "config:host", false},
	{"Memory manager", "memory_manager:", false},
	{"C bindings", "bindings:c", false},
	{"C++ bindings", "bindings:cxx", false},
	{"Fortran bindings", "bindings:fortran", false},
	{"Go bindings", "bindings:go", false},
	{"C compiler", "compiler:c:command", false},
	{"C char size", "compiler:c:sizeof:char", true},
	{"C bool size", "compiler:c:sizeof:bool", true},
	{"C short size", "compiler:c:sizeof:short", true},
	{"C int size", "compiler:c:sizeof:int", true},
	{"C long size", "compiler:c:sizeof:long", true},
	{"C float size", "compiler:c:sizeof:float", true},
	{"C double size", "compiler:c:sizeof:double", true},
	{"C pointer size", "compiler:c:sizeof:pointer", true},
	{"C char align", "compiler:c:align:char", true},
	{"C bool align", "compiler:c:align:bool", true},
	{"C int align", "compiler:c:align:int", true},
	{"C float align", "compiler:c:align:float", true},
	{"C double align", "compiler:c:align:double", true},
	{"C++ compiler", "compiler:cxx:command", false},
	{"Fortran compiler", "compiler:fortran:command", false},
	{"Fortran symbols", "compiler:fortran:symbols", false},
	{"Fort integer size", "compiler:fortran:sizeof:integer", true},
	{"Fort real size", "compiler:fortran:sizeof:real", true},
	{"Fort dbl prec size", "compiler:fortran:sizeof:double_precision", true},
	{"Fort cplx size", "compiler:fortran:sizeof:complex", true},
	{"Fort dbl cplx size", "compiler:fortran:sizeof:double_complex", true},
	{"Fort integer align", "compiler:fortran:align:integer", true},
	{"Fort real align", "compiler:fortran:align:real", true},
	{"Fort dbl prec align", "compiler:fortran:align:double_precision", true},
	{"Fort cplx align", "compiler:fortran:align:complex", true},
	{"Fort dbl cplx align", "compiler:fortran:align:double_complex", true},
	{"Go compiler", "compiler:go:command", false},
	{"C profiling", "option:profiling:c", false},
	{"C++ profiling", "option:profiling:cxx", false},
	{"Fortran profiling", "option:profiling:fortran", false},
	{"C++ exceptions", "option:cxx_exceptions", false},
	{"Thread support", "option:threads", false},
	{"ROMIO support", "option:romio", false},
	{"IMPI support", "option:impi", false},
	{"Debug support", "option:debug", false},
	{"Purify clean", "option:purify", false},
}

// paramTypes are the types -param accepts.
var paramTypes = []string{"all", "base", "boot", "coll", "cr", "rpi"}

// errBadValue reports a -param, -path or -version value laminfo does not
// know; LAM prints its usage and exits 1.
type errBadValue struct{ what string }

func (e errBadValue) Error() string { return e.what }

// Printer writes laminfo lines in the pretty or the parsable format.
type printer struct {
	w        *bufio.Writer
	parsable bool
}

const (
	centre      = 20 // the colon of a pretty line sits after this column
	screenWidth = 78
)

// out prints one item: pretty as a right-aligned label, a colon and the
// value (word-wrapped to the screen with continuation lines under the
// value, as LAM does), parsable as key:value.
func (p *printer) out(label, key, value string) {
	if p.parsable {
		fmt.Fprintf(p.w, "%s:%s\n", key, value)
		return
	}
	pad := max(centre-len(label), 0)
	lead := strings.Repeat(" ", pad) + label + ": "
	width := screenWidth - pad - len(label) - 2
	if width <= 0 {
		// A label too long for the screen: no wrapping at all.
		fmt.Fprintf(p.w, "%s%s\n", lead, value)
		return
	}
	for {
		if len(value) < width {
			fmt.Fprintf(p.w, "%s%s\n", lead, value)
			return
		}
		// Break at the last space that keeps the line within the screen,
		// else at the first space after it, else not at all.
		cut := strings.LastIndexByte(value[:min(width+1, len(value))], ' ')
		if cut < 0 {
			cut = strings.IndexByte(value[width:], ' ')
			if cut < 0 {
				fmt.Fprintf(p.w, "%s%s\n", lead, value)
				return
			}
			cut += width
		}
		fmt.Fprintf(p.w, "%s%s\n", lead, value[:cut])
		value = value[cut+1:]
		lead = strings.Repeat(" ", centre+2)
	}
}

// Render writes the report req asks for. Sections come in LAM's order
// whatever the order of the options: versions, paths, architecture,
// configuration, parameters. Without any request it prints the default
// summary.
func Render(w io.Writer, inv *Inventory, req Request) error {
	p := &printer{w: bufio.NewWriter(w), parsable: req.Parsable}
	if err := render(p, inv, req); err != nil {
		return err
	}
	return p.w.Flush()
}

func render(p *printer, inv *Inventory, req Request) error {
	// Check every value first, so a bad one prints nothing but usage.
	for _, v := range req.Versions {
		if _, err := inv.Version.Scope(v[1]); err != nil {
			return errBadValue{fmt.Sprintf("unknown version scope %q", v[1])}
		}
		typ, _, _ := strings.Cut(v[0], ":")
		if v[0] != "lam" && !slices.Contains([]string{"boot", "coll", "rpi", "cr"}, typ) {
			return errBadValue{fmt.Sprintf("unknown version item %q", v[0])}
		}
	}
	for _, item := range req.Paths {
		if _, ok := inv.Paths.Item(item); !ok {
			return errBadValue{fmt.Sprintf("unknown path item %q", item)}
		}
	}
	for _, pr := range req.Params {
		if !slices.Contains(paramTypes, pr[0]) {
			return errBadValue{fmt.Sprintf("unknown SSI type %q", pr[0])}
		}
	}

	switch {
	case req.All:
		p.lamVersion(inv, "full")
		p.modules(inv, "", true)
		for _, item := range install.Items {
			p.path(inv, item)
		}
		p.arch(inv, req.Hostname)
		p.config(inv, true)
		p.params(inv, "all", "all")
	case len(req.Versions)+len(req.Paths)+len(req.Params) == 0 && !req.Arch && !req.Config:
		p.lamVersion(inv, "full")
		p.path(inv, "prefix")
		p.arch(inv, req.Hostname)
		p.config(inv, false)
		p.modules(inv, "", false)
	default:
		for _, v := range req.Versions {
			if v[0] == "lam" {
				p.lamVersion(inv, v[1])
			} else {
				p.modulesScope(inv, v[0], v[1])
			}
		}
		for _, item := range req.Paths {
			p.path(inv, item)
		}
		if req.Arch {
			p.arch(inv, req.Hostname)
		}
		if req.Config {
			p.config(inv, true)
		}
		for _, pr := range req.Params {
			p.params(inv, pr[0], pr[1])
		}
	}
	return nil
}

func (p *printer) lamVersion(inv *Inventory, scope string) {
	v, _ := inv.Version.Scope(scope)
	p.out("LAM/MPI", "version:lam", v)
}

func (p *printer) path(inv *Inventory, item string) {
	v, _ := inv.Paths.Item(item)
	p.out(strings.ToUpper(item[:1])+item[1:], "path:"+item, v)
}

func (p *printer) arch(inv *Inventory, withHost bool) {
	key := "arch"
	if withHost && inv.Hostname != "" {
		key = inv.Hostname + ":arch"
	}
	p.out("Architecture", key, inv.Arch)
}

func (p *printer) config(inv *Inventory, detail bool) {
	for _, r := range configRows {
		if r.detail && !detail {
			continue
		}
		if v, ok := inv.Config[r.key]; ok {
			p.out(r.label, r.key, v)
		}
	}
}

// modules prints every module of one type ("" = all), in the default form
// (API and module versions) or the full form (with the SSI version).
func (p *printer) modules(inv *Inventory, typ string, full bool) {
	for _, m := range inv.Modules {
		if typ != "" && m.Type != typ {
			continue
		}
		p.module(m, "full", full)
	}
}

// modulesScope prints -version <type>[:<module>] <scope>.
func (p *printer) modulesScope(inv *Inventory, item, scope string) {
	typ, name, _ := strings.Cut(item, ":")
	for _, m := range inv.Modules {
		if m.Type == typ && (name == "" || m.Name == name) {
			p.module(m, scope, true)
		}
	}
}

func (p *printer) module(m ModuleInfo, scope string, withSSI bool) {
	s, _ := m.SSI.Scope(scope)
	a, _ := m.API.Scope(scope)
	v, _ := m.Version.Scope(scope)
	label := "SSI " + m.Type
	key := "ssi:" + m.Type + ":" + m.Name + ":version:"
	if p.parsable {
		if withSSI {
			p.out(label, key+"ssi", s)
		}
		p.out(label, key+"api", a)
		p.out(label, key+"module", v)
		return
	}
	if withSSI {
		p.out(label, "", fmt.Sprintf("%s (SSI v%s, API v%s, Module v%s)", m.Name, s, a, v))
		return
	}
	p.out(label, "", fmt.Sprintf("%s (API v%s, Module v%s)", m.Name, a, v))
}

// params prints -param <type> <module>: type "all" matches every type,
// module "all" every module.
func (p *printer) params(inv *Inventory, typ, module string) {
	for _, pa := range inv.Params {
		if typ != "all" && pa.Type != typ {
			continue
		}
		if module != "all" && pa.Module != module {
			continue
		}
		kind := "param"
		if pa.Info {
			kind = "info"
		}
		key := fmt.Sprintf("ssi:%s:%s:%s:%s", pa.Type, pa.Module, kind, pa.Name)
		if p.parsable {
			p.out("", key, pa.Default)
			continue
		}
		val := "<none>"
		if pa.Default != "" {
			val = `"` + pa.Default + `"`
		}
		if pa.Info {
			p.out("SSI "+pa.Type, key, fmt.Sprintf("information %q (value: %s)", pa.Name, val))
		} else {
			p.out("SSI "+pa.Type, key, fmt.Sprintf("parameter %q (default value: %s)", pa.Name, val))
		}
	}
}
