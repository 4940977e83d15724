package install

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAt(t *testing.T) {
	p := At("/opt/lam")
	want := map[string]string{"prefix": "/opt/lam", "bindir": "/opt/lam/bin", "libdir": "/opt/lam/lib",
		"incdir": "/opt/lam/include", "pkglibdir": "/opt/lam/lib/lam", "sysconfdir": "/opt/lam/etc"}
	for _, it := range Items {
		got, ok := p.Item(it)
		if !ok || got != want[it] {
			t.Errorf("Item(%s) = %q, %v; want %q", it, got, ok, want[it])
		}
	}
	if _, ok := p.Item("bogus"); ok {
		t.Error("Item(bogus) succeeded")
	}
	for prefix, want := range map[string]string{"/usr": "/etc/lam", "/usr/": "/etc/lam", "/usr/local": "/usr/local/etc", "/": "/etc"} {
		if got := At(prefix).Sysconfdir; got != want {
			t.Errorf("At(%q).Sysconfdir = %q, want %q", prefix, got, want)
		}
	}
	usr := At("/usr")
	if usr.Bindir != "/usr/bin" || usr.Libdir != "/usr/lib/lam-go/lib" || usr.Incdir != "/usr/lib/lam-go/include" || usr.Pkglibdir != "/usr/lib/lam-go" {
		t.Errorf("At(/usr) = %+v", usr)
	}
}

func TestFind(t *testing.T) {
	if got := Find(func(k string) string {
		if k == "LAMHOME" {
			return "/srv/lam/"
		}
		return ""
	}); got.Prefix != "/srv/lam" {
		t.Errorf("Find with LAMHOME = %q", got.Prefix)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if got := Find(func(string) string { return "" }); got.Prefix != filepath.Dir(filepath.Dir(exe)) {
		t.Errorf("Find().Prefix = %q, want the parent of the executable's directory %q", got.Prefix, filepath.Dir(filepath.Dir(exe)))
	}
}

func TestWithBuildDirs(t *testing.T) {
	p := At("/usr")
	if got := withBuildDirs(p, "", ""); got != p {
		t.Errorf("no build dirs changed the layout: %+v", got)
	}
	got := withBuildDirs(p, "/usr/include/lamgo/", "/usr/lib/x86_64-linux-gnu/lamgo")
	if got.Incdir != "/usr/include/lamgo" || got.Libdir != "/usr/lib/x86_64-linux-gnu/lamgo" || got.Prefix != "/usr" || got.Bindir != "/usr/bin" {
		t.Errorf("withBuildDirs = %+v", got)
	}
}
