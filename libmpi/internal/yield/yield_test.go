package yield

import (
	"runtime/debug"
	"testing"
)

func TestCBuildMode(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     bool
	}{
		{"c-shared", []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "-buildmode", Value: "c-shared"}}, true},
		{"c-archive", []debug.BuildSetting{{Key: "-buildmode", Value: "c-archive"}}, true},
		{"exe", []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "CGO_ENABLED", Value: "1"}}, false},
		{"pie", []debug.BuildSetting{{Key: "-buildmode", Value: "pie"}}, false},
		{"none recorded", nil, false},
		{"a value elsewhere", []debug.BuildSetting{{Key: "-ldflags", Value: "c-shared"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cBuildMode(tt.settings); got != tt.want {
				t.Errorf("cBuildMode = %v, want %v", got, tt.want)
			}
		})
	}
	// A test binary is a Go program: its waits yield to goroutines.
	if FromC {
		t.Error("FromC is set in a Go test binary")
	}
}
