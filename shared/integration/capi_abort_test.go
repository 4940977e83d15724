package integration

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCAbort: a C program's MPI_Abort is mpirun's exit status, and an
// error under MPI_ERRORS_ARE_FATAL ends the job with LAM's message and
// the error class as the status; neither loses what the program printed.
func TestCAbort(t *testing.T) {
	needPgrep(t)
	exe := compileC(t, filepath.Join(repoRoot(), "libmpi", "capi", "testdata", "abort", "abort.c"))
	ctx, l := bootLocal(t, 4*time.Minute)
	tests := []struct {
		args         []string
		code         int
		stderr       []string // regexps
		notInStdout  string
		stdoutBefore string
	}{
		{[]string{"-np", "3", exe, "abort", "7"}, 7, []string{`rank 1 called MPI_Abort`}, "not reached", "rank 1 before"},
		{[]string{"-np", "2", exe, "abort", "0"}, 1, []string{`rank 1 called MPI_Abort`}, "not reached", "rank 1 before"},
		{[]string{"-np", "2", exe, "fatal"}, 6, []string{
			`(?m)^MPI_Send: invalid rank: .* \(rank 1, MPI_COMM_WORLD\)$`,
			`(?m)^Rank \(1, MPI_COMM_WORLD\): Call stack within LAM:$`,
			`(?m)^Rank \(1, MPI_COMM_WORLD\):  - MPI_Send\(\)$`,
			`(?m)^Rank \(1, MPI_COMM_WORLD\):  - main\(\)$`,
			`rank 1 called MPI_Abort`,
		}, "not reached", "rank 1 before"},
	}
	for _, rpi := range []string{"usysv", "tcp"} {
		for _, tt := range tests {
			args := append([]string{"-ssi", "rpi", rpi}, tt.args...)
			r := l.run(ctx, "mpirun", args...)
			if r.code != tt.code {
				t.Errorf("mpirun %s: exit %d, want %d\n%v", strings.Join(args, " "), r.code, tt.code, r)
			}
			for _, re := range tt.stderr {
				if !regexp.MustCompile(re).MatchString(r.stderr) {
					t.Errorf("mpirun %s: stderr lacks %q\n%v", strings.Join(args, " "), re, r)
				}
			}
			if !strings.Contains(r.stdout, tt.stdoutBefore) || strings.Contains(r.stdout, tt.notInStdout) {
				t.Errorf("mpirun %s: stdout %q, want %q and not %q", strings.Join(args, " "), r.stdout, tt.stdoutBefore, tt.notInStdout)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-f", "^"+exe).Output()
		if len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left behind: %s", out)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}
