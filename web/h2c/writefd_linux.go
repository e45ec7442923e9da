package h2c

import (
	"syscall"
	"unsafe"
)

// writeFD is send(2) on a non-blocking socket, as a raw system call. syscall.Write tells the
// runtime that the goroutine may block: a write still in the kernel at the runtime monitor's
// next tick has its processor handed to another thread, the monitor keeps ticking every
// 20 us, and the writer takes a processor back on its way out. A write that cannot block needs
// none of it; under load, it was about 15% of the server's context switches
// (docs/performance.md). send, not write: write(2) passes through the file layer (vfs_write,
// its checks and hooks) before the socket's own send, where send goes to the socket at once,
// ~6% less CPU per write measured apart, where every delivery is one write; and MSG_NOSIGNAL
// spares the process a SIGPIPE for each write to a client that went away.
func writeFD(fd uintptr, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
