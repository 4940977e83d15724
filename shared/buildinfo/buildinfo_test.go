package buildinfo

import (
	"testing"

	"github.com/lamgo/lam/shared/ssi"
)

func TestVersions(t *testing.T) {
	v, err := ssi.ParseVersion(Version.String())
	if err != nil || v != Version {
		t.Fatalf("Version %+v does not round-trip through %q", Version, Version.String())
	}
	if !ModuleVersion.Compatible(Version) {
		t.Errorf("ModuleVersion %v is not Version's major.minor %v", ModuleVersion, Version)
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
