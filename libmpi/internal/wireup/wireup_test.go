package wireup

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/ssi"
)

// An MPI process links no boot module, yet tells a misspelt parameter
// from a boot parameter it passes on, and knows the init timeout.
func TestUnknownParams(t *testing.T) {
	s := ssi.NewSettings(nil, []string{"LAM_MPI_SSI_boot_rsh_agent=rsh", "LAM_MPI_SSI_rpi_tcp_shrt=1",
		"LAM_MPI_SSI_" + rpi.InitTimeout + "=5", "LAM_MPI_SSI_coll_base_crossover=2"})
	if got := s.Unknown(); len(got) != 1 || got[0] != "rpi_tcp_shrt" {
		t.Errorf("Unknown = %q", got)
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		env  []string
		want time.Duration
		bad  bool
	}{
		{nil, 2 * time.Minute, false},
		{[]string{"LAM_MPI_SSI_rpi_base_init_timeout=5"}, 5 * time.Second, false},
		{[]string{"LAM_MPI_SSI_rpi_base_init_timeout=500ms"}, 500 * time.Millisecond, false},
		{[]string{"LAM_MPI_SSI_rpi_base_init_timeout=0"}, 0, true},
		{[]string{"LAM_MPI_SSI_rpi_base_init_timeout=soon"}, 0, true},
	}
	for _, tt := range tests {
		d, err := Timeout(ssi.NewSettings(nil, tt.env))
		if (err != nil) != tt.bad || !tt.bad && d != tt.want {
			t.Errorf("%v: %v %v", tt.env, d, err)
		}
		if tt.bad && !errors.Is(err, ssi.ErrBadValue) {
			t.Errorf("%v: %v is not a bad value", tt.env, err)
		}
	}
}

// A program started alone is a world of one.
func TestSingleton(t *testing.T) {
	if os.Getenv(jobwire.EnvRank) != "" {
		t.Skip("inside a job")
	}
	p, err := Start(t.Context())
	if err != nil || p.Size != 1 || p.Rank != 0 || p.Engine == nil {
		t.Fatalf("%+v %v", p, err)
	}
	if err := p.Finalize(t.Context()); err != nil {
		t.Error(err)
	}
}
