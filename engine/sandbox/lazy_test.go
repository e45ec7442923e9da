package sandbox

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// newLazy returns a Lazy on the tests' compilation cache, closed at the end of the test.
func newLazy(t *testing.T, opts Options, quiet time.Duration) *Lazy {
	t.Helper()
	opts.CacheDir = cacheDir
	if opts.Timeout == 0 {
		opts.Timeout = testTimeout
	}
	l, err := NewLazy(opts, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

func (l *Lazy) startCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starts
}

// waitStopped waits until a quiet spell has closed l's Sandbox.
func waitStopped(t *testing.T, l *Lazy) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for l.Started() {
		if time.Now().After(deadline) {
			t.Fatal("still started 10 s after its last call")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLazyStartsOnFirstCallOnly(t *testing.T) {
	l := newLazy(t, Options{}, 0)
	if l.Started() {
		t.Fatal("started before any call")
	}
	want := Info{"image/png", 31, 7}
	for range 2 {
		got, err := l.Inspect(context.Background(), encodePNG(t, 31, 7))
		if err != nil || got != want {
			t.Fatalf("got %+v, %v; want %+v", got, err, want)
		}
	}
	if !l.Started() || l.startCount() != 1 {
		t.Fatalf("started %v, %d starts; want one start that stays", l.Started(), l.startCount())
	}
}

// Calls that arrive while the first start is in progress wait for it: one start serves all.
func TestLazyFirstCallsInParallelShareOneStart(t *testing.T) {
	l := newLazy(t, Options{}, 0)
	want := Info{"image/png", 3, 2}
	head := encodePNG(t, 3, 2)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got, err := l.Inspect(context.Background(), head); err != nil || got != want {
				t.Errorf("got %+v, %v; want %+v", got, err, want)
			}
		})
	}
	wg.Wait()
	if n := l.startCount(); n != 1 {
		t.Errorf("%d starts, want 1", n)
	}
}

// After a quiet spell the Sandbox is closed, and the next call starts a new one.
func TestLazyStopsWhenQuietAndStartsAgain(t *testing.T) {
	l := newLazy(t, Options{}, 20*time.Millisecond)
	want := Info{"image/png", 31, 7}
	for i := 1; i <= 2; i++ {
		if got, err := l.Inspect(context.Background(), encodePNG(t, 31, 7)); err != nil || got != want {
			t.Fatalf("call %d: got %+v, %v; want %+v", i, got, err, want)
		}
		waitStopped(t, l)
		if n := l.startCount(); n != i {
			t.Fatalf("after call %d: %d starts", i, n)
		}
	}
}

// A call in progress keeps the Sandbox started however long it takes.
func TestLazyDoesNotStopUnderACall(t *testing.T) {
	mod, err := os.ReadFile("testdata/evil.wasm")
	if err != nil {
		t.Fatal(err)
	}
	l := newLazy(t, Options{Module: mod, Timeout: 2 * time.Second}, 10*time.Millisecond)
	done := make(chan error, 1)
	go func() {
		_, err := l.Inspect(context.Background(), []byte("loop"))
		done <- err
	}()
	for !l.Started() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the guest loops until its deadline
	if !l.Started() {
		t.Fatal("stopped under a call in progress")
	}
	if err := <-done; !errors.Is(err, ErrUnreadable) {
		t.Fatalf("looping guest: got %v, want ErrUnreadable", err)
	}
	waitStopped(t, l)
}

// A start that fails fails the calls waiting for it; the next call tries again.
func TestLazyStartFailureIsRetried(t *testing.T) {
	l := newLazy(t, Options{Module: returnModule()}, 0)
	for i := 1; i <= 2; i++ {
		_, err := l.Inspect(context.Background(), []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "ended before reading its input") {
			t.Fatalf("call %d: got %v", i, err)
		}
		if l.Started() {
			t.Fatal("a failed start left a Sandbox")
		}
	}
}

// A caller that gives up while waiting for the start does not stop it for others.
func TestLazyCallerGivingUpDoesNotStopTheStart(t *testing.T) {
	l := newLazy(t, Options{}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Inspect(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled caller: got %v", err)
	}
	if got, err := l.Inspect(context.Background(), []byte("plain text")); err != nil || got.ContentType != "text/plain; charset=utf-8" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if n := l.startCount(); n != 1 {
		t.Errorf("%d starts, want 1", n)
	}
}

func TestLazyClose(t *testing.T) {
	ctx := context.Background()
	// Closed before any call: nothing was started.
	l, err := NewLazy(Options{CacheDir: cacheDir}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Inspect(ctx, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: got %v, want ErrClosed", err)
	}

	// Closed during the first start: the caller gets an answer or ErrClosed, and nothing
	// is left running.
	l, err = NewLazy(Options{CacheDir: cacheDir}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := l.Inspect(ctx, []byte("x"))
		res <- err
	}()
	for l.startCount() == 0 && !l.startingNow() {
		time.Sleep(time.Millisecond)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := l.Close(cctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-res; err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("call during Close: got %v, want an answer or ErrClosed", err)
	}
	if l.Started() {
		t.Error("a Sandbox is still started after Close")
	}
	if err := l.Close(cctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func (l *Lazy) startingNow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starting != nil
}

func TestNewLazyChecksOptions(t *testing.T) {
	if _, err := NewLazy(Options{MemoryLimit: -1}, 0); err == nil {
		t.Error("a negative memory limit was accepted")
	}
}

// The callers that waited for a start get the Sandbox it made, however late they wake: a
// quiet spell shorter than their wake-up (here 1 µs) once closed it under them, and they
// started another (TestLazyStopsWhenQuietAndStartsAgain failed on a busy machine).
func TestLazyWaitersGetTheSandboxTheirStartMade(t *testing.T) {
	l := newLazy(t, Options{}, time.Microsecond)
	want := Info{"image/png", 31, 7}
	for i := 1; i <= 3; i++ {
		if got, err := l.Inspect(context.Background(), encodePNG(t, 31, 7)); err != nil || got != want {
			t.Fatalf("call %d: got %+v, %v; want %+v", i, got, err, want)
		}
		waitStopped(t, l)
		if n := l.startCount(); n != i {
			t.Fatalf("after call %d: %d starts, want one a call", i, n)
		}
	}
}
