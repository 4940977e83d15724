package msg

import (
	"bytes"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	c, err := Parse("# comment\n\n-*-a:b-*-\nline %1\n# hidden\nmore\n\n-*-ALL:x-*-\nall %2 %1\n")
	if err != nil {
		t.Fatal(err)
	}
	if c["a:b"] != "line %1\nmore" || c["ALL:x"] != "all %2 %1" {
		t.Errorf("Parse = %q", c)
	}
	for _, bad := range []string{"text first\n-*-a:b-*-\n", "-*-ab-*-\nx\n", "-*-a:b-*-\nx\n-*-a:b-*-\ny\n", "-*-:b-*-\n"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestTextAndShow(t *testing.T) {
	if got := Text("lamnodes", "deny-root", "lamnodes"); !strings.HasPrefix(got, "It is a Very Bad Idea to run this program as root.") || !strings.Contains(got, "lamnodes runs as root when") {
		t.Errorf("ALL fallback: %q", got)
	}
	if got := Text("x", "no-such-topic", "a"); !strings.Contains(got, "x:no-such-topic") {
		t.Errorf("missing topic text %q", got)
	}
	if got := substitute("%1-%2-%3-%%-100%", []string{"a", "b"}); got != "a-b--%%-100%" {
		t.Errorf("substitute = %q", got)
	}
	var b bytes.Buffer
	Show(&b, "laminfo", "usage")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != Rule || lines[len(lines)-1] != Rule || len(Rule) != 77 {
		t.Errorf("Show is not framed by 77 dashes:\n%s", b.String())
	}
}

// Every tool has a usage topic.
func TestUsageTopics(t *testing.T) {
	for _, tool := range []string{"lamboot", "lamd", "hboot", "lamhalt", "lamnodes", "tping", "lamwipe", "recon",
		"lamclean", "lamexec", "lamgrow", "lamshrink", "mpitask", "mpimsg", "mpirun", "mpiexec", "laminfo", "crcheckpoint", "crrestart"} {
		if _, ok := catalog[tool+":usage"]; !ok {
			t.Errorf("no %s:usage topic", tool)
		}
	}
}
