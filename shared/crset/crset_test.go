package crset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
)

// desc is a valid description of a world of 3: two apps, 2 + 1 ranks.
func desc() *Desc {
	d := &Desc{Format: Format, Seq: 1, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Job: "0:4711", World: 3, RPI: "crtcp 7.1.0",
		Wd: "/home/u", SSI: []string{"rpi=crtcp", "cr=self"}, Env: []string{"LAM_MPI_SSI_rpi=crtcp"},
		Apps: []App{{Program: "./a", Args: []string{"x", "y z"}, NP: 2, Export: []string{"A=1"}}, {Program: "./b", NP: 1, Where: []string{"n1"}}}}
	for r, app := range []int{0, 0, 1} {
		d.Ranks = append(d.Ranks, Rank{Rank: r, App: app, Node: int32(r % 2), PID: int32(100 + r), Bytes: 5, File: filepath.Base(jobwire.RankFile("", r))})
	}
	return d
}

func TestDescRoundTrip(t *testing.T) {
	d := desc()
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := got.Encode()
	if string(b) != string(b2) {
		t.Errorf("round trip changed the description:\n%s\n%s", b, b2)
	}
}

func TestDescCheck(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Desc)
		want   string
	}{
		{"valid", func(*Desc) {}, ""},
		{"format", func(d *Desc) { d.Format = 2 }, "format version 2"},
		{"seq", func(d *Desc) { d.Seq = 0 }, "checkpoint number 0"},
		{"world", func(d *Desc) { d.World = 4 }, "3 ranks in a world of 4"},
		{"no apps", func(d *Desc) { d.Apps = nil }, "no program"},
		{"empty program", func(d *Desc) { d.Apps[1].Program = "" }, "app 1 has no program"},
		{"np", func(d *Desc) { d.Apps[0].NP = 3 }, "start 4 ranks"},
		{"zero np", func(d *Desc) { d.Apps[1].NP = 0; d.Apps[0].NP = 3 }, "app 1 starts 0 ranks"},
		{"order", func(d *Desc) { d.Ranks[1].Rank = 2 }, "rank 2 listed in place 1"},
		{"app", func(d *Desc) { d.Ranks[1].App = 1 }, "rank 1 belongs to app 1, not 0"},
		{"bytes", func(d *Desc) { d.Ranks[2].Bytes = -1 }, "file size -1"},
		{"file", func(d *Desc) { d.Ranks[2].File = "../x" }, `rank 2: file "../x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := desc()
			c.change(d)
			err := d.Check()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Check: %v, want %q", err, c.want)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	good, _ := desc().Encode()
	cases := []struct {
		name, in, want string
	}{
		{"not json", "nope", "job description"},
		{"no format", `{"seq":1}`, "no format version"},
		{"other format", `{"format":7,"whatever":1}`, "format version 7"},
		{"unknown field", strings.Replace(string(good), `"seq"`, `"extra":1,"seq"`, 1), "unknown field"},
		{"trailing", string(good) + "{}", "after top-level value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Decode: %v, want %q", err, c.want)
			}
		})
	}
	var fe *FormatError
	if _, err := Decode([]byte(`{"format":2}`)); !errors.As(err, &fe) || fe.Have != 2 {
		t.Errorf("another version: %v, want a *FormatError", err)
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := desc().Encode()
	f.Add(good)
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`{"format":1,"seq":1,"world":1,"apps":[{"program":"p","np":1}],"ranks":[{"rank":0,"app":0,"file":"rank-0.ckpt"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode(b)
		if err != nil {
			return
		}
		// What Decode accepts is consistent and survives a round trip.
		if err := d.Check(); err != nil {
			t.Fatalf("Decode accepted an inconsistent description: %v", err)
		}
		again, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		d2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded description refused: %v", err)
		}
		if d2.World != d.World || len(d2.Apps) != len(d.Apps) {
			t.Fatal("round trip changed the description")
		}
	})
}

func TestNames(t *testing.T) {
	cases := []struct {
		name string
		seq  int
		ok   bool
	}{
		{"ckpt-1", 1, true}, {"ckpt-42", 42, true}, {"ckpt-0", 0, false}, {"ckpt-01", 0, false},
		{"ckpt-", 0, false}, {"ckpt-+1", 0, false}, {"ckpt-x", 0, false}, {".partial-ckpt-1-123", 0, false},
		{"job.json", 0, false},
	}
	for _, c := range cases {
		seq, ok := ParseName(c.name)
		if seq != c.seq || ok != c.ok {
			t.Errorf("ParseName(%q) = %d, %v; want %d, %v", c.name, seq, ok, c.seq, c.ok)
		}
	}
	if Name(12) != "ckpt-12" {
		t.Errorf("Name(12) = %q", Name(12))
	}
}

// writeSet makes set seq of a world of 3 in jobDir as mpirun does:
// Begin, the ranks' files, Commit.
func writeSet(t *testing.T, jobDir string, seq int) string {
	t.Helper()
	p, err := Begin(jobDir, seq)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(p.Dir), ".partial-ckpt-") {
		t.Errorf("partial set named %s", p.Dir)
	}
	if _, ok := ParseName(filepath.Base(p.Dir)); ok {
		t.Errorf("a partial set passes for a complete one")
	}
	for r := range 3 {
		if err := os.WriteFile(jobwire.RankFile(p.Dir, r), []byte("state"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := p.Commit(desc())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCommitAndLoad(t *testing.T) {
	jobDir := filepath.Join(t.TempDir(), "base", "job")
	dir := writeSet(t, jobDir, 1)
	if dir != filepath.Join(jobDir, "ckpt-1") {
		t.Errorf("set at %s", dir)
	}
	for _, p := range []string{filepath.Dir(jobDir), jobDir} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want owner-only", p, st.Mode(), err)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, DescFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v %v", DescFile, st, err)
	}
	d, err := Load(dir)
	if err != nil || d.Seq != 1 || d.World != 3 {
		t.Fatalf("Load: %+v, %v", d, err)
	}
	ents, _ := os.ReadDir(jobDir)
	if len(ents) != 1 {
		t.Errorf("the job directory holds %d entries, want the set alone", len(ents))
	}
	if _, err := Begin(jobDir, 1); err == nil {
		t.Error("Begin of a set that exists succeeded")
	}
}

func TestCommitRefusesMissingOrShortFiles(t *testing.T) {
	jobDir := t.TempDir()
	cases := []struct {
		name  string
		files map[int]string
		want  string
	}{
		{"missing", map[int]string{0: "state", 1: "state"}, "rank 2's file rank-2.ckpt is missing"},
		{"short", map[int]string{0: "state", 1: "sta", 2: "state"}, "rank 1's file rank-1.ckpt has 3 bytes; the rank wrote 5"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Begin(jobDir, i+1)
			if err != nil {
				t.Fatal(err)
			}
			for r, s := range c.files {
				os.WriteFile(jobwire.RankFile(p.Dir, r), []byte(s), 0o600)
			}
			if _, err := p.Commit(desc()); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Commit: %v, want %q", err, c.want)
			}
			if err := p.Discard(); err != nil {
				t.Fatal(err)
			}
			if sets, _ := List(jobDir); len(sets) != 0 {
				t.Errorf("a failed set is listed: %v", sets)
			}
		})
	}
	if ents, _ := os.ReadDir(jobDir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestLoadRefuses(t *testing.T) {
	jobDir := t.TempDir()
	good := writeSet(t, jobDir, 1)
	partial, _ := Begin(jobDir, 2)
	other := filepath.Join(jobDir, "ckpt-3")
	os.Mkdir(other, 0o700)
	os.WriteFile(filepath.Join(other, DescFile), []byte(`{"format":99}`), 0o600)
	noDesc := filepath.Join(jobDir, "ckpt-4")
	os.Mkdir(noDesc, 0o700)
	lost := writeSet(t, jobDir, 5)
	os.Remove(jobwire.RankFile(lost, 1))
	cases := []struct{ dir, want string }{
		{partial.Dir, "incomplete checkpoint set"},
		{other, "format version 99"},
		{noDesc, "no job.json"},
		{lost, "the files of rank 1 (rank-1.ckpt) are missing"},
		{jobDir, "is not a checkpoint set"},
	}
	for _, c := range cases {
		if _, err := Load(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v, want %q", filepath.Base(c.dir), err, c.want)
		}
	}
	if _, err := Load(good); err != nil {
		t.Error(err)
	}
	// A job's directory resolves to its newest complete set (5, whose
	// file is missing: refused, not skipped for an older one).
	if _, _, err := Resolve(jobDir); err == nil || !strings.Contains(err.Error(), "ckpt-5") {
		t.Errorf("Resolve(job dir): %v", err)
	}
	if dir, _, err := Resolve(good); err != nil || dir != good {
		t.Errorf("Resolve(set) = %s, %v", dir, err)
	}
	if _, _, err := Resolve(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no complete checkpoint set") {
		t.Errorf("Resolve(empty): %v", err)
	}
}

func TestPrune(t *testing.T) {
	cases := []struct {
		sets, keep int
		left       []int
	}{
		{4, 0, []int{1, 2, 3, 4}},
		{4, 2, []int{3, 4}},
		{2, 5, []int{1, 2}},
		{3, 1, []int{3}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d-keep-%d", c.sets, c.keep), func(t *testing.T) {
			jobDir := t.TempDir()
			for s := 1; s <= c.sets; s++ {
				writeSet(t, jobDir, s)
			}
			// A partial set is not a set: never counted nor removed.
			p, _ := Begin(jobDir, c.sets+1)
			removed, err := Prune(jobDir, c.keep)
			if err != nil {
				t.Fatal(err)
			}
			sets, _ := List(jobDir)
			var left []int
			for _, s := range sets {
				left = append(left, s.Seq)
			}
			if !slices.Equal(left, c.left) || len(removed) != c.sets-len(c.left) {
				t.Errorf("left %v (removed %v), want %v", left, removed, c.left)
			}
			if _, err := os.Stat(p.Dir); err != nil {
				t.Errorf("the partial set was removed: %v", err)
			}
		})
	}
}

func TestListOrder(t *testing.T) {
	jobDir := t.TempDir()
	for _, s := range []int{10, 9, 2} {
		writeSet(t, jobDir, s)
	}
	sets, err := List(jobDir)
	if err != nil || len(sets) != 3 || sets[0].Seq != 2 || sets[2].Seq != 10 {
		t.Errorf("List: %v %v (numeric order, not lexical)", sets, err)
	}
	if n, err := Newest(jobDir); err != nil || n.Seq != 10 {
		t.Errorf("Newest: %v %v", n, err)
	}
	if sets, err := List(filepath.Join(jobDir, "nope")); err != nil || sets != nil {
		t.Errorf("List(missing) = %v, %v", sets, err)
	}
}

// A partial set discarded while a rank still writes into it (a rank whose
// checkpoint went on after another's failed) is gone afterwards: no
// entry of it is left in the job's directory, whatever the rank created
// meanwhile, and the rank can add nothing more to it.
func TestDiscardWhileWritten(t *testing.T) {
	jobDir := t.TempDir()
	for i := range 200 {
		p, err := Begin(jobDir, i+1)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		wrote := make(chan struct{})
		go func() { // the late rank: creates file after file in the set
			defer close(wrote)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				if f, err := os.OpenFile(filepath.Join(p.Dir, fmt.Sprintf("rank-%d.ckpt", k)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
					f.Close()
				}
			}
		}()
		for k := 0; k < 3; k++ { // let it create a few first
			for {
				if ents, _ := os.ReadDir(p.Dir); len(ents) > k {
					break
				}
			}
		}
		derr := p.Discard()
		close(stop)
		<-wrote
		if derr != nil {
			t.Fatalf("round %d: Discard: %v", i, derr)
		}
		if ents, _ := os.ReadDir(jobDir); len(ents) != 0 {
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("round %d: left in the job's directory: %v", i, names)
		}
	}
}
