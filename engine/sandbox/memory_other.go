//go:build !unix

package sandbox

import "github.com/tetratelabs/wazero/experimental"

// guestMemory is wazero's own (memory_unix.go maps each guest's memory outside the heap).
var guestMemory experimental.MemoryAllocator
