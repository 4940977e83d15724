package lamcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/msg"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// MPIExec is LAM's mpiexec, the MPI-2 launcher:
//
//	mpiexec [global] <local> [: <local> ...]
//	mpiexec [global] -configfile <file>
//
// Each <local> part (an MPI-2 "app context") becomes one line of an app
// schema, and the lines run as one job through mpirun's launch code
// (MPIRunOptions.RunLines). With -boot, -boot-args or -machinefile it
// boots a universe (lamboot) for the job and halts it (lamhalt) after.
// Its tool uses Syntax{Raw: true} and RootOK: mpiexec reads its own
// command line, as LAM's Perl script did, and refuses root itself unless
// allowed (--allow-run-as-root among its global options, or
// LAM_ALLOW_RUN_AS_ROOT=1).
type MPIExec struct {
	Args []string `arg:"" optional:"" passthrough:"all"`
}

// mpiexecGlobal are mpiexec's global options.
type mpiexecGlobal struct {
	verbose, debug, tv bool
	boot               bool
	bootArgs           []string
	machinefile        string
	prefix             string
	configfile         string
	ssi                []ssi.Arg
	help               bool
	allowRoot          bool
}

// mpiexecLocal are one app context's options.
type mpiexecLocal struct {
	n, host, arch, wdir, soft, path, file string
	rest                                  []string // mpirun's words: where, -x, ..., program, arguments
}

// mpiexecHaltTimeout is how long mpiexec waits for lamhalt before it
// wipes the universe it booted, as LAM's did (10 s).
const mpiexecHaltTimeout = 10 * time.Second

func (m *MPIExec) args() []string {
	if len(m.Args) > 0 && m.Args[0] == "--" {
		return m.Args[1:]
	}
	return m.Args
}

// parseGlobal reads the global options up to the first word that is not
// one, as LAM's parse_global_args.
func parseGlobal(args []string) (mpiexecGlobal, []string, error) {
	var g mpiexecGlobal
	value := func(i *int, opt string) (string, error) {
		if *i+1 >= len(args) {
			return "", Usagef("%s needs a value", opt)
		}
		*i++
		return args[*i], nil
	}
	i := 0
	for ; i < len(args); i++ {
		var err error
		switch a := args[i]; a {
		case "-v":
			g.verbose = true
		case "-d":
			g.debug = true
		case "-tv":
			g.tv = true
		case "-boot":
			g.boot = true
		case "-h", "-help", "--help":
			g.help = true
		case AllowRootOption, AllowRootOption[1:]:
			g.allowRoot = true
		case "-configfile":
			g.configfile, err = value(&i, a)
		case "-machinefile":
			g.machinefile, err = value(&i, a)
			g.boot = true
		case "-prefix":
			g.prefix, err = value(&i, a)
		case "-boot-args":
			var v string
			v, err = value(&i, a)
			g.bootArgs = append(g.bootArgs, strings.Fields(v)...)
			g.boot = true
		case "-ssi":
			if i+2 >= len(args) {
				return g, nil, Usagef("-ssi needs a key and a value")
			}
			g.ssi = append(g.ssi, ssi.Arg{Key: args[i+1], Value: args[i+2]})
			i += 2
		default:
			return g, args[i:], nil
		}
		if err != nil {
			return g, nil, err
		}
	}
	return g, nil, nil
}

// ssiArgs gives lamcli.Run the global -ssi options.
func (m *MPIExec) ssiArgs() []ssi.Arg {
	g, _, _ := parseGlobal(m.args())
	return g.ssi
}

// parseContexts splits the local part at ":" into app contexts and reads
// each one's options, up to the first word that is not one; the rest of
// the context is mpirun's (where, -x, the program and its arguments).
func parseContexts(args []string) ([]mpiexecLocal, error) {
	var out []mpiexecLocal
	cur := mpiexecLocal{}
	mine := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == ":" {
			if i+1 >= len(args) {
				return nil, Usagef("\":\" at the end of the line")
			}
			out = append(out, cur)
			cur, mine = mpiexecLocal{}, true
			continue
		}
		var field *string
		once := true
		if mine {
			switch a {
			case "-n":
				field = &cur.n
			case "-host":
				field = &cur.host
			case "-arch":
				field = &cur.arch
			case "-wdir":
				field = &cur.wdir
			case "-soft":
				field, once = &cur.soft, false
			case "-path":
				field, once = &cur.path, false
			case "-file":
				field, once = &cur.file, false
			}
		}
		if field == nil {
			mine = false
			cur.rest = append(cur.rest, a)
			continue
		}
		if once && *field != "" {
			return nil, Usagef("mpiexec arg %s cannot be used twice within same context", a)
		}
		if i+1 >= len(args) {
			return nil, Usagef("%s needs a value", a)
		}
		i++
		*field = args[i]
	}
	return append(out, cur), nil
}

// readConfigFile reads -configfile: one app context per line (":" may
// join several on one line), "#" comments, "\" continues a line.
func readConfigFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open config file: %w", err)
	}
	defer f.Close()
	var words []string
	sc := bufio.NewScanner(f)
	pending := ""
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		line = pending + line
		pending = ""
		if strings.HasSuffix(line, "\\") {
			pending = strings.TrimSuffix(line, "\\") + " "
			continue
		}
		if fields := strings.Fields(line); len(fields) > 0 {
			if len(words) > 0 {
				words = append(words, ":")
			}
			words = append(words, fields...)
		}
	}
	if pending != "" {
		if fields := strings.Fields(pending); len(fields) > 0 {
			if len(words) > 0 {
				words = append(words, ":")
			}
			words = append(words, fields...)
		}
	}
	return words, sc.Err()
}

// Run is mpiexec.
func (m *MPIExec) Run(ctx context.Context, env *Env) error {
	args := m.args()
	g, local, err := parseGlobal(args)
	if err != nil {
		return err
	}
	if len(args) == 0 || g.help {
		msg.Show(env.Stderr, "mpiexec", "usage") // exit 0, as LAM's
		return nil
	}
	// mpiexec's tool is RootOK: it checks root here, once its global
	// options (which may allow it) are read.
	if g.allowRoot {
		env.allowRoot()
	}
	if err := env.checkRoot(); err != nil {
		return err
	}
	if g.configfile != "" {
		if len(local) > 0 {
			return Usagef("give -configfile or app contexts on the command line, not both")
		}
		if local, err = readConfigFile(g.configfile); err != nil {
			return err
		}
	}
	if len(local) == 0 {
		return Usage()
	}
	contexts, err := parseContexts(local)
	if err != nil {
		return err
	}
	say := func(format string, a ...any) {
		if g.verbose || g.debug {
			fmt.Fprintf(env.Stdout, "mpiexec: "+format+"\n", a...)
		}
	}
	bindir := env.Paths.Bindir
	if g.prefix != "" {
		bindir = filepath.Join(g.prefix, "bin")
	}
	if g.boot {
		say("Booting lam..")
		bootArgs := []string{}
		if !g.verbose && !g.debug {
			bootArgs = append(bootArgs, "-H")
		}
		if g.verbose {
			bootArgs = append(bootArgs, "-v")
		}
		if g.debug {
			bootArgs = append(bootArgs, "-d")
		}
		bootArgs = append(bootArgs, g.bootArgs...)
		for _, a := range g.ssi {
			bootArgs = append(bootArgs, "-ssi", a.Key, a.Value)
		}
		if g.prefix != "" {
			bootArgs = append(bootArgs, "-prefix", g.prefix)
		}
		if g.machinefile != "" {
			bootArgs = append(bootArgs, g.machinefile)
		}
		if err := runTool(ctx, env, bindir, "lamboot", bootArgs...); err != nil {
			return err
		}
		say("Lamboot Complete")
		defer func() {
			say("Performing Lamhalt")
			halt(env, bindir, g, say)
		}()
	}
	run := &MPIRunOptions{StatusPrefix: "mpirun:", TotalView: g.tv}
	run.Verbose = g.verbose
	lines, err := mpiexecLines(ctx, env, contexts)
	if err != nil {
		return err
	}
	say("Launching MPI programs")
	err = run.RunLines(ctx, env, lines)
	say("MPI program execution over..")
	return err
}

// mpiexecLines turns the app contexts into app schema lines: -host and
// -arch become where specifications, -n becomes -np, -wdir -wd, -soft
// the largest count it allows that the universe's CPUs hold, -path the
// directory of the program.
func mpiexecLines(ctx context.Context, env *Env, contexts []mpiexecLocal) ([]appschema.Line, error) {
	var table *wire.Nodes
	nodes := func() (*wire.Nodes, error) {
		if table != nil {
			return table, nil
		}
		cl, t, err := env.DaemonNodes(ctx, "", "")
		if err != nil {
			return nil, err
		}
		cl.Close()
		table = t
		return t, nil
	}
	var lines []appschema.Line
	for i, c := range contexts {
		var tokens []string
		if c.host != "" {
			t, err := nodes()
			if err != nil {
				return nil, err
			}
			id, ok := hostNode(t, c.host)
			if !ok {
				return nil, Exit(1, fmt.Errorf("Invalid hostname %s specified", c.host))
			}
			tokens = append(tokens, fmt.Sprintf("n%d", id))
		}
		if c.arch != "" {
			re, err := regexp.Compile(c.arch)
			if err != nil {
				return nil, Usagef("-arch %s: %v", c.arch, err)
			}
			// The universe runs one build of LAM/Go (mpirun -O): every
			// node has this node's architecture.
			if !re.MatchString(buildinfo.Arch()) {
				return nil, Exit(1, fmt.Errorf("mpiexec didnt find any node with -arch = %s", c.arch))
			}
			tokens = append(tokens, "N")
		}
		np := c.n
		if c.soft != "" {
			t, err := nodes()
			if err != nil {
				return nil, err
			}
			n, err := softCount(c.soft, cpus(t))
			if err != nil {
				return nil, Usagef("-soft %s: %v", c.soft, err)
			}
			if np == "" {
				np = strconv.Itoa(n)
			}
		}
		if np != "" {
			tokens = append(tokens, "-np", np)
		}
		if c.wdir != "" {
			tokens = append(tokens, "-wd", c.wdir)
		}
		if c.file != "" {
			fmt.Fprintf(env.Stdout, "Warning!!! \"-file %s\" was ignored by mpiexec\n", c.file)
		}
		tokens = append(tokens, c.rest...)
		l, err := appschema.ParseLine(tokens)
		if err != nil {
			return nil, Usagef("app context %d: %v", i+1, err)
		}
		if c.path != "" && !strings.Contains(l.Program, "/") {
			for _, dir := range filepath.SplitList(c.path) {
				p := filepath.Join(dir, l.Program)
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
					l.Program = p
					break
				}
			}
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// hostNode finds the node of a host name (as the boot schema gave it, its
// short form, or its address).
func hostNode(t *wire.Nodes, host string) (int32, bool) {
	short := func(h string) string { s, _, _ := strings.Cut(h, "."); return s }
	for _, n := range t.Nodes {
		if n.Flags&wire.NodeDead == 0 && (n.Host == host || n.Addr == host || short(n.Host) == short(host)) {
			return n.ID, true
		}
	}
	return 0, false
}

// cpus counts the CPUs of the schedulable nodes (what C spans).
func cpus(t *wire.Nodes) int {
	total := 0
	for _, n := range t.Nodes {
		if n.Flags&(wire.NodeDead|wire.NodeNoSchedule) == 0 {
			total += max(int(n.CPUs), 1)
		}
	}
	return total
}

// softCount reads an MPI-2 soft count — comma-separated items, each "a",
// "a:b" or "a:b:s" (a to b in steps of s) — and returns the largest
// count it allows that is at most avail, or else the smallest it allows.
func softCount(spec string, avail int) (int, error) {
	best, least := 0, 0
	for _, item := range strings.Split(spec, ",") {
		parts := strings.Split(item, ":")
		if len(parts) > 3 {
			return 0, fmt.Errorf("%q is not a, a:b or a:b:s", item)
		}
		nums := make([]int, len(parts))
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("%q is not a positive count", p)
			}
			nums[i] = n
		}
		lo, hi, step := nums[0], nums[0], 1
		if len(nums) > 1 {
			hi = nums[1]
		}
		if len(nums) > 2 {
			step = nums[2]
		}
		if hi < lo {
			return 0, fmt.Errorf("%q runs backwards", item)
		}
		if least == 0 || lo < least {
			least = lo
		}
		if lo <= avail {
			n := lo + (min(hi, avail)-lo)/step*step
			best = max(best, n)
		}
	}
	if best == 0 {
		return least, nil
	}
	return best, nil
}

// runTool runs one of LAM/Go's tools (lamboot, lamhalt, lamwipe) from
// bindir, with the caller's streams and environment; its failure is
// mpiexec's, as LAM's "lamboot failed with exit status N".
func runTool(ctx context.Context, env *Env, bindir, name string, args ...string) error {
	path := filepath.Join(bindir, name)
	if bindir == "" {
		path = name
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Environ, nil, env.Stdout, env.Stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return Exit(ee.ExitCode(), fmt.Errorf("%s failed with exit status %d", name, ee.ExitCode()))
	}
	return fmt.Errorf("%s: %w", name, err)
}

// halt stops the universe mpiexec booted: lamhalt, and lamwipe if lamhalt
// does not finish within mpiexecHaltTimeout. It runs even when the job
// was interrupted.
func halt(env *Env, bindir string, g mpiexecGlobal, say func(string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), mpiexecHaltTimeout)
	defer cancel()
	flags := []string{"-H"}
	if g.verbose {
		flags = []string{"-v"}
	}
	if err := runTool(ctx, env, bindir, "lamhalt", flags...); err == nil {
		say("Lamhalt complete")
		return
	} else if ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "mpiexec: %v\n", err)
	}
	say("Lamhalt operation timedout .. trying lamwipe")
	wctx, wcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer wcancel()
	wipe := append([]string{}, flags...)
	if g.machinefile != "" {
		wipe = append(wipe, g.machinefile)
	}
	if err := runTool(wctx, env, bindir, "lamwipe", wipe...); err != nil {
		fmt.Fprintf(env.Stderr, "mpiexec: %v\n", err)
		return
	}
	say("lamwipe completed")
}
