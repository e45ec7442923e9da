package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpListsTheCommands: `hearth -h` and `hearth help` list every command, then the
// server's flags; a command's -h lists its own flags; all exit 0.
func TestHelpListsTheCommands(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"serve", "-h"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("hearth %v: exit %d", args, code)
		}
		out := stderr.String()
		for _, c := range commands {
			if !strings.Contains(out, "\n  "+c.name+" ") {
				t.Fatalf("hearth %v does not list %s:\n%s", args, c.name, out)
			}
		}
		for _, flag := range []string{"-addr", "-backup-every", "-backup-keep", "-backup-to"} {
			if !strings.Contains(out, "  "+flag+" ") {
				t.Fatalf("hearth %v does not list %s:\n%s", args, flag, out)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"restore", "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "Usage: hearth restore [-data DIR] FILE|URL|-") {
		t.Fatalf("hearth restore -h: exit %d, %q", code, stderr.String())
	}
}

// TestTheHintsNameTheCommandAsStarted: `go run` builds into a go-build folder; a built binary
// is named as it was started.
func TestTheHintsNameTheCommandAsStarted(t *testing.T) {
	for _, tc := range []struct{ arg0, exe, want string }{
		{"/tmp/go-build2301/b001/exe/hearth", "/tmp/go-build2301/b001/exe/hearth", "go run ./cmd/hearth"},
		{"hearth", "/usr/local/bin/hearth", "hearth"},
		{"./hearth", "/home/op/hearth", "./hearth"},
		{"/opt/hearth/bin/hearth", "/opt/hearth/bin/hearth", "/opt/hearth/bin/hearth"},
		{"/opt/my apps/hearth", "/opt/my apps/hearth", "'/opt/my apps/hearth'"},
	} {
		if got := commandFor(tc.arg0, tc.exe); got != tc.want {
			t.Errorf("commandFor(%q, %q) = %q, want %q", tc.arg0, tc.exe, got, tc.want)
		}
	}
}
