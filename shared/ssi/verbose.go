package ssi

import (
	"fmt"
	"strconv"
	"strings"
)

// Verbose is a parsed verbosity setting, the value of the verbose,
// boot_verbose, rpi_verbose, coll_verbose and cr_verbose parameters: a
// comma list of level:N (or a bare N), stderr, stdout, file[:name],
// fileappend, syslog, syslogpri:notice|info|debug and syslogid:ID.
type Verbose struct {
	Level      int
	Stderr     bool
	Stdout     bool
	File       string // "" for no file; LAM's default name is lam-ssi.txt in the session directory
	FileAppend bool
	Syslog     bool
	SyslogPri  string
	SyslogID   string
}

// Enabled reports whether any output is asked for.
func (v Verbose) Enabled() bool {
	return v.Stderr || v.Stdout || v.File != "" || v.Syslog
}

// ParseVerbose reads a verbosity setting. An empty string means off. A
// setting that names a level but no destination goes to stderr, as in LAM.
func ParseVerbose(s string) (Verbose, error) {
	var v Verbose
	if strings.TrimSpace(s) == "" {
		return v, nil
	}
	levelSet := false
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		key, val, hasVal := strings.Cut(tok, ":")
		switch key {
		case "":
			continue
		case "level":
			n, err := strconv.Atoi(val)
			if !hasVal || err != nil || n < 0 {
				return Verbose{}, fmt.Errorf("verbose: bad level %q", tok)
			}
			v.Level, levelSet = n, true
		case "stderr":
			v.Stderr = true
		case "stdout":
			v.Stdout = true
		case "file":
			v.File = "lam-ssi.txt"
			if hasVal {
				if val == "" || strings.ContainsAny(val, "/\x00") || val == "." || val == ".." {
					return Verbose{}, fmt.Errorf("verbose: bad file name %q", val)
				}
				v.File = "lam-" + val
			}
		case "fileappend":
			v.FileAppend = true
			if v.File == "" {
				v.File = "lam-ssi.txt"
			}
		case "syslog":
			v.Syslog = true
		case "syslogpri":
			switch val {
			case "notice", "info", "debug":
				v.Syslog, v.SyslogPri = true, val
			default:
				return Verbose{}, fmt.Errorf("verbose: bad syslog priority %q (want notice, info or debug)", val)
			}
		case "syslogid":
			if val == "" {
				return Verbose{}, fmt.Errorf("verbose: empty syslogid")
			}
			v.Syslog, v.SyslogID = true, val
		default:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 {
				return Verbose{}, fmt.Errorf("verbose: unknown item %q", tok)
			}
			v.Level, levelSet = n, true
		}
	}
	if levelSet && !v.Enabled() {
		v.Stderr = true
	}
	return v, nil
}
