//go:build unix

package sandbox

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// guestMemory backs each guest's linear memory with pages mapped for it alone, outside the Go
// heap: its whole limit is reserved (address space, no memory) when the instance starts, and
// pages become usable as the guest grows into them, in place. wazero's own memory is a Go
// slice that grows by copying (a Go guest grows its memory a few times while its runtime starts)
// and is garbage once the instance ends: some 21 MB of heap allocated per call, which the
// collector then had to find and which raised the heap's size between collections
// (BenchmarkInspectNoPool, docs/performance.md). Mapped memory goes back to the system the
// moment the instance is closed.
var guestMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(allocateMapped)

// mappedBytes is the address space the guests' memories hold reserved now.
var mappedBytes atomic.Int64

// mappedMemory is one guest's memory: a reservation of the guest's maximum, readable and
// writable up to usable bytes, the rest inaccessible.
type mappedMemory struct {
	mu     sync.Mutex
	m      *mapping
	usable int
}

// mapping is the reservation, apart from mappedMemory so that a cleanup can hold it. freed is
// atomic because the cleanup runs on a goroutine of the runtime's: a second unmap could take
// the pages of a mapping made since at the same address.
type mapping struct {
	mem   []byte
	freed atomic.Bool
}

func allocateMapped(_, maxBytes uint64) experimental.LinearMemory {
	if maxBytes == 0 || maxBytes > uint64(maxMemoryPages*wasmPageSize) {
		return &heapMemory{}
	}
	mem, err := unix.Mmap(-1, 0, int(maxBytes), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		// Out of address space: this guest's memory is in the heap, as wazero's own.
		return &heapMemory{}
	}
	mappedBytes.Add(int64(len(mem)))
	m := &mappedMemory{m: &mapping{mem: mem}}
	// wazero frees a memory when its instance is closed, but not one whose instantiation failed
	// once the memory was made (a module whose data does not fit its memory): that one is
	// unmapped once nothing refers to it.
	runtime.AddCleanup(m, (*mapping).unmap, m.m)
	return m
}

// Reallocate makes the first size bytes usable and returns them; nil (the guest's grow fails)
// beyond the reservation, or when the system refuses.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	mem := m.m.mem
	if m.m.freed.Load() || size > uint64(len(mem)) {
		return nil
	}
	if n := int(size); n > m.usable {
		// Wasm pages are 64 KiB, a multiple of the system's page: n is page-aligned.
		if err := unix.Mprotect(mem[m.usable:n], unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return nil
		}
		m.usable = n
	}
	return mem[:size:size]
}

// Free gives the memory back to the system; wazero calls it when the instance is closed.
func (m *mappedMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.unmap()
}

func (p *mapping) unmap() {
	if p.freed.CompareAndSwap(false, true) {
		_ = unix.Munmap(p.mem)
		mappedBytes.Add(-int64(len(p.mem)))
	}
}

// heapMemory is a guest memory in the Go heap, grown by copying: wazero's own kind, for when
// no address space can be reserved.
type heapMemory struct{ buf []byte }

func (h *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(h.buf)) {
		buf := make([]byte, size)
		copy(buf, h.buf)
		h.buf = buf
	}
	h.buf = h.buf[:size]
	return h.buf
}

func (h *heapMemory) Free() { h.buf = nil }
