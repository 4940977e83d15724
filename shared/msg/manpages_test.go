package msg

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// optionLine is an option at the start of a line of a usage text's
// options ("        -np <n>   Number of processes", mpiexec's
// "   -boot ...", "        --allow-run-as-root").
var optionLine = regexp.MustCompile(`^ {3,8}(--?[A-Za-z][A-Za-z0-9:-]*)`)

// TestManPagesCoverUsage checks docs/man against the usage texts: every
// tool with a usage text has a man page in section 1, and every option
// its usage lists is in the page, so the two cannot drift apart.
func TestManPagesCoverUsage(t *testing.T) {
	topics := catalog
	dir := filepath.Join("..", "..", "docs", "man", "man1")
	for key, text := range topics {
		tool, ok := strings.CutSuffix(key, ":usage")
		if !ok {
			continue
		}
		if tool == "compile" { // LAM's name for the wrapper compilers' topic
			tool = "mpicc"
		}
		page, err := os.ReadFile(filepath.Join(dir, tool+".1"))
		if err != nil {
			t.Errorf("%s has a usage text but no man page: %v", tool, err)
			continue
		}
		roff := string(page)
		for _, line := range strings.Split(text, "\n") {
			m := optionLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			opt := strings.ReplaceAll(m[1], "-", `\-`)
			if !strings.Contains(roff, ".B "+opt+"\n") && !strings.Contains(roff, `.BI "`+opt+` "`) {
				t.Errorf("%s(1) does not document %s, which %s -h lists", tool, m[1], tool)
			}
		}
	}
}
