//go:build unix && !linux

package h2c

import "syscall"

// writeFD is write(2) on a non-blocking socket.
func writeFD(fd uintptr, b []byte) (int, error) {
	return syscall.Write(int(fd), b)
}
