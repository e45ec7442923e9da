package sandbox

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"hearth/engine/sandbox/sandboxtest"
)

// cacheDir holds wazero's compiled code for the tests (sandboxtest.CacheDir), or a folder of
// this run's when there is no user cache directory.
var cacheDir string

func TestMain(m *testing.M) {
	dir, cleanup := testCacheDir()
	cacheDir = dir
	code := m.Run()
	if shared.s != nil {
		if err := shared.s.Close(context.Background()); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "closing the shared sandbox:", err)
			code = 1
		}
	}
	cleanup()
	os.Exit(code)
}

// shared is one default Sandbox for the tests that only inspect inputs: every New costs
// a load of the compiled guest, which the race detector makes slow.
var shared struct {
	once sync.Once
	s    *Sandbox
	err  error
}

// testTimeout is the deadline of the tests whose subject is not a deadline: one that a busy
// machine under the race detector (which slows a guest's start about tenfold) cannot reach, so
// that they fail only for what they test. Tests of deadlines set their own.
const testTimeout = time.Minute

func sharedSandbox(t testing.TB) *Sandbox {
	t.Helper()
	shared.once.Do(func() {
		shared.s, shared.err = New(context.Background(), Options{CacheDir: cacheDir, Timeout: testTimeout})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s
}

func testCacheDir() (dir string, cleanup func()) {
	if dir, err := sandboxtest.CacheDir(); err == nil {
		return dir, func() {}
	}
	// No user cache directory: compile once per run instead.
	dir, err := os.MkdirTemp("", "sandbox-test-cache-")
	if err != nil {
		panic(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// newSandbox returns a Sandbox closed at the end of the test.
func newSandbox(t testing.TB, opts Options) *Sandbox {
	t.Helper()
	opts.CacheDir = cacheDir
	if opts.Timeout == 0 {
		opts.Timeout = testTimeout
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// evilSandbox runs testdata/evil.wasm, which misbehaves as its payload says.
func evilSandbox(t testing.TB, opts Options) *Sandbox {
	t.Helper()
	mod, err := os.ReadFile("testdata/evil.wasm")
	if err != nil {
		t.Fatal(err)
	}
	opts.Module = mod
	return newSandbox(t, opts)
}

// waitPoolFull waits until the refill goroutine has every pool slot filled.
func waitPoolFull(t testing.TB, s *Sandbox) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.idle) < cap(s.idle) {
		if time.Now().After(deadline) {
			t.Fatalf("pool holds %d of %d after 10s", len(s.idle), cap(s.idle))
		}
		time.Sleep(time.Millisecond)
	}
}

func TestOptionsValidation(t *testing.T) {
	ctx := context.Background()
	if _, err := New(ctx, Options{MemoryLimit: -1}); err == nil {
		t.Error("negative memory limit accepted")
	}
	if _, err := New(ctx, Options{MemoryLimit: 5 << 30}); err == nil {
		t.Error("memory limit over 4 GiB accepted")
	}
	if _, err := New(ctx, Options{Module: []byte("not wasm")}); err == nil {
		t.Error("garbage module accepted")
	}
	// The Go guest's runtime needs more than one page to start.
	if _, err := New(ctx, Options{CacheDir: cacheDir, MemoryLimit: 64 << 10}); err == nil {
		t.Error("a memory limit the guest cannot start under was accepted")
	}
}
