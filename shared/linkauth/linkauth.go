// Package linkauth authenticates the TCP links of a universe: between
// lamds, and between a new lamd and the lamboot (or lamgrow) that started
// it.
//
// lamboot creates a random Secret for the universe and hands it to each
// lamd over the remote shell's standard input (and, locally, a pipe):
// never in argv, an environment or a file. Both ends of a link derive the
// same Ed25519 key pair from the secret and run mutual TLS 1.3 with it: a
// peer is accepted only if it proves it holds that private key. So a
// process without the secret can neither join nor read nor inject, and the
// secret itself never crosses the network.
package linkauth

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"
)

// Secret is a universe's shared secret.
type Secret [32]byte

// NewSecret returns a fresh random secret.
func NewSecret() (Secret, error) {
	var s Secret
	if _, err := rand.Read(s[:]); err != nil {
		return s, fmt.Errorf("universe secret: %w", err)
	}
	return s, nil
}

// String encodes the secret in hex, for handing it over a pipe.
func (s Secret) String() string { return hex.EncodeToString(s[:]) }

// ErrBadSecret is wrapped by ParseSecret's errors.
var ErrBadSecret = errors.New("bad universe secret")

// ParseSecret decodes String's output (surrounding space ignored).
func ParseSecret(text string) (Secret, error) {
	var s Secret
	b, err := hex.DecodeString(strings.TrimSpace(text))
	if err != nil || len(b) != len(s) {
		return s, fmt.Errorf("%w: want %d hex digits", ErrBadSecret, 2*len(s))
	}
	copy(s[:], b)
	return s, nil
}

// ReadSecret reads a secret from r: one line of hex, at most 1 KiB.
func ReadSecret(r io.Reader) (Secret, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1024))
	if err != nil {
		return Secret{}, fmt.Errorf("read universe secret: %w", err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return ParseSecret(string(line))
}

func (s Secret) derive(info string, n int) []byte {
	out, err := hkdf.Key(sha256.New, s[:], nil, info, n)
	if err != nil {
		panic("linkauth: hkdf: " + err.Error()) // only for n out of range: a programming error
	}
	return out
}

// ID is a public name of the universe, derived from the secret, that
// peers compare in their hellos. It reveals nothing about the secret.
func (s Secret) ID() string { return hex.EncodeToString(s.derive("lamgo universe id v1", 8)) }

func (s Secret) key() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(s.derive("lamgo link key v1", ed25519.SeedSize))
}

// TLS returns the TLS configuration of one end of a link: server is true
// for the accepting end.
func (s Secret) TLS(server bool) (*tls.Config, error) {
	priv := s.key()
	pub := priv.Public().(ed25519.PublicKey)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "lamgo universe " + s.ID()},
		NotBefore:    time.Now().Add(-24 * time.Hour),
		NotAfter:     time.Now().Add(100 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		return nil, fmt.Errorf("link certificate: %w", err)
	}
	verify := func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) != 1 {
			return errors.New("link peer: want exactly one certificate")
		}
		c, err := x509.ParseCertificate(raw[0])
		if err != nil {
			return fmt.Errorf("link peer certificate: %w", err)
		}
		k, ok := c.PublicKey.(ed25519.PublicKey)
		if !ok || !k.Equal(pub) {
			return errors.New("link peer does not hold this universe's secret")
		}
		return nil
	}
	cfg := &tls.Config{
		Certificates:          []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: priv}},
		MinVersion:            tls.VersionTLS13,
		VerifyPeerCertificate: verify,
		// Peers are verified by key above, not by a CA or a name.
		InsecureSkipVerify: true,
		ServerName:         "lamgo",
	}
	if server {
		cfg.ClientAuth = tls.RequireAnyClientCert
	}
	return cfg, nil
}
