package ofi

import (
	"errors"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/ssi"
)

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		args []ssi.Arg
		want config
		err  string
	}{
		{want: config{short: 65536, tiny: 1024, bufsize: 32768, credits: 16, rma: true, tagged: true}},
		{args: []ssi.Arg{{Key: "rpi_ofi_provider", Value: "shm"}, {Key: "rpi_ofi_short", Value: "1k"}, {Key: "rpi_ofi_credits", Value: "4"}},
			want: config{provider: "shm", short: 1024, tiny: 1024, bufsize: 32768, credits: 4, rma: true, tagged: true}},
		{args: []ssi.Arg{{Key: "rpi_ofi_rma", Value: "0"}, {Key: "rpi_ofi_tagged", Value: "0"}, {Key: "rpi_ofi_onnode", Value: "1"}},
			want: config{short: 65536, tiny: 1024, bufsize: 32768, credits: 16, onnode: true}},
		{args: []ssi.Arg{{Key: "rpi_ofi_onnode", Value: "maybe"}}, err: "rpi_ofi_onnode"},
		{args: []ssi.Arg{{Key: "rpi_ofi_bufsize", Value: "255"}}, err: "rpi_ofi_bufsize=255 is out of range"},
		{args: []ssi.Arg{{Key: "rpi_ofi_bufsize", Value: "32m"}}, err: "rpi_ofi_bufsize"},
		{args: []ssi.Arg{{Key: "rpi_ofi_credits", Value: "3"}}, err: "rpi_ofi_credits=3 is out of range"},
		{args: []ssi.Arg{{Key: "rpi_ofi_credits", Value: "many"}}, err: "rpi_ofi_credits"},
		{args: []ssi.Arg{{Key: "rpi_ofi_short", Value: "2g"}}, err: "rpi_ofi_short"},
		{args: []ssi.Arg{{Key: "rpi_ofi_tiny", Value: "-1"}}, err: "rpi_ofi_tiny"},
	} {
		got, err := settings(ssi.NewSettings(tc.args, nil))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %+v, %v; want an error with %q", tc.args, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v: %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}

// Bad parameters make the module unavailable, saying why.
func TestQueryBadParameter(t *testing.T) {
	s := ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_credits", Value: "1"}}, nil)
	if p, err := (Module{}).Query(t.Context(), s); err == nil || p >= 0 {
		t.Errorf("Query with rpi_ofi_credits=1: %d, %v", p, err)
	}
}

// A job that does not name the module does not load libfabric where
// there is no fabric device.
func TestQueryNotAsked(t *testing.T) {
	if fabricDevice() {
		t.Skip("this machine has a fabric device")
	}
	if p, err := (Module{}).Query(t.Context(), ssi.NewSettings(nil, nil)); !errors.Is(err, errNotAsked) || p >= 0 {
		t.Errorf("Query of a job that did not ask: %d, %v", p, err)
	}
	for _, args := range [][]ssi.Arg{
		{{Key: "rpi", Value: "tcp,ofi"}},
		{{Key: "rpi_ofi_provider", Value: "tcp"}},
		{{Key: "rpi_ofi_priority", Value: "70"}},
	} {
		if !asked(ssi.NewSettings(args, nil)) {
			t.Errorf("%v does not ask for the module", args)
		}
	}
	if asked(ssi.NewSettings([]ssi.Arg{{Key: "rpi", Value: "tcp"}}, nil)) {
		t.Error("-ssi rpi tcp asks for ofi")
	}
}
