package launch

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/ssi"
)

func TestCRSettings(t *testing.T) {
	cases := []struct {
		name    string
		args    []ssi.Arg
		environ []string
		home    string
		want    CROptions
		err     string
	}{
		{name: "defaults", home: "/h", want: CROptions{Dir: "/h/lam-checkpoints", Timeout: time.Minute}},
		{name: "all set", args: []ssi.Arg{{Key: "cr", Value: "self"}, {Key: "cr_base_dir", Value: "/ck"}},
			environ: []string{"LAM_MPI_SSI_cr_base_keep=3", "LAM_MPI_SSI_cr_base_period=1.5", "LAM_MPI_SSI_cr_base_timeout=10s"},
			want: CROptions{Requested: true, Dir: "/ck", Keep: 3, Period: 1500 * time.Millisecond, Timeout: 10 * time.Second,
				SSI: []string{"cr=self", "cr_base_dir=/ck"}}},
		{name: "cr from the environment", environ: []string{"LAM_MPI_SSI_cr=self"}, home: "/h",
			want: CROptions{Requested: true, Dir: "/h/lam-checkpoints", Timeout: time.Minute}},
		{name: "no home", err: "no $HOME"},
		{name: "negative keep", home: "/h", environ: []string{"LAM_MPI_SSI_cr_base_keep=-1"}, err: "cr_base_keep -1"},
		{name: "bad period", home: "/h", environ: []string{"LAM_MPI_SSI_cr_base_period=soon"}, err: "cr_base_period"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := CRSettings(ssi.NewSettings(c.args, c.environ), c.home)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Requested != c.want.Requested || got.Dir != c.want.Dir || got.Keep != c.want.Keep ||
				got.Period != c.want.Period || got.Timeout != c.want.Timeout || !slices.Equal(got.SSI, c.want.SSI) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestJobDirName(t *testing.T) {
	at := time.Date(2026, 11, 25, 6, 1, 2, 0, time.FixedZone("x", 3600))
	if got := jobDirName(2, 4711, at); got != "n2-4711-20261125T050102Z" {
		t.Errorf("jobDirName = %q", got)
	}
}

func TestCheckpointable(t *testing.T) {
	w := newWireup(jobwire.JobID{PID: 1}, nil)
	w.cr.opts.Dir = "/x"
	cases := []struct {
		name   string
		change func()
		want   string
	}{
		{"starting", func() { w.inited[0] = true }, "the job is starting: 1 of 2 ranks"},
		{"ready", func() { w.inited[1], w.tableSent = true, true }, ""},
		{"no cr", func() { w.cr.noCR[1] = "rpi lamd cannot be drained" }, "rank 1 cannot be checkpointed: rpi lamd cannot be drained"},
		{"finalizing", func() { w.cr.noCR[1] = ""; w.finalized[0] = true }, "rank 0 has called MPI_Finalize"},
		{"no dir", func() { w.cr.opts.Dir = "" }, "set the SSI parameter cr_base_dir"},
	}
	for _, c := range cases {
		c.change()
		err := w.checkpointable(2)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
