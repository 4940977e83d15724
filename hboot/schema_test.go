package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSchema(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "conf")
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	vars := map[string][]string{"$inet_topo": {"-H", "h", "-P", "1"}, "$debug": {"-d"}, "$session_suffix": {"-sessionsuffix", "s"}}
	got, err := parseSchema(write("# comment\nlamd $inet_topo $debug $session_prefix $session_suffix\n\nother a { delay(1) } # x\n"), vars)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"lamd", "-H", "h", "-P", "1", "-d", "-sessionsuffix", "s"}, {"other", "a"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSchema = %q, want %q", got, want)
	}
	for text, msg := range map[string]string{"lamd $bogus\n": "unknown variable $bogus", "# nothing\n": "no program"} {
		if _, err := parseSchema(write(text), vars); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("parseSchema(%q) = %v, want %q", text, err, msg)
		}
	}
	if _, err := parseSchema(filepath.Join(dir, "missing"), vars); err == nil {
		t.Error("missing schema accepted")
	}
}

func TestShippedSchema(t *testing.T) {
	got, err := parseSchema("../etc/lam-conf.lamd", map[string][]string{"$inet_topo": {"-n", "0"}})
	if err != nil || len(got) != 1 || got[0][0] != "lamd" || got[0][2] != "0" {
		t.Errorf("etc/lam-conf.lamd: %q %v", got, err)
	}
}
