package ssi

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a LAM-style version number.
type Version struct {
	Major, Minor, Release int
	Alpha, Beta           int // an alpha or beta number; zero when not a pre-release
	SVN                   int // a Subversion revision; zero when not a development build
}

// SSIVersion is the version of the SSI interface every module is built
// against. It is LAM's, so modules report "SSI v1.0".
var SSIVersion = Version{Major: 1}

// String renders v in LAM's "full" scope: major.minor, then .release when it
// is not zero, then aN or bN, then svnN.
func (v Version) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d.%d", v.Major, v.Minor)
	if v.Release > 0 {
		fmt.Fprintf(&b, ".%d", v.Release)
	}
	if v.Alpha > 0 {
		fmt.Fprintf(&b, "a%d", v.Alpha)
	} else if v.Beta > 0 {
		fmt.Fprintf(&b, "b%d", v.Beta)
	}
	if v.SVN > 0 {
		fmt.Fprintf(&b, "svn%d", v.SVN)
	}
	return b.String()
}

// Scopes lists the scopes laminfo's -version accepts, in LAM's order.
var Scopes = []string{"full", "major", "minor", "release", "alpha", "beta", "svn"}

// Scope renders one scope of v ("full", "major", …) as laminfo -version
// prints it.
func (v Version) Scope(scope string) (string, error) {
	switch scope {
	case "full":
		return v.String(), nil
	case "major":
		return strconv.Itoa(v.Major), nil
	case "minor":
		return strconv.Itoa(v.Minor), nil
	case "release":
		return strconv.Itoa(v.Release), nil
	case "alpha":
		return strconv.Itoa(v.Alpha), nil
	case "beta":
		return strconv.Itoa(v.Beta), nil
	case "svn":
		return strconv.Itoa(v.SVN), nil
	}
	return "", fmt.Errorf("unknown version scope %q (want one of %s)", scope, strings.Join(Scopes, ", "))
}

// Compatible reports whether v and w can work together: the same major and
// minor numbers.
func (v Version) Compatible(w Version) bool {
	return v.Major == w.Major && v.Minor == w.Minor
}

// Compare orders versions by major, minor, release; a pre-release sorts
// before its release.
func (v Version) Compare(w Version) int {
	for _, d := range [][2]int{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Release, w.Release}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	rank := func(x Version) int {
		switch {
		case x.Alpha > 0:
			return 0
		case x.Beta > 0:
			return 1
		}
		return 2
	}
	if a, b := rank(v), rank(w); a != b {
		if a < b {
			return -1
		}
		return 1
	}
	for _, d := range [][2]int{{v.Alpha, w.Alpha}, {v.Beta, w.Beta}, {v.SVN, w.SVN}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ParseVersion reads a version in the "full" form String produces, such as
// "7.1", "7.1.4", "1.0b2" or "0.1svn120".
func ParseVersion(s string) (Version, error) {
	var v Version
	bad := func() (Version, error) { return Version{}, fmt.Errorf("bad version %q", s) }
	rest := s
	if i := strings.Index(rest, "svn"); i >= 0 {
		n, err := strconv.Atoi(rest[i+3:])
		if err != nil || n < 0 {
			return bad()
		}
		v.SVN, rest = n, rest[:i]
	}
	if i := strings.IndexAny(rest, "ab"); i >= 0 {
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n <= 0 {
			return bad()
		}
		if rest[i] == 'a' {
			v.Alpha = n
		} else {
			v.Beta = n
		}
		rest = rest[:i]
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return bad()
	}
	nums := []*int{&v.Major, &v.Minor, &v.Release}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strings.HasPrefix(p, "+") {
			return bad()
		}
		*nums[i] = n
	}
	return v, nil
}
