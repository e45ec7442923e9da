package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenSaysWhenItMakesTheKey: `hearth token` on a directory with no issuer key makes one
// (a server started there uses it) and says so on stderr, since run against the wrong -data
// its token would fail on the real server; with the key there it prints only the token.
func TestTokenSaysWhenItMakesTheKey(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for i, wantNote := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"token", "-data", data, "-sub", "alice"}, &stdout, &stderr); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr.String())
		}
		if tok := strings.TrimSpace(stdout.String()); strings.Count(tok, ".") != 2 || strings.Contains(tok, "\n") {
			t.Fatalf("run %d: stdout %q, want one JWT", i, stdout.String())
		}
		note := "no issuer key in " + data + ": made a new one, " + filepath.Join(data, "issuer-key")
		if got := stderr.String(); strings.HasPrefix(got, note) != wantNote || (!wantNote && got != "") {
			t.Fatalf("run %d: stderr %q, want the note %v", i, got, wantNote)
		}
	}
}
