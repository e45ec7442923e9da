package main

import (
	"flag"
	"os"
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
