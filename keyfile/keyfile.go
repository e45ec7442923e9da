// Package keyfile writes the server's secret keys (the issuer's signing key, the file URL key,
// the VAPID key) to the data folder once, so that no crash or race ever leaves two keys or half
// of one: a key that changes ends every login, file URL or push subscription made with the old.
package keyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteOnce puts content at path unless a file is there already, and returns what is at path
// then: content, or the key another process wrote first (the server and `hearth token` may
// start on a fresh data folder at once; both end up with the one that won). The key goes to a
// temporary file (mode 0600) that is synced, then linked into place, and the folder is synced:
// a crash leaves either no key or the whole of it.
func WriteOnce(path string, content []byte) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp") // mode 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	err = os.Link(f.Name(), path)
	if errors.Is(err, fs.ErrExist) {
		return os.ReadFile(path)
	}
	if err != nil {
		// Some file systems (FAT, some network mounts) have no hard links. A rename is as safe
		// from crashes; only two processes starting at once on one new data folder could tell
		// the difference.
		if err := os.Rename(f.Name(), path); err != nil {
			return nil, err
		}
	}
	// The new name must survive a power cut too.
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	return content, nil
}

// syncDir syncs a folder where the system can: some refuse fsync on folders (EINVAL), and
// there renames are as durable as they get. Tests replace it to see what was synced.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
