package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func infoKeys(t *testing.T, in *mpi.Info) []string {
	t.Helper()
	n, err := in.NKeys()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range n {
		k, err := in.NthKey(i)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

func TestInfo(t *testing.T) {
	in, err := mpi.NewInfo()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"wdir", "/tmp"}, {"host", "n0"}, {"file", "a"}, {"host", "n1"}} {
		if err := in.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := infoKeys(t, in), []string{"wdir", "host", "file"}; !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	if v, ok, err := in.Get("host"); v != "n1" || !ok || err != nil {
		t.Errorf("Get host: %q %v %v", v, ok, err)
	}
	if n, ok, err := in.GetValuelen("wdir"); n != 4 || !ok || err != nil {
		t.Errorf("GetValuelen: %d %v %v", n, ok, err)
	}
	if v, ok, err := in.Get("Host"); v != "" || ok || err != nil {
		t.Errorf("keys are case-sensitive: %q %v %v", v, ok, err)
	}
	d, err := in.Dup()
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Delete("wdir"); err != nil {
		t.Fatal(err)
	}
	if err := in.Delete("wdir"); mpi.Class(err) != mpi.ErrInfoNokey {
		t.Errorf("deleting a missing key: %v", err)
	}
	if got, want := infoKeys(t, in), []string{"host", "file"}; !slices.Equal(got, want) {
		t.Errorf("after Delete: %q, want %q", got, want)
	}
	if got, want := infoKeys(t, d), []string{"wdir", "host", "file"}; !slices.Equal(got, want) {
		t.Errorf("the dup changed with the original: %q, want %q", got, want)
	}
	if _, err := in.NthKey(2); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("NthKey past the end: %v", err)
	}
	if _, err := in.NthKey(-1); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("NthKey(-1): %v", err)
	}
	if err := in.Free(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Set":    in.Set("a", "b"),
		"Free":   in.Free(),
		"nil":    (*mpi.Info)(nil).Set("a", "b"),
		"nilGet": func() error { _, _, err := (*mpi.Info)(nil).Get("a"); return err }(),
		"NKeys":  func() error { _, err := in.NKeys(); return err }(),
	} {
		if mpi.Class(err) != mpi.ErrInfo {
			t.Errorf("%s on a freed or null Info: %v", name, err)
		}
	}
	if v, _, _ := d.Get("wdir"); v != "/tmp" {
		t.Errorf("the dup lost its value when the original was freed: %q", v)
	}
	d.Free()
}

func TestInfoLimits(t *testing.T) {
	in, _ := mpi.NewInfo()
	defer in.Free()
	key255, key256 := strings.Repeat("k", mpi.MaxInfoKey), strings.Repeat("k", mpi.MaxInfoKey+1)
	val1024, val1025 := strings.Repeat("v", mpi.MaxInfoVal), strings.Repeat("v", mpi.MaxInfoVal+1)
	if mpi.MaxInfoKey != 255 || mpi.MaxInfoVal != 1024 {
		t.Errorf("limits %d %d", mpi.MaxInfoKey, mpi.MaxInfoVal)
	}
	if err := in.Set(key255, val1024); err != nil {
		t.Errorf("a key and value at the limits: %v", err)
	}
	if v, ok, _ := in.Get(key255); !ok || v != val1024 {
		t.Errorf("the value at the limit came back as %d bytes", len(v))
	}
	for _, tt := range []struct {
		what       string
		key, value string
		want       mpi.ErrorClass
	}{
		{"key too long", key256, "v", mpi.ErrInfoKey},
		{"empty key", "", "v", mpi.ErrInfoKey},
		{"NUL in key", "a\x00b", "v", mpi.ErrInfoKey},
		{"value too long", "k", val1025, mpi.ErrInfoValue},
		{"empty value", "k", "", mpi.ErrInfoValue},
		{"NUL in value", "k", "a\x00", mpi.ErrInfoValue},
	} {
		err := in.Set(tt.key, tt.value)
		if mpi.Class(err) != tt.want || !errors.Is(err, &mpi.Error{Class: tt.want}) {
			t.Errorf("%s: %v, want %v", tt.what, err, tt.want)
		}
	}
	if _, _, err := in.Get(key256); mpi.Class(err) != mpi.ErrInfoKey {
		t.Errorf("Get with a long key: %v", err)
	}
	if err := in.Delete(key256); mpi.Class(err) != mpi.ErrInfoKey {
		t.Errorf("Delete with a long key: %v", err)
	}
	if n, _ := in.NKeys(); n != 1 {
		t.Errorf("refused Sets changed the Info: %d keys", n)
	}
	for _, c := range []mpi.ErrorClass{mpi.ErrKeyval, mpi.ErrInfo, mpi.ErrInfoKey, mpi.ErrInfoValue, mpi.ErrInfoNokey} {
		if !strings.HasPrefix(c.String(), "MPI_ERR_") || c >= mpi.ErrLastCode {
			t.Errorf("class %d is %q", int(c), c)
		}
	}
}

func TestInfoConcurrent(t *testing.T) {
	in, _ := mpi.NewInfo()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			key := string(rune('a' + g))
			for i := range 100 {
				in.Set(key, strings.Repeat("x", i+1))
				in.Get(key)
				in.NKeys()
			}
		})
	}
	wg.Wait()
	if n, _ := in.NKeys(); n != 4 {
		t.Errorf("%d keys", n)
	}
}
