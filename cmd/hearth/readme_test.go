package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeSection is the text of README.md's "## title" section, up to the next "## ".
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", title)
	}
	rest := doc[i+len(title)+5:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestReadmeFlagTableIsTheFlagSet: README's "Configure it" table lists every flag of the
// server, no flag the server lacks, and each flag's default as the flag set has it (a default
// worked out at start, such as -bucket's, has an empty default in the flag set and is described
// in words). A flag added without a row, or a default changed in one place only, fails here.
func TestReadmeFlagTableIsTheFlagSet(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	serveFlags(fs, &Config{})
	row := regexp.MustCompile("^\\| (`-[a-z-]+`(?:, `-[a-z-]+`)*) \\| ([^|]*) \\|")
	documented := map[string]string{}
	for _, line := range strings.Split(readmeSection(t, "Configure it"), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names := strings.Split(m[1], ", ")
		defaults := strings.Split(strings.TrimSpace(m[2]), ", ")
		if len(names) > 1 && len(defaults) != len(names) && len(defaults) != 1 {
			t.Errorf("README row %q names %d flags but gives %d defaults", line, len(names), len(defaults))
			continue
		}
		for i, n := range names {
			name := strings.Trim(n, "`-")
			if _, dup := documented[name]; dup {
				t.Errorf("README lists -%s twice", name)
			}
			// One default for several flags (`-tls-cert`, `-tls-key` | none) is each one's.
			if len(names) > 1 && len(defaults) == len(names) {
				documented[name] = defaults[i]
			} else {
				documented[name] = strings.TrimSpace(m[2])
			}
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		got, ok := documented[f.Name]
		if !ok {
			t.Errorf("-%s (%s) has no row in README's flag table", f.Name, f.Usage)
			return
		}
		delete(documented, f.Name)
		want := f.DefValue
		if want == "0s" {
			want = "0"
		}
		cell := strings.Trim(got, "`")
		switch want {
		case "", "[]":
			// Worked out at start or empty: described in words.
		case "false", "0":
			if !strings.HasPrefix(cell, want) {
				t.Errorf("README gives -%s the default %q; the flag's is %s", f.Name, got, want)
			}
		default:
			if cell != want {
				t.Errorf("README gives -%s the default %q; the flag's is %q", f.Name, got, want)
			}
		}
	})
	for name := range documented {
		t.Errorf("README's flag table lists -%s, which the server does not have", name)
	}
}

// TestReadmeNamesEveryCommand: every command `hearth -h` lists is in README as `hearth NAME`.
func TestReadmeNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if c.name == "serve" {
			continue
		}
		if !strings.Contains(string(b), "`hearth "+c.name) {
			t.Errorf("README does not mention `hearth %s`", c.name)
		}
	}
	// And every `hearth NAME` README shows is a command.
	names := []string{}
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, m := range regexp.MustCompile("`hearth ([a-z][a-z-]*)").FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(names, m[1]) {
			t.Errorf("README shows `hearth %s`, which is not a command", m[1])
		}
	}
}

// TestDocsNameTestsThatExist: the tests, benchmarks and fuzz targets README.md and docs/ name
// (decisions.md cites the regression test of each fix) are in the tree, so a renamed or
// removed test does not leave a decision pointing at nothing. docs/performance.md, a record
// of measurements as they were taken, is left out.
func TestDocsNameTestsThatExist(t *testing.T) {
	root := "../.."
	defined := map[string]bool{}
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcs.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*`)
	for _, doc := range []string{"README.md", "docs/decisions.md", "docs/plugins.md", "docs/search.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range named.FindAllString(string(b), -1) {
			if !defined[name] {
				t.Errorf("%s names %s, which no test file defines", doc, name)
			}
		}
	}
}
