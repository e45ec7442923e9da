package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The tests that drive the real binary share one build of it.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// hearthBinary builds hearth once per test run (skipped with -short or without the go tool)
// and returns its path.
func hearthBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build the binary with")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "hearth-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "hearth")
		built.out, built.err = exec.Command(goTool, "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	// Voice's port is one for the whole machine (7881 by default): the servers of the tests
	// run without voice unless a test gives them a port.
	if _, ok := os.LookupEnv("HEARTH_VOICE_PORT"); !ok {
		os.Setenv("HEARTH_VOICE_PORT", "0")
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
