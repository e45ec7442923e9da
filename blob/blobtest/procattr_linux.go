package blobtest

import "syscall"

// dieWithParent has the kernel kill a test's server when the test process ends.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
