package buildinfo

import (
	"testing"

	"github.com/lamgo/lam/shared/ssi"
)

func TestVersionMatches(t *testing.T) {
	v, err := ssi.ParseVersion(VersionStr)
	if err != nil || v != Version {
		t.Fatalf("VersionStr %q parses to %+v, %v; Version is %+v", VersionStr, v, err, Version)
	}
}

func TestArch(t *testing.T) {
	tests := []struct{ goarch, goos, want string }{
		{"amd64", "linux", "x86_64-pc-linux-gnu"},
		{"arm64", "linux", "aarch64-pc-linux-gnu"},
		{"arm", "linux", "arm-unknown-linux-gnueabihf"},
		{"amd64", "darwin", "x86_64-apple-darwin"},
		{"wasm", "js", "wasm-unknown-js"},
	}
	for _, tt := range tests {
		if got := arch(tt.goarch, tt.goos); got != tt.want {
			t.Errorf("arch(%s, %s) = %s, want %s", tt.goarch, tt.goos, got, tt.want)
		}
	}
}
