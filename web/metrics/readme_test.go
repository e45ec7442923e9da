package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeNamesMetricsThatExist: every metric README.md names ("Watch it") is one this
// package defines, and every family it names with a * has at least one.
func TestReadmeNamesMetricsThatExist(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(hearth_[a-z_]+)"`).FindAllStringSubmatch(src.String(), -1) {
		defined[m[1]] = true
	}
	named := regexp.MustCompile("`(hearth_[a-z_]+)(\\*|\\{[a-z,]*\\})?`").FindAllStringSubmatch(string(readme), -1)
	if len(named) == 0 {
		t.Fatal("README names no metric")
	}
	for _, m := range named {
		name, family := m[1], m[2] == "*"
		found := defined[name]
		if family {
			found = false
			for d := range defined {
				found = found || strings.HasPrefix(d, name)
			}
		}
		if !found {
			t.Errorf("README names the metric %s%s, which web/metrics does not define", name, m[2])
		}
	}
}
