package ssi

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoModule is wrapped by a selection that found no module able to run.
var ErrNoModule = errors.New("no module available")

// ErrUnknownModule is wrapped when the user names a module that is not
// built in.
var ErrUnknownModule = errors.New("no such module")

// Candidate is what selection learnt about one module.
type Candidate struct {
	Name     string
	Priority int   // the effective priority; meaningful when Err is nil
	Err      error // why the module cannot run; nil if it can
}

// SelectError says that no module could be chosen and why each one failed.
type SelectError struct {
	Framework Framework
	Requested []string // the user's restriction, if any
	Tried     []Candidate
	Err       error // ErrNoModule or ErrUnknownModule
}

func (e *SelectError) Error() string {
	var b strings.Builder
	if e.Err == ErrUnknownModule {
		fmt.Fprintf(&b, "%s: unknown %s module(s) requested: %s", e.Err, e.Framework, strings.Join(e.Requested, ","))
		return b.String()
	}
	fmt.Fprintf(&b, "no %s module can run", e.Framework)
	if len(e.Requested) > 0 {
		fmt.Fprintf(&b, " of those requested (%s)", strings.Join(e.Requested, ","))
	}
	if len(e.Tried) == 0 {
		b.WriteString(": none is built in")
	}
	for i, c := range e.Tried {
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s: %v", sep, c.Name, c.Err)
	}
	return b.String()
}

func (e *SelectError) Unwrap() error { return e.Err }

// Report is the outcome of a selection, for verbose output.
type Report struct {
	Framework Framework
	Chosen    string
	Tried     []Candidate
}

// Requested returns the modules the user restricted framework f to
// ("-ssi rpi tcp,usysv"), or nil for no restriction.
func Requested(s *Settings, f Framework) []string {
	var out []string
	for _, n := range strings.Split(s.String(string(f)), ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Select chooses one module of framework f among mods (normally
// Modules(f), converted to the framework's own type). Every candidate is
// opened (if it is an Opener) and queried; the user's priority override
// <f>_<name>_priority replaces the queried priority of a module that can
// run; the highest priority wins, ties going to the name that sorts last,
// then to the higher version. Every opened module that is not chosen is
// closed. When nothing can run, the error is a *SelectError that names each
// module tried and why.
func Select[M Module](ctx context.Context, f Framework, s *Settings, mods []M) (M, Report, error) {
	var zero M
	rep := Report{Framework: f}
	req := Requested(s, f)
	cands := mods
	if len(req) > 0 {
		cands = nil
		var unknown []string
		for _, name := range req {
			found := false
			for _, m := range mods {
				if m.SSI().Name == name {
					cands, found = append(cands, m), true
					break
				}
			}
			if !found {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			return zero, rep, &SelectError{Framework: f, Requested: unknown, Err: ErrUnknownModule}
		}
	}
	best := -1
	var opened []M
	for _, m := range cands {
		info := m.SSI()
		c := Candidate{Name: info.Name}
		var wasOpened bool
		c.Priority, wasOpened, c.Err = query(ctx, s, m)
		if wasOpened {
			opened = append(opened, m)
		}
		rep.Tried = append(rep.Tried, c)
		if c.Err != nil {
			continue
		}
		if best < 0 || better(c, info, rep.Tried[best], cands[best].SSI()) {
			best = len(rep.Tried) - 1
		}
	}
	var chosen M
	if best >= 0 {
		chosen = cands[best]
		rep.Chosen = rep.Tried[best].Name
	}
	for _, m := range opened {
		if best >= 0 && m.SSI().Name == rep.Chosen {
			continue
		}
		if c, ok := any(m).(Closer); ok {
			_ = c.Close()
		}
	}
	if best < 0 {
		return zero, rep, &SelectError{Framework: f, Requested: req, Tried: rep.Tried, Err: ErrNoModule}
	}
	return chosen, rep, nil
}

func better(c Candidate, ci Info, b Candidate, bi Info) bool {
	if c.Priority != b.Priority {
		return c.Priority > b.Priority
	}
	if ci.Name != bi.Name {
		return ci.Name > bi.Name
	}
	return ci.Version.Compare(bi.Version) > 0
}

// query opens and queries one module and applies the priority override.
// opened reports whether the module was opened and so must be closed if it
// is not chosen (a module whose Open failed is not closed).
func query(ctx context.Context, s *Settings, m Module) (pri int, opened bool, err error) {
	info := m.SSI()
	if o, ok := m.(Opener); ok {
		if err := o.Open(ctx, s); err != nil {
			return 0, false, fmt.Errorf("open failed: %w", err)
		}
	}
	opened = true
	if err := ctx.Err(); err != nil {
		return 0, opened, err
	}
	pri, err = m.Query(ctx, s)
	if err != nil {
		return 0, opened, err
	}
	if pri < 0 {
		return 0, opened, fmt.Errorf("not available here (priority %d)", pri)
	}
	name := FullName(info.Framework, info.Name, "priority")
	if s.IsSet(name) {
		pri, err = s.Int(name)
		if err != nil {
			return 0, opened, err
		}
		if pri < 0 {
			return 0, opened, fmt.Errorf("disabled by %s=%d", name, pri)
		}
	}
	return min(pri, 100), opened, nil
}
