package h2c_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/web/h2c"
)

// h2specNotFollowed are the h2spec cases this server deliberately does not pass, as
// "group: description", each with its reason in docs/decisions.md ("The h2c transport").
var h2specNotFollowed = map[string]string{
	// One port serves HTTP/1.1 and h2c: what does not open with the preface is HTTP/1.1's, and
	// net/http answers this one 400 Bad Request before it closes.
	"http2/3.5: Sends invalid connection preface": "HTTP/1.1 on the same port",
	// h2spec's HPACK encoder keeps the default 4,096-byte table whatever the server's
	// SETTINGS_HEADER_TABLE_SIZE says (RFC 7541, section 4.2); these two pass against a
	// server that advertises the default (below).
	"generic/5: Sends multiple dynamic table size update":                        "table size",
	"http2/6.10: Sends multiple CONTINUATION frames preceded by a HEADERS frame": "table size",
}

// tableSizeCases are the h2spec ids of the two "table size" cases above.
var tableSizeCases = []string{"generic/5/15", "http2/6.10/1"}

// TestH2Spec runs h2spec, the HTTP/2 conformance suite with its strict cases (-S), against the
// server (h2c with prior knowledge): every case passes but those in h2specNotFollowed, which
// run again against a server that keeps the default HPACK table, where they pass too. CI
// installs h2spec (.ci/run) and sets HEARTH_REQUIRE_H2SPEC, so that a missing binary fails
// the test.
func TestH2Spec(t *testing.T) {
	bin := findH2Spec()
	if bin == "" {
		if os.Getenv("HEARTH_REQUIRE_H2SPEC") != "" {
			t.Fatal("h2spec is not installed (go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible)")
		}
		t.Skip("h2spec is not installed")
	}
	failed := runH2Spec(t, bin)
	for _, f := range failed {
		if _, ok := h2specNotFollowed[f]; !ok {
			t.Errorf("h2spec failed: %s", f)
		}
	}
	restore := h2c.SetHeaderTableSize(4096)
	defer restore()
	if failed := runH2Spec(t, bin, tableSizeCases...); len(failed) > 0 {
		t.Errorf("with the default HPACK table, h2spec failed: %v", failed)
	}
}

// runH2Spec runs the cases given (all without) against a new server and returns those that
// failed.
func runH2Spec(t *testing.T, bin string, cases ...string) []string {
	t.Helper()
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "conformance")
	}), nil)
	host, port, _ := strings.Cut(addr, ":")
	report := filepath.Join(t.TempDir(), "report.xml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(slices.Clone(cases), "-h", host, "-p", port, "-o", "3", "-S", "-j", report)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("h2spec wrote no report (%v): %v\n%s", runErr, err, out.String())
	}
	var r struct {
		Suites []struct {
			Cases []struct {
				Package string    `xml:"package,attr"`
				Desc    string    `xml:"classname,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatalf("h2spec's report: %v", err)
	}
	var failed []string
	n := 0
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			n++
			if c.Failure != nil || c.Error != nil {
				failed = append(failed, fmt.Sprintf("%s: %s", c.Package, c.Desc))
			}
		}
	}
	if n == 0 || n < len(cases) {
		t.Fatalf("h2spec ran %d cases\n%s", n, out.String())
	}
	summary := out.String()
	if i := strings.LastIndex(summary, "Failures:"); i >= 0 {
		summary = summary[i:]
	} else if i := strings.LastIndex(summary, "\n"); i >= 0 {
		summary = summary[strings.LastIndex(strings.TrimRight(summary, "\n"), "\n")+1:]
	}
	t.Logf("h2spec %v: %d cases\n%s", cases, n, strings.TrimSpace(summary))
	return failed
}

func findH2Spec() string {
	if p, err := exec.LookPath("h2spec"); err == nil {
		return p
	}
	gobin := os.Getenv("GOBIN")
	if gobin == "" {
		out, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			return ""
		}
		gobin = filepath.Join(strings.TrimSpace(string(out)), "bin")
	}
	p := filepath.Join(gobin, "h2spec")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
