package lamcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/launch"
	"github.com/lamgo/lam/shared/msg"
	"github.com/lamgo/lam/shared/ssi"
)

// mpirunLong are mpirun's options beyond LaunchOptions', as LAM 7.1.4's
// mpirun declares them (otb/mpirun/mpirun.c), plus -tag-output.
var mpirunLong = map[string]int{
	"ssi": 2, "nx": 0, "O": 0, "sa": 0, "sf": 0, "p": 1, "tag-output": 0,
	"t": 0, "ton": 0, "toff": 0, "l": 0, "b": 0, "ger": 0, "nger": 0, "sigs": 0, "nsigs": 0,
	"lamd": 0, "c2c": 0, "vv": 0, "tv": 0, "rmschema": 0, "client": 2, "server": 1,
	"cr-period": 1,
}

// MPIRunSyntax is mpirun's command line.
func MPIRunSyntax() Syntax { return LaunchSyntax(mpirunLong) }

// MPIRunOptions are mpirun's options, for embedding in its grammar (and
// mpiexec's, which passes its own through them):
//
//	lamcli.MPIRunOptions `embed:""`
//
// LAM's options whose mechanism LAM/Go does not have are accepted and do
// nothing (-ger, -l, -sigs, ...), so that LAM's scripts run unchanged;
// mpirun -h says so for each.
type MPIRunOptions struct {
	LaunchOptions `embed:""`
	SSIOption     `embed:""`
	NoExport      bool   `name:"nx" help:"Do not export LAM_MPI_* variables."`
	Homogeneous   bool   `short:"O" help:"Ignored: the universe is homogeneous."`
	StatusAll     bool   `name:"sa" xor:"status" help:"Report the exit status of every process."`
	StatusFail    bool   `name:"sf" xor:"status" help:"Report the exit status of every process on failure."`
	StatusPrefix  string `short:"p" default:"mpirun:" help:"Prefix of -sa/-sf lines."`
	TagOutput     bool   `name:"tag-output" help:"Prefix every line of output with [rank]."`
	Trace         bool   `short:"t" help:"Trace the ranks' MPI calls and messages (as -ton)."`
	TraceOn       bool   `name:"ton" xor:"trace" help:"Trace, message recording initially on."`
	TraceOff      bool   `name:"toff" xor:"trace" help:"Trace, message recording initially off."`
	VeryVerbose   bool   `name:"vv" help:"Very verbose: -v, and a line as each rank finalizes."`
	RmSchema      bool   `name:"rmschema" help:"Remove the app schema file once it is read."`
	CRPeriod      string `name:"cr-period" help:"Take a checkpoint every so often (seconds, or a Go duration); as the SSI parameter cr_base_period."`
	LAMD          bool   `name:"lamd" xor:"rpi" help:"Deprecated: -ssi rpi lamd."`
	C2C           bool   `name:"c2c" xor:"rpi" help:"Deprecated: -ssi rpi tcp."`
	LineBuffered  bool   `short:"l" help:"No effect: output is forwarded line by line."`
	FastBoot      bool   `short:"b" help:"No effect."`
	GER           bool   `name:"ger" xor:"ger" help:"No effect (LAM 7.1.4 had disabled GER)."`
	NoGER         bool   `name:"nger" xor:"ger" help:"No effect."`
	Sigs          bool   `name:"sigs" xor:"sigs" help:"No effect."`
	NoSigs        bool   `name:"nsigs" xor:"sigs" help:"No effect."`
	TotalView     bool   `name:"tv" help:"No effect but a warning: no TotalView interface."`
	IMPIClient    string `name:"client" help:"IMPI: not provided; ignored."`
	IMPIServer    string `name:"server" help:"IMPI: not provided; ignored."`
}

// ssiArgs puts the rpi that -lamd or -c2c select first, as LAM does, so
// that it wins over a -ssi rpi (which is then ignored with a warning).
func (o *MPIRunOptions) ssiArgs() []ssi.Arg {
	switch {
	case o.LAMD:
		return append([]ssi.Arg{{Key: "rpi", Value: "lamd"}}, o.SSI...)
	case o.C2C:
		return append([]ssi.Arg{{Key: "rpi", Value: "tcp"}}, o.SSI...)
	}
	return o.SSI
}

// TraceEnv is the value of jobwire.EnvTrace for the ranks ("": no
// tracing): -t or -ton win over -toff, as in LAM.
func (o *MPIRunOptions) TraceEnv() string {
	switch {
	case o.Trace || o.TraceOn:
		return jobwire.TraceOn
	case o.TraceOff:
		return jobwire.TraceOff
	}
	return ""
}

// warn prints LAM's warnings for its deprecated and missing mechanisms.
func (o *MPIRunOptions) warn(env *Env) {
	if o.LAMD {
		fmt.Fprintln(env.Stderr, `mpirun: Warning: the "-lamd" option is deprecated.`)
		fmt.Fprintln(env.Stderr, `mpirun: Use "-ssi rpi lamd" instead.`)
	}
	if o.C2C {
		fmt.Fprintln(env.Stderr, `mpirun: Warning: the "-c2c" option is deprecated.`)
		fmt.Fprintln(env.Stderr, `mpirun: Use "-ssi rpi <name>" instead, where <name> is a valid RPI name.`)
		fmt.Fprintln(env.Stderr, `mpirun: Assuming "-ssi rpi tcp".`)
	}
	if o.TotalView {
		fmt.Fprintln(env.Stderr, msg.Text("mpirun", "no-totalview"))
	}
	if o.IMPIClient != "" || o.IMPIServer != "" {
		msg.Show(env.Stderr, "mpirun", "no-impi-support")
	}
}

// Run is mpirun: the job of the command line (or of its app schema)
// started with the MPI wire-up.
func (o *MPIRunOptions) Run(ctx context.Context, env *Env) error {
	o.warn(env)
	o.removeSchema = o.RmSchema
	return o.Launch(ctx, env, o.runner(env))
}

// RunLines runs the job lines (mpiexec's app contexts) as mpirun runs
// its command line's, with o's options.
func (o *MPIRunOptions) RunLines(ctx context.Context, env *Env, lines []appschema.Line) error {
	o.warn(env)
	return o.launchLines(ctx, env, lines, o.runner(env))
}

func (o *MPIRunOptions) runner(env *Env) func(context.Context, *lamclient.Client, launch.Options) error {
	return func(ctx context.Context, cl *lamclient.Client, lo launch.Options) error {
		if !o.NoExport {
			lo.Env = launch.LAMEnviron(env.Environ)
		}
		lo.Env = append(lo.Env, env.SSI.Environ()...)
		if t := o.TraceEnv(); t != "" {
			lo.Env = append(lo.Env, jobwire.EnvTrace+"="+t)
		}
		lo.Verbose = lo.Verbose || o.VeryVerbose
		lo.Stdin = env.Stdin
		maxClients, err := env.SSI.Int(boot.ParamMaxClients)
		if err != nil {
			return err
		}
		cr, err := o.crOptions(env)
		if err != nil {
			return err
		}
		err = launch.RunMPI(ctx, cl, lo, launch.MPIOptions{
			StatusAll: o.StatusAll, StatusFail: o.StatusFail, StatusPrefix: o.StatusPrefix,
			TagOutput: o.TagOutput, VeryVerbose: o.VeryVerbose, MaxClients: maxClients, CR: cr,
		})
		var xe *launch.ExitError
		if (o.StatusAll || o.StatusFail) && errors.As(err, &xe) {
			// The -sa/-sf lines said it; LAM shows no abnormal-exit then.
			return ExitQuiet(xe.Code())
		}
		return err
	}
}

// crOptions are the job's checkpoint settings: the SSI parameters, with
// -cr-period over cr_base_period; -v reports each checkpoint taken.
func (o *MPIRunOptions) crOptions(env *Env) (launch.CROptions, error) {
	cr, err := launch.CRSettings(env.SSI, env.Getenv("HOME"))
	if err != nil {
		return cr, Usagef("%v", err)
	}
	if o.CRPeriod != "" {
		if cr.Period, err = ssi.ParseDuration(o.CRPeriod); err != nil || cr.Period < 0 {
			return cr, Usagef("-cr-period %q: give seconds or a Go duration (500ms, 2m)", o.CRPeriod)
		}
	}
	cr.Log = env.Stderr
	if !o.Verbose && !o.VeryVerbose {
		cr.Log = periodicOnly{env.Stderr}
	}
	return cr, nil
}

// periodicOnly passes on the log's warnings (a periodic checkpoint that
// failed) and drops its reports of checkpoints taken, which -v shows.
type periodicOnly struct{ w io.Writer }

func (p periodicOnly) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte("mpirun: warning: ")) {
		return p.w.Write(b)
	}
	return len(b), nil
}

// removeSchemaFile removes an app schema read with -rmschema; failing to
// is worth a warning, not the job.
func removeSchemaFile(env *Env, path string) {
	if err := os.Remove(path); err != nil {
		env.Warnf("-rmschema: %v", err)
	}
}
