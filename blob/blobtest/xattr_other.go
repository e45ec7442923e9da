//go:build !linux

package blobtest

// xattrSupported is false where we have no cheap probe: versitygw then keeps metadata
// in a sidecar folder, which works everywhere.
func xattrSupported(string) bool { return false }
