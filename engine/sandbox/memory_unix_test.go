//go:build unix

package sandbox

import (
	"context"
	"testing"
	"time"
	"unsafe"
)

// A guest's memory grows in place, keeps what it held, and stops at its reservation.
func TestMappedMemoryGrowsInPlace(t *testing.T) {
	before := mappedBytes.Load()
	m := allocateMapped(0, 4*wasmPageSize)
	if _, ok := m.(*mappedMemory); !ok {
		t.Fatalf("got %T, want a mapped memory", m)
	}
	b := m.Reallocate(wasmPageSize)
	if len(b) != wasmPageSize {
		t.Fatalf("got %d bytes, want %d", len(b), wasmPageSize)
	}
	b[0], b[len(b)-1] = 7, 9
	g := m.Reallocate(3 * wasmPageSize)
	if len(g) != 3*wasmPageSize || unsafe.SliceData(g) != unsafe.SliceData(b) {
		t.Fatalf("grown to %d bytes at %p, want %d at %p", len(g), unsafe.SliceData(g), 3*wasmPageSize, unsafe.SliceData(b))
	}
	if g[0] != 7 || g[wasmPageSize-1] != 9 || g[len(g)-1] != 0 {
		t.Fatalf("after growing: %d %d %d, want 7 9 0", g[0], g[wasmPageSize-1], g[len(g)-1])
	}
	g[len(g)-1] = 1 // the new pages are writable
	if m.Reallocate(5*wasmPageSize) != nil {
		t.Fatal("grew past its reservation")
	}
	if got := mappedBytes.Load() - before; got != 4*wasmPageSize {
		t.Fatalf("%d bytes reserved, want %d", got, 4*wasmPageSize)
	}
	m.Free()
	m.Free()
	if m.Reallocate(wasmPageSize) != nil {
		t.Fatal("a freed memory grew")
	}
	if got := mappedBytes.Load(); got != before {
		t.Fatalf("%d bytes reserved after Free, want %d", got, before)
	}
}

// Every instance gives its memory back when it ends, however its call ended: answered, out
// of memory, out of time, panicked, or never given an input (the sandbox closed).
func TestGuestMemoryIsGivenBackWhenTheInstanceEnds(t *testing.T) {
	before := mappedBytes.Load()
	s := evilSandbox(t, Options{Timeout: time.Second, MemoryLimit: 32 << 20})
	waitPoolFull(t, s)
	if mappedBytes.Load() <= before {
		t.Fatal("the pool's waiting guests hold no mapped memory")
	}
	for _, payload := range []string{"ok", "alloc", "loop", "panic"} {
		_, _ = s.Inspect(context.Background(), []byte(payload))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := mappedBytes.Load(); got != before {
		t.Fatalf("%d bytes still reserved once the sandbox closed, want %d", got, before)
	}
}
