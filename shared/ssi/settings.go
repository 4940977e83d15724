package ssi

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Arg is one "-ssi key value" from a command line.
type Arg struct{ Key, Value string }

// Source says where a parameter's value came from.
type Source int

// The sources, weakest first.
const (
	FromDefault Source = iota
	FromEnvironment
	FromCommandLine
)

func (s Source) String() string {
	switch s {
	case FromEnvironment:
		return "environment"
	case FromCommandLine:
		return "command line"
	}
	return "default"
}

// ErrBadValue is wrapped by every error about a parameter value that does
// not parse.
var ErrBadValue = errors.New("bad SSI parameter value")

// ParamError reports a parameter value that cannot be read as its type.
type ParamError struct {
	Name   string // full name
	Value  string
	Source Source
	Err    error
}

func (e *ParamError) Error() string {
	where := "default"
	switch e.Source {
	case FromEnvironment:
		where = EnvVar(e.Name)
	case FromCommandLine:
		where = "-ssi " + e.Name
	}
	return fmt.Sprintf("SSI parameter %s (from %s): %v", e.Name, where, e.Err)
}

func (e *ParamError) Unwrap() []error { return []error{ErrBadValue, e.Err} }

// Settings resolves parameter values: the command line's -ssi arguments,
// then LAM_MPI_SSI_* in the environment, then registered defaults. It is
// immutable and safe for concurrent use.
type Settings struct {
	args []Arg
	env  map[string]string // LAM_MPI_SSI_ variables, keyed by parameter name
}

// NewSettings builds Settings from command-line arguments (the first value
// of a repeated key wins, as in LAM) and an environment in os.Environ form.
func NewSettings(args []Arg, environ []string) *Settings {
	s := &Settings{env: map[string]string{}}
	seen := map[string]bool{}
	for _, a := range args {
		if seen[a.Key] {
			continue
		}
		seen[a.Key] = true
		s.args = append(s.args, a)
	}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(k, EnvPrefix) && len(k) > len(EnvPrefix) {
			s.env[k[len(EnvPrefix):]] = v
		}
	}
	return s
}

// Args returns the command-line arguments in the order given.
func (s *Settings) Args() []Arg { return slices.Clone(s.args) }

// Value returns a parameter's value and where it came from. A parameter
// nobody registered has an empty default.
func (s *Settings) Value(full string) (string, Source) {
	for _, a := range s.args {
		if a.Key == full {
			return a.Value, FromCommandLine
		}
	}
	if v, ok := s.env[full]; ok {
		return v, FromEnvironment
	}
	p, _ := LookupParam(full)
	return p.Default, FromDefault
}

// IsSet reports whether the command line or the environment sets full.
func (s *Settings) IsSet(full string) bool {
	_, src := s.Value(full)
	return src != FromDefault
}

// String returns a parameter's value.
func (s *Settings) String(full string) string {
	v, _ := s.Value(full)
	return v
}

// Int returns a parameter's value as an integer.
func (s *Settings) Int(full string) (int, error) { return parsed(s, full, ParseInt) }

// Bool returns a parameter's value as a boolean.
func (s *Settings) Bool(full string) (bool, error) { return parsed(s, full, ParseBool) }

// Size returns a parameter's value as a byte count.
func (s *Settings) Size(full string) (int64, error) { return parsed(s, full, ParseSize) }

// Duration returns a parameter's value as a duration.
func (s *Settings) Duration(full string) (time.Duration, error) {
	return parsed(s, full, ParseDuration)
}

// parsed reads a parameter's value with parse; an error is a *ParamError
// that says where the value came from.
func parsed[T any](s *Settings, full string, parse func(string) (T, error)) (T, error) {
	v, src := s.Value(full)
	x, err := parse(v)
	if err != nil {
		var zero T
		return zero, &ParamError{Name: full, Value: v, Source: src, Err: err}
	}
	return x, nil
}

// Environ returns the command-line arguments as environment entries
// (LAM_MPI_SSI_key=value), for the processes a tool starts, so that they
// see the same settings.
func (s *Settings) Environ() []string {
	out := make([]string, 0, len(s.args))
	for _, a := range s.args {
		out = append(out, EnvVar(a.Key)+"="+a.Value)
	}
	return out
}

// Unknown returns, sorted, the names set on the command line or in the
// environment that no parameter of LAM/Go has (see Known): most likely
// typos.
func (s *Settings) Unknown() []string {
	set := map[string]bool{}
	for _, a := range s.args {
		set[a.Key] = true
	}
	for k := range s.env {
		set[k] = true
	}
	var out []string
	for k := range set {
		if !Known(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Check reads every parameter that is set against its registered type and
// returns the errors together.
func (s *Settings) Check() error {
	var errs []error
	for _, p := range Params() {
		if !s.IsSet(p.Full) {
			continue
		}
		v, src := s.Value(p.Full)
		if err := p.check(v); err != nil {
			errs = append(errs, &ParamError{Name: p.Full, Value: v, Source: src, Err: err})
		}
	}
	return errors.Join(errs...)
}
