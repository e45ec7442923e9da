package blobtest

import (
	"os"
	"path/filepath"
	"syscall"
)

// xattrSupported reports whether files in dir take user extended attributes, where
// versitygw keeps object metadata by default (tmpfs before Linux 6.6 and some overlay
// file systems do not).
func xattrSupported(dir string) bool {
	p := filepath.Join(dir, ".xattr-probe")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return false
	}
	defer os.Remove(p)
	return syscall.Setxattr(p, "user.hearth-probe", []byte("1"), 0) == nil
}
