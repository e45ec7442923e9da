//go:build !linux

package blobtest

import "syscall"

// dieWithParent is Linux's only: elsewhere a server outlives a test process that ends without
// its cleanups.
func dieWithParent() *syscall.SysProcAttr { return nil }
