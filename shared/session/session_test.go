package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/testenv"
	"golang.org/x/sys/unix"
)

// envOf returns a Getenv over m only (nothing from the real environment).
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func mkdir(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(path, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func lstatT(t *testing.T, path string) unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// resolveIn resolves a session directory for user u, host h in prefix.
func resolveIn(t *testing.T, prefix string) Dir {
	t.Helper()
	d, err := Resolve(Options{Prefix: prefix, User: "u", Host: "h", Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestResolveNaming(t *testing.T) {
	root := t.TempDir()
	opt, envp, tmpd := filepath.Join(root, "opt"), filepath.Join(root, "envprefix"), filepath.Join(root, "tmpdir")
	for _, p := range []string{opt, envp, tmpd} {
		mkdir(t, p, 0o755)
	}
	haveTmp := false
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		haveTmp = true
	}

	tests := []struct {
		name       string
		opts       Options
		env        map[string]string
		wantPrefix string // "" = skip check
		wantSuffix string
	}{
		// Prefix precedence.
		{name: "default prefix", wantPrefix: "/tmp"},
		{name: "TMPDIR", env: map[string]string{"TMPDIR": tmpd}, wantPrefix: tmpd},
		{name: "env prefix beats TMPDIR", env: map[string]string{"TMPDIR": tmpd, EnvPrefix: envp}, wantPrefix: envp},
		{name: "option beats env prefix", opts: Options{Prefix: opt}, env: map[string]string{"TMPDIR": tmpd, EnvPrefix: envp}, wantPrefix: opt},
		{name: "prefix is cleaned", opts: Options{Prefix: opt + "//./"}, wantPrefix: opt},

		// Suffix precedence.
		{name: "no suffix", opts: Options{Prefix: opt}, wantPrefix: opt},
		{name: "option suffix", opts: Options{Prefix: opt, Suffix: "s"}, env: map[string]string{
			EnvSuffix: "e", EnvSocketSuffix: "k", "SLURM_JOBID": "9"}, wantSuffix: "s"},
		{name: "env suffix", opts: Options{Prefix: opt}, env: map[string]string{
			EnvSuffix: "e", EnvSocketSuffix: "k", "SLURM_JOBID": "9"}, wantSuffix: "e"},
		{name: "socket suffix (deprecated)", opts: Options{Prefix: opt}, env: map[string]string{
			EnvSocketSuffix: "k", "SLURM_JOBID": "9"}, wantSuffix: "k"},
		{name: "env suffix beats batch", opts: Options{Prefix: opt}, env: map[string]string{
			EnvSuffix: "e", "PBS_ENVIRONMENT": "PBS_BATCH", "PBS_JOBID": "1"}, wantSuffix: "e"},

		// Batch systems.
		{name: "pbs", opts: Options{Prefix: opt}, env: map[string]string{
			"PBS_ENVIRONMENT": "PBS_BATCH", "PBS_JOBID": "123.server.example"}, wantSuffix: "pbs-123.server.example"},
		{name: "pbs jobid without PBS_ENVIRONMENT", opts: Options{Prefix: opt}, env: map[string]string{
			"PBS_JOBID": "123"}},
		{name: "pbs environment without jobid falls through", opts: Options{Prefix: opt}, env: map[string]string{
			"PBS_ENVIRONMENT": "PBS_BATCH", "SLURM_JOBID": "77"}, wantSuffix: "slurm-77"},
		{name: "pbs beats slurm, lsf, sge", opts: Options{Prefix: opt}, env: map[string]string{
			"PBS_ENVIRONMENT": "PBS_INTERACTIVE", "PBS_JOBID": "5", "SLURM_JOBID": "77",
			"LSB_JOBID": "3", "LSB_JOBINDEX": "0", "SGE_ROOT": "/sge", "JOB_ID": "8"}, wantSuffix: "pbs-5"},
		{name: "slurm", opts: Options{Prefix: opt}, env: map[string]string{"SLURM_JOBID": "4711"}, wantSuffix: "slurm-4711"},
		{name: "slurm beats lsf and sge", opts: Options{Prefix: opt}, env: map[string]string{
			"SLURM_JOBID": "77", "LSB_JOBID": "3", "LSB_JOBINDEX": "0", "SGE_ROOT": "/sge", "JOB_ID": "8"}, wantSuffix: "slurm-77"},
		{name: "lsf", opts: Options{Prefix: opt}, env: map[string]string{"LSB_JOBID": "3", "LSB_JOBINDEX": "0"}, wantSuffix: "lsf-3-0"},
		{name: "lsf array", opts: Options{Prefix: opt}, env: map[string]string{"LSB_JOBID": "3", "LSB_JOBINDEX": "12"}, wantSuffix: "lsf-3-12"},
		{name: "lsf without LSB_JOBINDEX is not lsf (LAM 7.1.4)", opts: Options{Prefix: opt}, env: map[string]string{
			"LSB_JOBID": "3"}},
		{name: "lsf without LSB_JOBINDEX falls through to sge", opts: Options{Prefix: opt}, env: map[string]string{
			"LSB_JOBID": "3", "SGE_ROOT": "/sge", "JOB_ID": "8", "SGE_TASK_ID": "2"}, wantSuffix: "sge-8-2"},
		{name: "lsf beats sge", opts: Options{Prefix: opt}, env: map[string]string{
			"LSB_JOBID": "3", "LSB_JOBINDEX": "1", "SGE_ROOT": "/sge", "JOB_ID": "8"}, wantSuffix: "lsf-3-1"},
		{name: "sge", opts: Options{Prefix: opt}, env: map[string]string{
			"SGE_ROOT": "/sge", "JOB_ID": "8", "SGE_TASK_ID": "2"}, wantSuffix: "sge-8-2"},
		{name: "sge without task id", opts: Options{Prefix: opt}, env: map[string]string{
			"SGE_ROOT": "/sge", "JOB_ID": "8"}, wantSuffix: "sge-8-undefined"},
		{name: "sge JOB_ID without SGE_ROOT", opts: Options{Prefix: opt}, env: map[string]string{"JOB_ID": "8"}},
		{name: "sge SGE_ROOT without JOB_ID", opts: Options{Prefix: opt}, env: map[string]string{"SGE_ROOT": "/sge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantPrefix == "/tmp" && !haveTmp {
				t.Skip("no /tmp directory")
			}
			o := tt.opts
			o.User, o.Host, o.Getenv = "alice", "node1", envOf(tt.env)
			d, err := Resolve(o)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if tt.wantPrefix != "" && d.Prefix != tt.wantPrefix {
				t.Errorf("Prefix = %q, want %q", d.Prefix, tt.wantPrefix)
			}
			if d.Suffix != tt.wantSuffix {
				t.Errorf("Suffix = %q, want %q", d.Suffix, tt.wantSuffix)
			}
			want := "lam-alice@node1"
			if tt.wantSuffix != "" {
				want += "-" + tt.wantSuffix
			}
			if got := filepath.Base(d.Path); got != want {
				t.Errorf("base = %q, want %q", got, want)
			}
			if d.Path != d.Prefix+"/"+want {
				t.Errorf("Path = %q, want %q", d.Path, d.Prefix+"/"+want)
			}
			if d.User != "alice" || d.Host != "node1" {
				t.Errorf("User, Host = %q, %q", d.User, d.Host)
			}
			var wantEnv []string
			if tt.wantSuffix != "" {
				wantEnv = []string{"LAM_MPI_SESSION_SUFFIX=" + tt.wantSuffix}
			}
			if got := d.Env(); !reflect.DeepEqual(got, wantEnv) {
				t.Errorf("Env() = %q, want %q", got, wantEnv)
			}
		})
	}
}

func TestResolveDefaults(t *testing.T) {
	prefix := t.TempDir()
	d, err := Resolve(Options{Prefix: prefix, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if d.Host != host {
		t.Errorf("Host = %q, want %q", d.Host, host)
	}
	if d.User != currentUser() || d.User == "" {
		t.Errorf("User = %q, want %q", d.User, currentUser())
	}
	if want := filepath.Join(prefix, "lam-"+d.User+"@"+host); d.Path != want {
		t.Errorf("Path = %q, want %q", d.Path, want)
	}

	// A relative prefix is made absolute.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	d, err = Resolve(Options{Prefix: ".", User: "u", Host: "h", Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Prefix != wd {
		t.Errorf("Prefix = %q, want %q", d.Prefix, wd)
	}

	// nil Getenv reads the process environment.
	t.Setenv(EnvSuffix, "fromenv")
	d, err = Resolve(Options{Prefix: prefix, User: "u", Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Suffix != "fromenv" {
		t.Errorf("Suffix = %q, want fromenv", d.Suffix)
	}
}

func TestResolveErrors(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		env     map[string]string
		want    error
		wantMsg string
	}{
		{name: "prefix missing", opts: Options{Prefix: filepath.Join(root, "nope")}, want: fs.ErrNotExist, wantMsg: "does not exist"},
		{name: "env prefix missing", env: map[string]string{EnvPrefix: filepath.Join(root, "nope")}, want: fs.ErrNotExist},
		{name: "TMPDIR missing", env: map[string]string{"TMPDIR": filepath.Join(root, "nope")}, want: fs.ErrNotExist},
		{name: "prefix is a file", opts: Options{Prefix: file}, want: ErrNotDir, wantMsg: "regular file"},
		{name: "prefix with NUL", opts: Options{Prefix: root + "\x00x"}, want: ErrBadName},

		{name: "suffix with slash", opts: Options{Prefix: root, Suffix: "../../etc"}, want: ErrBadName, wantMsg: "session suffix"},
		{name: "suffix with NUL", opts: Options{Prefix: root, Suffix: "a\x00b"}, want: ErrBadName},
		{name: "suffix dot", opts: Options{Prefix: root, Suffix: "."}, want: ErrBadName},
		{name: "suffix dotdot", opts: Options{Prefix: root, Suffix: ".."}, want: ErrBadName},
		{name: "env suffix with slash", opts: Options{Prefix: root}, env: map[string]string{EnvSuffix: "x/y"}, want: ErrBadName},
		{name: "socket suffix with slash", opts: Options{Prefix: root}, env: map[string]string{EnvSocketSuffix: "/x"}, want: ErrBadName},
		{name: "batch id with slash", opts: Options{Prefix: root}, env: map[string]string{"SLURM_JOBID": "1/../../x"}, want: ErrBadName},
		{name: "user with slash", opts: Options{Prefix: root, User: "a/b"}, want: ErrBadName, wantMsg: "user name"},
		{name: "user dotdot", opts: Options{Prefix: root, User: ".."}, want: ErrBadName},
		{name: "user dot", opts: Options{Prefix: root, User: "."}, want: ErrBadName},
		{name: "user NUL", opts: Options{Prefix: root, User: "\x00"}, want: ErrBadName},
		{name: "host with slash", opts: Options{Prefix: root, Host: "h/x"}, want: ErrBadName, wantMsg: "host name"},
		{name: "host dotdot", opts: Options{Prefix: root, Host: ".."}, want: ErrBadName},
		{name: "host NUL", opts: Options{Prefix: root, Host: "h\x00"}, want: ErrBadName},
		{name: "name too long", opts: Options{Prefix: root, Suffix: strings.Repeat("s", 250)}, want: ErrBadName, wantMsg: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			if o.User == "" {
				o.User = "u"
			}
			if o.Host == "" {
				o.Host = "h"
			}
			o.Getenv = envOf(tt.env)
			d, err := Resolve(o)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Resolve = %+v, %v; want error %v", d, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestBatchIDNilGetenv(t *testing.T) {
	for _, k := range []string{"PBS_ENVIRONMENT", "PBS_JOBID", "LSB_JOBID", "LSB_JOBINDEX", "SGE_ROOT", "JOB_ID", "SGE_TASK_ID"} {
		t.Setenv(k, "")
	}
	t.Setenv("SLURM_JOBID", "42")
	if got := BatchID(nil); got != "slurm-42" {
		t.Errorf("BatchID(nil) = %q, want slurm-42", got)
	}
}

func TestFileNames(t *testing.T) {
	d := resolveIn(t, t.TempDir())
	for _, c := range []struct{ got, want string }{
		{d.Socket(), d.Path + "/lam-kernel-socket"},
		{d.IOSocket(), d.Path + "/lam-io-socket"},
		{d.KillFile(), d.Path + "/lam-killfile"},
		{d.File("lam-ssi.txt"), d.Path + "/lam-ssi.txt"},
		{d.File("lam-12-stdin"), d.Path + "/lam-12-stdin"},
		{d.String(), d.Path},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", "/abs", "x/..", "a..b", "a\x00b"} {
		if got := d.File(bad); got != "" {
			t.Errorf("File(%q) = %q, want \"\"", bad, got)
		}
	}
}

func TestSocketPathOK(t *testing.T) {
	short := resolveIn(t, t.TempDir())
	if err := short.SocketPathOK(); err != nil {
		t.Errorf("short path %s: %v", short.Socket(), err)
	}

	long := filepath.Join(t.TempDir(), strings.Repeat("p", 100))
	mkdir(t, long, 0o700)
	d := resolveIn(t, long)
	err := d.SocketPathOK()
	if !errors.Is(err, ErrSocketPathTooLong) {
		t.Fatalf("SocketPathOK(%d bytes) = %v, want ErrSocketPathTooLong", len(d.Socket()), err)
	}
	if !strings.Contains(err.Error(), d.Socket()) {
		t.Errorf("error %q does not name the socket", err)
	}

	// The boundary: exactly MaxSocketPath bytes fits, one more does not.
	base := t.TempDir()
	fixed := len(base) + len("/") + len("/lam-u@h/lam-kernel-socket")
	for _, extra := range []int{0, 1} {
		n := MaxSocketPath - fixed + extra
		if n < 1 {
			t.Skipf("temp dir %s too long for the boundary test", base)
		}
		p := filepath.Join(base, strings.Repeat("q", n))
		mkdir(t, p, 0o700)
		d := resolveIn(t, p)
		err := d.SocketPathOK()
		if l := len(d.Socket()); l != MaxSocketPath+extra {
			t.Fatalf("socket path is %d bytes, want %d", l, MaxSocketPath+extra)
		}
		if (err != nil) != (extra == 1) {
			t.Errorf("%d bytes: SocketPathOK = %v", len(d.Socket()), err)
		}
	}
}

func TestCreateFresh(t *testing.T) {
	for _, mask := range []int{0, 0o022, 0o077, 0o277} {
		t.Run("umask "+strconv.FormatInt(int64(mask), 8), func(t *testing.T) {
			d := resolveIn(t, t.TempDir())
			old := unix.Umask(mask)
			err := d.Create()
			unix.Umask(old)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			st := lstatT(t, d.Path)
			if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o7777 != 0o700 {
				t.Errorf("mode = %o, want directory 0700", st.Mode)
			}
			if int(st.Uid) != os.Geteuid() {
				t.Errorf("uid = %d, want %d", st.Uid, os.Geteuid())
			}
			// Idempotent, and Check agrees.
			if err := d.Create(); err != nil {
				t.Errorf("second Create: %v", err)
			}
			if err := d.Check(); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

func TestCreateClearsInheritedSetgid(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "sgid")
	mkdir(t, prefix, os.ModeSetgid|0o777)
	if lstatT(t, prefix).Mode&unix.S_ISGID == 0 {
		t.Skip("file system does not keep the setgid bit on directories")
	}
	d := resolveIn(t, prefix)
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if m := lstatT(t, d.Path).Mode & 0o7777; m != 0o700 {
		t.Errorf("mode = %o, want 0700", m)
	}
}

func TestExistingOwnDirRepaired(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o777, 0o500, 0o700 | os.ModeSticky} {
		for _, op := range []string{"Create", "Check"} {
			t.Run(op+" "+mode.String(), func(t *testing.T) {
				d := resolveIn(t, t.TempDir())
				mkdir(t, d.Path, 0o700)
				if err := os.WriteFile(d.File("keep"), []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(d.Path, mode); err != nil {
					t.Fatal(err)
				}
				var err error
				if op == "Create" {
					err = d.Create()
				} else {
					err = d.Check()
				}
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if m := lstatT(t, d.Path).Mode & 0o7777; m != 0o700 {
					t.Errorf("mode = %o, want 0700", m)
				}
				if b, err := os.ReadFile(d.File("keep")); err != nil || string(b) != "x" {
					t.Errorf("contents changed: %q, %v", b, err)
				}
			})
		}
	}
}

func TestCheckMissing(t *testing.T) {
	d := resolveIn(t, t.TempDir())
	err := d.Check()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Check = %v, want fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), d.Path) {
		t.Errorf("error %q does not name the path", err)
	}
	if _, err := os.Lstat(d.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check created %s", d.Path)
	}
}

// dirOps are the operations that must refuse what is not their directory.
var dirOps = []struct {
	name string
	do   func(Dir) error
}{
	{"Create", Dir.Create},
	{"Check", Dir.Check},
	{"Remove", Dir.Remove},
	{"RemoveStale", func(d Dir) error { _, err := d.RemoveStale(context.Background()); return err }},
}

// TestNotDirRefused puts various non-directories where the session
// directory belongs: every operation must refuse with ErrNotDir and leave
// both the object and anything it points to untouched.
func TestNotDirRefused(t *testing.T) {
	setups := []struct {
		name  string
		kind  string // expected word in the message
		setup func(t *testing.T, path, outside string)
	}{
		{"symlink to dir", "symbolic link", func(t *testing.T, path, outside string) {
			mkdir(t, outside, 0o755)
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink to file", "symbolic link", func(t *testing.T, path, outside string) {
			if err := os.WriteFile(outside, []byte("target"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling symlink", "symbolic link", func(t *testing.T, path, outside string) {
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"regular file", "regular file", func(t *testing.T, path, _ string) {
			if err := os.WriteFile(path, []byte("file"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", "named pipe", func(t *testing.T, path, _ string) {
			if err := unix.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, s := range setups {
		for _, op := range dirOps {
			t.Run(s.name+"/"+op.name, func(t *testing.T) {
				root := t.TempDir()
				d := resolveIn(t, root)
				outside := filepath.Join(root, "outside")
				s.setup(t, d.Path, outside)
				before := lstatT(t, d.Path)
				var outBefore unix.Stat_t
				outErr := unix.Lstat(outside, &outBefore)

				err := op.do(d)
				if !errors.Is(err, ErrNotDir) {
					t.Fatalf("%s = %v, want ErrNotDir", op.name, err)
				}
				if !strings.Contains(err.Error(), d.Path) || !strings.Contains(err.Error(), s.kind) {
					t.Errorf("error %q should name %s and say %q", err, d.Path, s.kind)
				}

				after := lstatT(t, d.Path)
				if after.Ino != before.Ino || after.Mode != before.Mode || after.Uid != before.Uid {
					t.Errorf("object at the path changed: %+v -> %+v", before, after)
				}
				var outAfter unix.Stat_t
				if e := unix.Lstat(outside, &outAfter); (e == nil) != (outErr == nil) ||
					(e == nil && (outAfter.Ino != outBefore.Ino || outAfter.Mode != outBefore.Mode || outAfter.Ctim != outBefore.Ctim)) {
					t.Errorf("link target changed: %+v (%v) -> %+v (%v)", outBefore, outErr, outAfter, e)
				}
				if s.name == "symlink to file" {
					if b, _ := os.ReadFile(outside); string(b) != "target" {
						t.Errorf("link target contents = %q", b)
					}
				}
			})
		}
	}
}

func TestOtherOwnerRefused(t *testing.T) {
	testenv.RequireRoot(t)
	const nobody = 65534
	for _, op := range dirOps {
		t.Run(op.name, func(t *testing.T) {
			d := resolveIn(t, t.TempDir())
			mkdir(t, d.Path, 0o755)
			if err := os.WriteFile(d.File("theirs"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(d.Path, nobody, nobody); err != nil {
				t.Fatal(err)
			}
			before := lstatT(t, d.Path)

			err := op.do(d)
			if !errors.Is(err, ErrNotOwner) {
				t.Fatalf("%s = %v, want ErrNotOwner", op.name, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, d.Path) || !strings.Contains(msg, "uid 65534") {
				t.Errorf("error %q should name the path and the owner uid", msg)
			}
			after := lstatT(t, d.Path)
			if after.Mode != before.Mode || after.Uid != nobody || after.Gid != nobody || after.Ino != before.Ino {
				t.Errorf("directory modified: %+v -> %+v", before, after)
			}
			if b, err := os.ReadFile(d.File("theirs")); err != nil || string(b) != "x" {
				t.Errorf("contents modified: %q, %v", b, err)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	root := t.TempDir()
	d := resolveIn(t, root)

	// Missing: nil.
	if err := d.Remove(); err != nil {
		t.Fatalf("Remove of missing dir: %v", err)
	}

	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	// Contents: files, a nested tree, a read-only subdirectory and
	// symbolic links pointing outside, which must not be followed.
	outsideDir := filepath.Join(root, "outside-dir")
	mkdir(t, outsideDir, 0o755)
	outsideFile := filepath.Join(outsideDir, "precious")
	if err := os.WriteFile(outsideFile, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lam-killfile", "lam-12-stdin", "sub/a", "sub/deeper/b"} {
		p := filepath.Join(d.Path, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outsideDir, d.File("link-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideFile, filepath.Join(d.Path, "sub", "link-file")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(d.File("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	mkdir(t, d.File("ro"), 0o500)

	if err := d.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Lstat(d.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still exists (%v)", d.Path, err)
	}
	if b, err := os.ReadFile(outsideFile); err != nil || string(b) != "keep" {
		t.Errorf("symlink target damaged: %q, %v", b, err)
	}
	// Again: already gone.
	if err := d.Remove(); err != nil {
		t.Errorf("second Remove: %v", err)
	}
	// Prefix gone too.
	gone := Dir{Path: "/nonexistent-lam-test/lam-u@h", Prefix: "/nonexistent-lam-test"}
	if err := gone.Remove(); err != nil {
		t.Errorf("Remove with missing prefix: %v", err)
	}
}

func TestMalformedDir(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim")
	mkdir(t, victim, 0o700)
	for _, d := range []Dir{
		{},
		{Path: victim, Prefix: root},             // not lam-*
		{Path: root, Prefix: filepath.Dir(root)}, // not lam-*
		{Path: filepath.Join(root, "lam-x"), Prefix: "rel"},     // relative prefix
		{Path: filepath.Join(root, "a", "lam-x"), Prefix: root}, // not directly inside
		{Path: "/", Prefix: "/"},
	} {
		for name, op := range map[string]func(Dir) error{"Create": Dir.Create, "Check": Dir.Check, "Remove": Dir.Remove} {
			if err := op(d); !errors.Is(err, ErrBadName) {
				t.Errorf("%s(%+v) = %v, want ErrBadName", name, d, err)
			}
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("victim damaged: %v", err)
	}
}

// FuzzResolve checks that whatever the user, host and suffix, Resolve
// either fails or names an entry directly inside the prefix.
func FuzzResolve(f *testing.F) {
	for _, s := range [][3]string{
		{"s", "u", "h"},
		{"", "", ""},
		{"..", "u", "h"},
		{"../../etc", "u", "h"},
		{"x", "..", "h"},
		{"x", "u", "."},
		{"a/b", "c/d", "e/f"},
		{"\x00", "u", "h"},
		{"/", "/", "/"},
		{"...", "..u", "h.."},
		{strings.Repeat("x", 300), "u", "h"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	prefix := f.TempDir()
	f.Fuzz(func(t *testing.T, suffix, usr, host string) {
		d, err := Resolve(Options{Prefix: prefix, Suffix: suffix, User: usr, Host: host, Getenv: envOf(nil)})
		if err != nil {
			return
		}
		if d.Prefix != prefix {
			t.Fatalf("Prefix = %q, want %q", d.Prefix, prefix)
		}
		if filepath.Dir(d.Path) != d.Prefix {
			t.Fatalf("Path %q escapes prefix %q", d.Path, d.Prefix)
		}
		base := filepath.Base(d.Path)
		if !strings.HasPrefix(base, "lam-") || base == "." || base == ".." || strings.ContainsAny(base, "/\x00") {
			t.Fatalf("bad entry name %q", base)
		}
		if filepath.Dir(d.Socket()) != d.Path {
			t.Fatalf("Socket %q not inside %q", d.Socket(), d.Path)
		}
	})
}
