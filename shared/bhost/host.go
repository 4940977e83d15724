package bhost

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/wire"
)

// Limits on the values a boot schema gives, where they enter. The cpu
// count and the number of hosts are the node table's (package wire); a
// host name is what a resolver accepts, which is far shorter than the
// node table allows.
const (
	// MaxCPU is the largest cpu count of one host: what the node table
	// carries.
	MaxCPU = wire.MaxCPUs
	// MaxHosts is the most distinct hosts a schema may name: the node
	// table's node ids.
	MaxHosts = wire.MaxNodes
	// MaxHostName is the longest host name in bytes, without a final
	// dot (RFC 1035's 255 octets on the wire, less the length octets).
	MaxHostName = 253
	// MaxLabel is the longest label of a host name (RFC 1035).
	MaxLabel = 63
	// MaxUser is the longest user= value (Linux's LOGIN_NAME_MAX, less
	// the terminating NUL).
	MaxUser = 255
	// MaxPrefix is the longest prefix= value (PATH_MAX, less the
	// terminating NUL).
	MaxPrefix = 4095
)

// ErrHostName is wrapped by the error of CheckHost.
var ErrHostName = errors.New("invalid host name")

// hostWant says what a host name may be, for the messages of CheckHost.
const hostWant = "want a host name (letters, digits and hyphens, in labels separated by dots) or an IP address"

// CheckHost checks that name is what a resolver accepts, or a virtual
// machine reached over AF_VSOCK written vsock:CID[:port] (the port is the
// remote shell's there, 22 when absent; see linknet.ParseVsock): an IP address
// (IPv4, or IPv6 with an optional %zone), or a host name of RFC 1123:
// labels of ASCII letters, digits and hyphens, separated by dots, neither
// beginning nor ending with a hyphen, at most 63 bytes each and 253 in
// all, with an optional final dot, and a last label that is not all
// digits (such a name would be read as a partial IPv4 address). A boot
// schema has no user@host form (the user is given with user=), so "@" is
// refused with a hint. The error wraps ErrHostName and quotes the name.
func CheckHost(name string) error {
	if reason := hostReason(name); reason != "" {
		return fmt.Errorf("%w %s: %s", ErrHostName, quote(name), reason)
	}
	return nil
}

// hostReason returns why name is not a valid host, or "".
func hostReason(name string) string {
	if name == "" {
		return "empty"
	}
	if linknet.IsVsock(name) {
		if _, _, err := linknet.ParseVsock(name); err != nil {
			_, why, _ := strings.Cut(err.Error(), ": ")
			return why
		}
		return ""
	}
	if a, err := netip.ParseAddr(name); err == nil {
		if z := a.Zone(); z != "" && !printableASCII(z) {
			return "the zone of an IPv6 address must be printable ASCII"
		}
		return ""
	}
	if i := strings.IndexByte(name, '@'); i > 0 && hostReason(name[i+1:]) == "" {
		return "give the user as user=" + name[:i]
	}
	host := strings.TrimSuffix(name, ".")
	if len(host) > MaxHostName {
		return fmt.Sprintf("longer than %d bytes", MaxHostName)
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		switch {
		case l == "":
			return "empty label (two dots in a row, or a dot at the start)"
		case len(l) > MaxLabel:
			return fmt.Sprintf("label %s is longer than %d bytes", quote(l), MaxLabel)
		}
		for j := 0; j < len(l); j++ {
			if c := l[j]; !isLDH(c) {
				if c < 0x20 || c >= 0x7f {
					return fmt.Sprintf("byte 0x%02x is not allowed; %s", c, hostWant)
				}
				return fmt.Sprintf("%q is not allowed; %s", string(c), hostWant)
			}
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return `a label may not begin or end with "-"`
		}
	}
	if last := labels[len(labels)-1]; allDigits(last) {
		return "not an IP address, and the last label of a host name may not be all digits"
	}
	return ""
}

func isLDH(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

func allDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
