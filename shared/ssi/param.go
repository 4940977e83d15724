package ssi

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParamType says how a parameter's value is read.
type ParamType int

// The parameter types.
const (
	String   ParamType = iota // any text
	Int                       // a decimal integer (0x hex accepted)
	Bool                      // 0/1, yes/no, true/false, on/off
	Size                      // a byte count, with an optional k, m or g suffix (powers of 1024)
	Duration                  // seconds ("60", "0.5") or a Go duration ("500ms", "2m")
)

func (t ParamType) String() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "int"
	case Bool:
		return "bool"
	case Size:
		return "size"
	case Duration:
		return "duration"
	}
	return fmt.Sprintf("ParamType(%d)", int(t))
}

// Param describes one parameter.
type Param struct {
	// Name is the parameter's short name inside its module ("short" for
	// rpi_tcp_short). Full, when set, replaces the derived full name; it is
	// used for LAM's legacy names such as "rpi" and "rpi_verbose".
	Name string
	Full string
	// Default is the value used when neither the command line nor the
	// environment sets one. An empty default shows as <none>.
	Default string
	Type    ParamType
	Help    string
	// Info marks a read-only parameter that only reports something.
	Info bool

	// Framework and Module are filled in at registration.
	Framework Framework
	Module    string
}

// EnvPrefix is the prefix of the environment variable that sets a
// parameter: LAM_MPI_SSI_<full name>.
const EnvPrefix = "LAM_MPI_SSI_"

// EnvVar is the environment variable for the parameter with this full name.
func EnvVar(full string) string { return EnvPrefix + full }

// FullName builds <framework>_<module>_<name>. Core (Base) parameters have
// bare names ("verbose"); an empty module is left out.
func FullName(f Framework, module, name string) string {
	switch {
	case f == Base:
		return name
	case module == "":
		return string(f) + "_" + name
	}
	return string(f) + "_" + module + "_" + name
}

// check reads value as the parameter's type and reports a clear error.
func (p *Param) check(value string) error {
	switch p.Type {
	case Int:
		_, err := ParseInt(value)
		return err
	case Bool:
		_, err := ParseBool(value)
		return err
	case Size:
		_, err := ParseSize(value)
		return err
	case Duration:
		_, err := ParseDuration(value)
		return err
	}
	return nil
}

// ParseDuration reads a non-negative duration: a number of seconds ("60",
// "0.25") or a Go duration ("500ms", "1m30s").
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		if f < 0 || f > float64(math.MaxInt64)/float64(time.Second) || math.IsNaN(f) {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (seconds, or e.g. 500ms)", s)
	}
	return d, nil
}

// ParseInt reads a decimal (or 0x-prefixed hexadecimal) integer.
func ParseInt(s string) (int, error) {
	t := strings.TrimSpace(s)
	n, err := strconv.ParseInt(t, 0, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return int(n), nil
}

// ParseBool reads 1/0, yes/no, true/false or on/off, in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "yes", "y", "true", "on":
		return true, nil
	case "0", "no", "n", "false", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (use 1 or 0)", s)
}

// ParseSize reads a byte count: a non-negative integer with an optional
// suffix k, m or g (powers of 1024, any case, optionally followed by "b" or
// "ib"). "-1" is accepted, because LAM uses it for "not set".
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "-1" {
		return -1, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult, t = 1<<10, t[:n-1]
		case 'm':
			mult, t = 1<<20, t[:n-1]
		case 'g':
			mult, t = 1<<30, t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a byte size", s)
	}
	return n * mult, nil
}
