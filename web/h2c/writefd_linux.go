package h2c

import (
	"syscall"
	"unsafe"
)

// writeFD is write(2) on a non-blocking socket, as a raw system call. syscall.Write tells the
// runtime that the goroutine may block: a write still in the kernel at the runtime monitor's
// next tick has its processor handed to another thread, the monitor keeps ticking every
// 20 us, and the writer takes a processor back on its way out. A write that cannot block needs
// none of it; under load, it was about 15% of the server's context switches
// (docs/performance.md).
func writeFD(fd uintptr, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
