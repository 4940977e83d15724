// Package crset is the layout of checkpoint sets on disk: where mpirun
// keeps them, how one set is written so that it is complete or absent,
// the job description beside the ranks' files, numbering and retention.
//
// A job's sets live in one directory, <base>/<job>, one numbered
// directory per checkpoint:
//
//	<base>/<job>/ckpt-1/job.json      the job description (Desc)
//	<base>/<job>/ckpt-1/rank-0.ckpt   each rank's state (jobwire.RankFile)
//	<base>/<job>/ckpt-2/...
//
// A set is made in a hidden temporary directory (".partial-ckpt-N-*")
// beside its final place; once every rank's file and the description are
// written and synced, the directory is synced and renamed to ckpt-N, and
// the job's directory is synced. So a directory named ckpt-N is a
// complete set; a partial one is removed when the checkpoint fails, and
// one left by a crash is never taken for a set.
package crset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
)

// Format is the version of the layout and of the description; a set of
// another version is refused.
const Format = 1

// DescFile is the job description's name in a set.
const DescFile = "job.json"

// setPrefix begins every complete set's name; partialPrefix a set being
// written.
const (
	setPrefix     = "ckpt-"
	partialPrefix = ".partial-" + setPrefix
	discardPrefix = ".discard" // before a discarded partial set's name, while it is removed
)

// maxDesc bounds a description read back (its lines, ranks and
// environment), so a damaged or hostile file cannot exhaust memory.
const maxDesc = 64 << 20

// Desc is the job description a set holds: what crrestart needs to start
// the job again (its programs, arguments, working directories,
// environment and SSI parameters, its size) and what it was (placement,
// rpi, number, time).
type Desc struct {
	Format int       `json:"format"`
	Seq    int       `json:"seq"`   // the checkpoint's number in its job, from 1
	Time   time.Time `json:"time"`  // when the set was completed
	Job    string    `json:"job"`   // the job's id: <node>:<mpirun pid>
	World  int       `json:"world"` // MPI_COMM_WORLD's size
	RPI    string    `json:"rpi"`   // the rpi module the ranks chose ("crtcp 7.1.0")
	// Wd is mpirun's working directory (its -wd if given) and ProgDir
	// its -D: the defaults of lines that name no directory.
	Wd      string `json:"wd,omitempty"`
	ProgDir bool   `json:"progdir,omitempty"`
	// SSI holds the SSI parameters mpirun was given (-ssi), in order, as
	// key=value.
	SSI []string `json:"ssi,omitempty"`
	// Env is the environment mpirun gave every rank beyond its own
	// per-rank variables: the exported LAM_MPI_* (LAM_MPI_SSI_* among
	// them) and the tracing switch.
	Env []string `json:"env,omitempty"`
	// Apps are the job's lines (the app schema), in order.
	Apps []App `json:"apps"`
	// Ranks are where each rank ran and its file, by rank.
	Ranks []Rank `json:"ranks"`
}

// App is one line of the job.
type App struct {
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	Wd      string   `json:"wd,omitempty"`    // the line's -wd
	Where   []string `json:"where,omitempty"` // its where specifications as written
	Source  string   `json:"source,omitempty"`
	// Export is the line's -x items as passed: NAME=value.
	Export []string `json:"export,omitempty"`
	NP     int      `json:"np"` // how many ranks it started
}

// Rank is one rank of the job.
type Rank struct {
	Rank  int    `json:"rank"`
	App   int    `json:"app"` // index in Apps
	Node  int32  `json:"node"`
	PID   int32  `json:"pid"`
	Bytes int64  `json:"bytes"` // its file's size
	File  string `json:"file"`  // its file's name in the set
}

// Encode returns the description as written in a set.
func (d *Desc) Encode() ([]byte, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode reads a description, refusing another format version and
// checking that it describes a job crrestart can start.
func Decode(b []byte) (*Desc, error) {
	if len(b) > maxDesc {
		return nil, fmt.Errorf("job description larger than %d bytes", maxDesc)
	}
	var probe struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("job description: %w", err)
	}
	if probe.Format == nil {
		return nil, errors.New("job description: no format version")
	}
	if *probe.Format != Format {
		return nil, &FormatError{Have: *probe.Format}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Desc
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("job description: %w", err)
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	return &d, nil
}

// FormatError is a set written in another format version.
type FormatError struct{ Have int }

func (e *FormatError) Error() string {
	return fmt.Sprintf("checkpoint set of format version %d; this LAM/Go reads version %d", e.Have, Format)
}

// Check reports whether d is consistent: a world of its ranks, each app's
// ranks numbered in a row in the apps' order (as mpirun schedules them),
// each rank's file where jobwire.RankFile puts it.
func (d *Desc) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("job description: "+format, args...)
	}
	switch {
	case d.Format != Format:
		return &FormatError{Have: d.Format}
	case d.Seq < 1:
		return bad("checkpoint number %d", d.Seq)
	case d.World < 1 || d.World > jobwire.MaxRanks:
		return bad("world size %d", d.World)
	case len(d.Ranks) != d.World:
		return bad("%d ranks in a world of %d", len(d.Ranks), d.World)
	case len(d.Apps) == 0:
		return bad("no program")
	}
	total := 0
	for i, a := range d.Apps {
		if a.Program == "" {
			return bad("app %d has no program", i)
		}
		if a.NP < 1 {
			return bad("app %d starts %d ranks", i, a.NP)
		}
		total += a.NP
	}
	if total != d.World {
		return bad("the apps start %d ranks in a world of %d", total, d.World)
	}
	app, left := 0, d.Apps[0].NP
	for i, r := range d.Ranks {
		if r.Rank != i {
			return bad("rank %d listed in place %d", r.Rank, i)
		}
		if left == 0 {
			app++
			left = d.Apps[app].NP
		}
		if r.App != app {
			return bad("rank %d belongs to app %d, not %d", i, r.App, app)
		}
		left--
		if r.Bytes < 0 {
			return bad("rank %d: file size %d", i, r.Bytes)
		}
		if r.File != filepath.Base(jobwire.RankFile("", i)) {
			return bad("rank %d: file %q", i, r.File)
		}
	}
	return nil
}

// Name is the directory name of set seq.
func Name(seq int) string { return setPrefix + strconv.Itoa(seq) }

// ParseName reads a complete set's directory name; ok is false for any
// other name (a partial set among them).
func ParseName(name string) (seq int, ok bool) {
	s, found := strings.CutPrefix(name, setPrefix)
	if !found || s == "" || s[0] == '0' || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// Set is a complete set in a job's directory.
type Set struct {
	Seq int
	Dir string
}

// List returns the complete sets of a job's directory, oldest first; a
// missing directory has none.
func List(jobDir string) ([]Set, error) {
	ents, err := os.ReadDir(jobDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Set
	for _, e := range ents {
		if seq, ok := ParseName(e.Name()); ok && e.IsDir() {
			out = append(out, Set{Seq: seq, Dir: filepath.Join(jobDir, e.Name())})
		}
	}
	slices.SortFunc(out, func(a, b Set) int { return a.Seq - b.Seq })
	return out, nil
}

// Newest returns the newest complete set of a job's directory.
func Newest(jobDir string) (Set, error) {
	sets, err := List(jobDir)
	if err != nil {
		return Set{}, err
	}
	if len(sets) == 0 {
		return Set{}, fmt.Errorf("%s holds no complete checkpoint set", jobDir)
	}
	return sets[len(sets)-1], nil
}

// Prune removes the oldest complete sets of a job's directory so that at
// most keep remain (keep < 1: none is removed). It returns the removed
// directories.
func Prune(jobDir string, keep int) ([]string, error) {
	if keep < 1 {
		return nil, nil
	}
	sets, err := List(jobDir)
	if err != nil || len(sets) <= keep {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, s := range sets[:len(sets)-keep] {
		// Rename first, so that a set is never seen half removed.
		tmp := filepath.Join(jobDir, ".removing-"+filepath.Base(s.Dir))
		if err := os.Rename(s.Dir, tmp); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.RemoveAll(tmp); err != nil {
			errs = append(errs, err)
		}
		removed = append(removed, s.Dir)
	}
	return removed, errors.Join(errs...)
}

// Partial is a set being written: a private temporary directory beside
// the set's final place. The ranks write their files into Dir; Commit
// makes it the set, Discard removes it.
type Partial struct {
	Dir    string
	jobDir string
	seq    int
}

// Begin makes the job's directory (and base, owner-only) if needed and a
// fresh temporary directory for set seq in it.
func Begin(jobDir string, seq int) (*Partial, error) {
	if seq < 1 {
		return nil, fmt.Errorf("checkpoint number %d", seq)
	}
	if err := os.MkdirAll(jobDir, 0o700); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(jobDir, Name(seq))); err == nil {
		return nil, fmt.Errorf("%s already exists", filepath.Join(jobDir, Name(seq)))
	}
	dir, err := os.MkdirTemp(jobDir, partialPrefix+strconv.Itoa(seq)+"-")
	if err != nil {
		return nil, err
	}
	return &Partial{Dir: dir, jobDir: jobDir, seq: seq}, nil
}

// Discard removes the partial set. It renames it out of the way first,
// to a name no rank writes into, then removes it: a rank whose
// checkpoint goes on after another's failed may still be creating its
// file in the set, and removing the directory in place raced with it
// (the directory not empty when its entries had been removed, the
// partial set left behind). After the rename a rank's create fails,
// but one whose path was looked up before it may still land in the
// renamed directory: the removal is tried again while the directory is
// not empty, a few times, a millisecond apart (such a create ends within
// microseconds).
func (p *Partial) Discard() error {
	gone := filepath.Join(p.jobDir, discardPrefix+filepath.Base(p.Dir))
	if err := os.Rename(p.Dir, gone); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var err error
	for range 100 {
		if err = os.RemoveAll(gone); err == nil || !errors.Is(err, syscall.ENOTEMPTY) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	return err
}

// Commit checks that every rank's file is there with the size the rank
// reported, writes the description, syncs the files and the directory and
// renames it to its final name, then syncs the job's directory. It
// returns the set's directory. On error the partial set is left for the
// caller to Discard.
func (p *Partial) Commit(d *Desc) (string, error) {
	d.Seq = p.seq
	for _, r := range d.Ranks {
		f := filepath.Join(p.Dir, r.File)
		st, err := os.Stat(f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("rank %d's file %s is missing (does every node see %s?)", r.Rank, r.File, p.jobDir)
			}
			return "", fmt.Errorf("rank %d's file: %w", r.Rank, err)
		}
		if st.Size() != r.Bytes {
			return "", fmt.Errorf("rank %d's file %s has %d bytes; the rank wrote %d", r.Rank, r.File, st.Size(), r.Bytes)
		}
		if err := syncPath(f); err != nil {
			return "", fmt.Errorf("rank %d's file: %w", r.Rank, err)
		}
	}
	b, err := d.Encode()
	if err != nil {
		return "", err
	}
	if err := writeSync(filepath.Join(p.Dir, DescFile), b); err != nil {
		return "", err
	}
	if err := syncPath(p.Dir); err != nil {
		return "", err
	}
	final := filepath.Join(p.jobDir, Name(p.seq))
	if err := os.Rename(p.Dir, final); err != nil {
		return "", err
	}
	p.Dir = final
	if err := syncPath(p.jobDir); err != nil {
		return final, err
	}
	return final, nil
}

// writeSync writes a new file, owner-only, and syncs it.
func writeSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncPath syncs a file or directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Load reads and checks a complete set: its name, its description (of
// this format version) and every rank's file, present with the size the
// description gives.
func Load(dir string) (*Desc, error) {
	dir = filepath.Clean(dir)
	if _, ok := ParseName(filepath.Base(dir)); !ok {
		if strings.HasPrefix(filepath.Base(dir), partialPrefix) {
			return nil, fmt.Errorf("%s is an incomplete checkpoint set (its checkpoint failed or is still being taken)", dir)
		}
		return nil, fmt.Errorf("%s is not a checkpoint set (a set is named %sN)", dir, setPrefix)
	}
	f, err := os.Open(filepath.Join(dir, DescFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a complete checkpoint set: no %s", dir, DescFile)
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDesc+1))
	if err != nil {
		return nil, err
	}
	d, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	var missing []string
	for _, r := range d.Ranks {
		st, err := os.Stat(filepath.Join(dir, r.File))
		switch {
		case err != nil:
			missing = append(missing, fmt.Sprintf("rank %d (%s)", r.Rank, r.File))
		case st.Size() != r.Bytes:
			return nil, fmt.Errorf("%s: rank %d's file has %d bytes, %d were written", dir, r.Rank, st.Size(), r.Bytes)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: the files of %s are missing", dir, strings.Join(missing, ", "))
	}
	return d, nil
}

// Resolve reads a set named by path: a set's directory, or a job's
// directory, whose newest complete set it takes.
func Resolve(path string) (string, *Desc, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", nil, err
	}
	if !st.IsDir() {
		return "", nil, fmt.Errorf("%s is not a directory", path)
	}
	dir := path
	if _, ok := ParseName(filepath.Base(filepath.Clean(path))); !ok && !strings.HasPrefix(filepath.Base(filepath.Clean(path)), partialPrefix) {
		s, err := Newest(path)
		if err != nil {
			return "", nil, err
		}
		dir = s.Dir
	}
	d, err := Load(dir)
	if err != nil {
		return "", nil, err
	}
	return dir, d, nil
}
