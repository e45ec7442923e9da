package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Every way a guest can fail on an input ends that call with ErrUnreadable and leaves the
// sandbox serving. The evil guest fails as its payload names.
func TestGuestFailuresAreUnreadable(t *testing.T) {
	// Only the guests that never answer need the deadline to end them, and a short one keeps
	// the test short; every other failure gets a deadline it cannot reach even on a busy
	// machine under the race detector (which slows the host side of a guest about tenfold), so
	// that it fails for its own reason, never for time.
	short := evilSandbox(t, Options{Timeout: time.Second, MemoryLimit: 32 << 20})
	long := evilSandbox(t, Options{Timeout: time.Minute, MemoryLimit: 32 << 20})
	tests := []struct {
		payload string
		reason  string // part of the error, for the server's log
	}{
		{"loop", "no answer within 1s"},
		{"alloc", "out of memory"},
		{"panic", "evil guest panics"},
		{"exit", "exit status 3"},
		{"spew", "output over 65536 bytes"},
		{"spew-stderr", "no answer within 1s"},
		{"garbage", "not a response"},
		{"two", "goes on after the response"},
		{"header", "invalid content type"},
		{"negative", "invalid dimensions"},
		{"unknown-field", "unknown field"},
		{"error", "the guest refuses"},
		{"empty", "not a response"},
	}
	for _, tt := range tests {
		t.Run(tt.payload, func(t *testing.T) {
			s := long
			if strings.HasPrefix(tt.reason, "no answer within") {
				s = short
			}
			_, err := s.Inspect(context.Background(), []byte(tt.payload))
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("got %v, want ErrUnreadable saying %q", err, tt.reason)
			}
			// And the next input is served as usual.
			want := Info{"text/plain; charset=utf-8", 3, 2}
			if got, err := s.Inspect(context.Background(), []byte("ok")); err != nil || got != want {
				t.Errorf("after %s: got %+v, %v; want %+v", tt.payload, got, err, want)
			}
		})
	}
}

// A deadline counts from the hand-over: an instance that waited in the pool for longer
// than the timeout still gets its whole time.
func TestTimeoutStartsAtHandOver(t *testing.T) {
	s := evilSandbox(t, Options{Timeout: 500 * time.Millisecond})
	waitPoolFull(t, s)
	time.Sleep(700 * time.Millisecond)
	if _, err := s.Inspect(context.Background(), []byte("ok")); err != nil {
		t.Fatalf("a pooled instance older than the timeout failed: %v", err)
	}
}

// The caller's own context ending is the caller's error, not the file's.
func TestCallerCancellation(t *testing.T) {
	s := evilSandbox(t, Options{Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Inspect(ctx, []byte("loop"))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnreadable) {
		t.Errorf("got %v, want the caller's deadline", err)
	}
	if _, err := s.Inspect(context.Background(), []byte("ok")); err != nil {
		t.Errorf("after a canceled call: %v", err)
	}
}

// A wasm trap (here an unreachable instruction after reading the input) is unreadable too.
func TestTrapIsUnreadable(t *testing.T) {
	s := newSandbox(t, Options{Module: trapAfterReadModule()})
	_, err := s.Inspect(context.Background(), []byte("anything"))
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("got %v, want ErrUnreadable for the trap", err)
	}
}

// A guest that cannot get to reading its input is a broken deployment, reported by New.
func TestNewRejectsGuestsThatDoNotStart(t *testing.T) {
	ctx := context.Background()
	_, err := New(ctx, Options{CacheDir: cacheDir, Module: spinModule(), StartTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not start within") {
		t.Errorf("spinning guest: got %v", err)
	}
	_, err = New(ctx, Options{CacheDir: cacheDir, Module: returnModule()})
	if err == nil || !strings.Contains(err.Error(), "ended before reading its input") {
		t.Errorf("guest that returns at once: got %v", err)
	}
}

// Hand-assembled modules for failures a Go guest cannot produce on demand.

// trapAfterReadModule reads up to 32 bytes of stdin (so it reaches the ready state and
// takes its input), then executes unreachable.
func trapAfterReadModule() []byte {
	body := []byte{
		0x41, 0, 0x41, 16, 0x36, 2, 0, // mem[0] = 16: iovec buffer
		0x41, 4, 0x41, 32, 0x36, 2, 0, // mem[4] = 32: iovec length (sLEB128: below 64 is one byte)
		0x41, 0, 0x41, 0, 0x41, 1, 0x41, 8, 0x10, 0, 0x1a, // drop(fd_read(0, iovs=0, 1, nread=8))
		0x00, // unreachable
		0x0b,
	}
	return wasmModule(true, body)
}

// spinModule loops forever in _start without reading stdin.
func spinModule() []byte {
	return wasmModule(false, []byte{0x03, 0x40, 0x0c, 0, 0x0b, 0x0b}) // loop { br 0 }
}

// returnModule returns from _start at once, never reading stdin.
func returnModule() []byte {
	return wasmModule(false, []byte{0x0b})
}

// wasmModule assembles a module exporting memory (one page) and _start with the given
// code, optionally importing WASI's fd_read as function 0.
func wasmModule(importRead bool, code []byte) []byte {
	vec := func(items ...[]byte) []byte {
		out := uleb(uint32(len(items)))
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	name := func(s string) []byte { return append(uleb(uint32(len(s))), s...) }
	section := func(id byte, content []byte) []byte {
		return append(append([]byte{id}, uleb(uint32(len(content)))...), content...)
	}
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}

	readType := []byte{0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f} // (i32 i32 i32 i32) -> i32
	startType := []byte{0x60, 0, 0}                              // () -> ()
	startIndex := byte(0)
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(1, vec(readType, startType))...)
	if importRead {
		m = append(m, section(2, vec(cat(name("wasi_snapshot_preview1"), name("fd_read"), []byte{0, 0})))...)
		startIndex = 1
	}
	m = append(m, section(3, vec([]byte{1}))...)    // _start has type 1
	m = append(m, section(5, vec([]byte{0, 1}))...) // memory: min 1 page
	m = append(m, section(7, vec(
		cat(name("_start"), []byte{0, startIndex}),
		cat(name("memory"), []byte{2, 0}),
	))...)
	fn := append([]byte{0}, code...) // no locals
	m = append(m, section(10, vec(append(uleb(uint32(len(fn))), fn...)))...)
	return m
}

func uleb(v uint32) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}
