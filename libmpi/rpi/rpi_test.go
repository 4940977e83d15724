package rpi

import (
	"testing"
	"time"
)

func TestOversubscribed(t *testing.T) {
	tests := []struct {
		in, want Pace
	}{
		{ // spin, then yield, then sleep: the spin time joins the yield
			Pace{SpinPolls: 10000, Spin: 50 * time.Microsecond, Yield: 100 * time.Millisecond},
			Pace{SpinPolls: 1, Yield: 100*time.Millisecond + 50*time.Microsecond, YieldOS: true, Shared: true},
		},
		{ // yield forever stays so
			Pace{SpinPolls: 16, Spin: 20 * time.Microsecond, Yield: -1},
			Pace{SpinPolls: 1, Yield: -1, YieldOS: true, Shared: true},
		},
	}
	for _, tt := range tests {
		if got := tt.in.Oversubscribed(); got != tt.want {
			t.Errorf("%+v.Oversubscribed() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
