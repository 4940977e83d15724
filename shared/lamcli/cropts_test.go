package lamcli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/ssi"
)

// TestCROptions: mpirun's checkpoint settings from its SSI parameters,
// -cr-period over cr_base_period, and which log lines reach stderr.
func TestCROptions(t *testing.T) {
	cases := []struct {
		name    string
		period  string
		verbose bool
		environ []string
		want    time.Duration
		err     bool
	}{
		{name: "none", want: 0},
		{name: "parameter", environ: []string{"LAM_MPI_SSI_cr_base_period=2"}, want: 2 * time.Second},
		{name: "option wins", period: "500ms", environ: []string{"LAM_MPI_SSI_cr_base_period=2"}, want: 500 * time.Millisecond},
		{name: "seconds", period: "1.5", want: 1500 * time.Millisecond, verbose: true},
		{name: "bad", period: "soon", err: true},
		{name: "negative", period: "-1", err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr strings.Builder
			env := &Env{Stderr: &stderr, Environ: append([]string{"HOME=/h"}, c.environ...)}
			env.SSI = ssi.NewSettings(nil, env.Environ)
			o := &MPIRunOptions{CRPeriod: c.period}
			o.Verbose = c.verbose
			cr, err := o.crOptions(env)
			if c.err {
				if !errors.Is(err, ErrUsage) {
					t.Errorf("error %v, want a usage error", err)
				}
				return
			}
			if err != nil || cr.Period != c.want || cr.Dir != "/h/lam-checkpoints" {
				t.Fatalf("got %+v, %v; want period %v", cr, err, c.want)
			}
			cr.Log.Write([]byte("mpirun: checkpoint 1 written to /x\n"))
			cr.Log.Write([]byte("mpirun: warning: periodic checkpoint 2 not taken: why\n"))
			lines := strings.Count(stderr.String(), "\n")
			if c.verbose && lines != 2 || !c.verbose && (lines != 1 || !strings.Contains(stderr.String(), "warning")) {
				t.Errorf("stderr with -v=%v: %q", c.verbose, stderr.String())
			}
		})
	}
}
