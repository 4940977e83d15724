package ssi

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// Info is a module's static description.
type Info struct {
	Framework Framework
	Name      string
	// API is the framework interface version the module implements; it
	// must be compatible with APIVersion[Framework].
	API Version
	// Version is the module's own version.
	Version Version
	// Priority is the module's default priority (0–100). Register adds
	// the parameter <type>_<module>_priority with this default, as LAM's
	// modules do.
	Priority int
	// Params are the module's other parameters, by short name.
	Params []Param
}

// Module is what every framework's modules implement. Framework packages
// extend it with their own typed behaviour (init, finalize, …).
type Module interface {
	// SSI returns the module's static description. It must always return
	// the same value.
	SSI() Info
	// Query reports whether the module can run here and with what
	// priority. A negative priority or an error means it cannot; the error
	// says why.
	Query(ctx context.Context, s *Settings) (priority int, err error)
}

// Opener is implemented by modules that need to prepare before Query.
// An error makes the module unavailable.
type Opener interface {
	Open(ctx context.Context, s *Settings) error
}

// Closer is implemented by modules that hold something after Open or Query.
// Select closes every module it opened and did not choose.
type Closer interface {
	Close() error
}

type registry struct {
	mu      sync.RWMutex
	modules map[Framework][]Module
	params  []*Param
	byName  map[string]*Param
}

var reg = newRegistry()

func newRegistry() *registry {
	r := &registry{modules: map[Framework][]Module{}, byName: map[string]*Param{}}
	r.addCoreParams()
	return r
}

func (r *registry) addCoreParams() {
	r.addParams(Base, "", Param{Name: "verbose", Help: "Verbosity of the SSI core: a comma list of level:N, stderr, stdout, file[:name], syslog"})
	for _, f := range paramOrder[1:] {
		r.addParams(f, "",
			Param{Full: string(f) + "_verbose", Help: fmt.Sprintf("Verbosity of the %s framework (same syntax as verbose)", f)},
			Param{Full: string(f), Help: fmt.Sprintf("Comma list of %s modules to choose from; empty means all", f)},
		)
	}
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Register adds a module to the registry. It is meant to be called from
// the module package's init, and panics on a programming error: an unknown
// framework, a bad or reserved name, a duplicate, an incompatible API
// version, or a parameter whose default does not parse.
func Register(m Module) {
	reg.register(m)
}

func (r *registry) register(m Module) {
	if m == nil {
		panic("ssi: Register called with a nil module")
	}
	info := m.SSI()
	if !info.Framework.Known() {
		panic(fmt.Sprintf("ssi: module %q registers in unknown framework %q", info.Name, info.Framework))
	}
	if !nameRE.MatchString(info.Name) || info.Name == "all" || info.Name == "base" {
		panic(fmt.Sprintf("ssi: bad %s module name %q", info.Framework, info.Name))
	}
	if want := APIVersion[info.Framework]; !info.API.Compatible(want) {
		panic(fmt.Sprintf("ssi: %s module %s implements API v%s, the framework has v%s", info.Framework, info.Name, info.API, want))
	}
	if info.Priority < 0 || info.Priority > 100 {
		panic(fmt.Sprintf("ssi: %s module %s has default priority %d, outside 0..100", info.Framework, info.Name, info.Priority))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.modules[info.Framework] {
		if o.SSI().Name == info.Name {
			panic(fmt.Sprintf("ssi: %s module %s registered twice", info.Framework, info.Name))
		}
	}
	params := append([]Param{{Name: "priority", Default: strconv.Itoa(info.Priority), Type: Int,
		Help: fmt.Sprintf("Priority of the %s %s module (0-100; negative disables it)", info.Name, info.Framework)}},
		info.Params...)
	r.addParamsLocked(info.Framework, info.Name, params...)
	r.modules[info.Framework] = append(r.modules[info.Framework], m)
	slices.SortFunc(r.modules[info.Framework], func(a, b Module) int { return cmp.Compare(a.SSI().Name, b.SSI().Name) })
}

// RegisterParams registers parameters of a framework itself (module
// "base", as in coll_base_crossover) or, with module "", of the framework
// with no module part. It panics on a programming error, like Register.
func RegisterParams(f Framework, module string, ps ...Param) {
	reg.addParams(f, module, ps...)
}

func (r *registry) addParams(f Framework, module string, ps ...Param) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addParamsLocked(f, module, ps...)
}

func (r *registry) addParamsLocked(f Framework, module string, ps ...Param) {
	if f != Base && !f.Known() {
		panic(fmt.Sprintf("ssi: parameters registered in unknown framework %q", f))
	}
	for _, p := range ps {
		p.Framework, p.Module = f, module
		if p.Full == "" {
			if !nameRE.MatchString(p.Name) {
				panic(fmt.Sprintf("ssi: bad parameter name %q in %s %s", p.Name, f, module))
			}
			p.Full = FullName(f, module, p.Name)
		}
		if !nameRE.MatchString(p.Full) {
			panic(fmt.Sprintf("ssi: bad parameter name %q", p.Full))
		}
		if _, dup := r.byName[p.Full]; dup {
			panic(fmt.Sprintf("ssi: parameter %s registered twice", p.Full))
		}
		if p.Default != "" {
			if err := p.check(p.Default); err != nil {
				panic(fmt.Sprintf("ssi: parameter %s: default: %v", p.Full, err))
			}
		}
		pp := p
		r.params = append(r.params, &pp)
		r.byName[p.Full] = &pp
	}
}

// Modules returns the registered modules of a framework, sorted by name.
func Modules(f Framework) []Module {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return slices.Clone(reg.modules[f])
}

// Lookup returns the registered module of framework f with this name.
func Lookup(f Framework, name string) (Module, bool) {
	for _, m := range Modules(f) {
		if m.SSI().Name == name {
			return m, true
		}
	}
	return nil, false
}

// Params returns every registered parameter in laminfo's order: the core
// first, then boot, rpi, coll and cr; inside a framework its own
// parameters first, then its modules' in module name order, each in the
// order the module declared them.
func Params() []Param {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	var out []Param
	for _, f := range paramOrder {
		var fw, mods []Param
		for _, p := range reg.params {
			if p.Framework != f {
				continue
			}
			if p.Module == "" || p.Module == string(Base) {
				fw = append(fw, *p)
			} else {
				mods = append(mods, *p)
			}
		}
		slices.SortStableFunc(mods, func(a, b Param) int { return cmp.Compare(a.Module, b.Module) })
		out = append(append(out, fw...), mods...)
	}
	return out
}

// LookupParam returns the registered parameter with this full name.
func LookupParam(full string) (Param, bool) {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	p, ok := reg.byName[full]
	if !ok {
		return Param{}, false
	}
	return *p, true
}
