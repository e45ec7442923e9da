package blob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Durability of file buckets. The engine commits the row that points at an object only once
// Put has returned, and its commit is synced; the object must be as durable by then, or a
// power cut after the commit leaves a row whose object is missing, empty, or has an empty
// attributes file (which fileblob then fails to read, so the file is an error forever).
// gocloud's fileblob syncs nothing: it writes a temporary file, writes "<path>.attrs", and
// renames the temporary file into place. So Put, on a file bucket, syncs what the write made
// (the object, its attributes) and the folders that name them, up to the bucket's own, before
// it returns. A cut before those syncs leaves an object without a row: an orphan the sweep
// deletes (fileblob deletes it even when its attributes file is empty).

// syncPath flushes a file or folder to the disk. Tests replace it to see what a Put synced.
var syncPath = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// finalPath is the path fileblob renames its temporary file tmp to: tmp without the
// ".<hex>.tmp" it added.
func finalPath(tmp string) string {
	return partialName.ReplaceAllString(tmp, "")
}

// syncObject makes the object fileblob just stored at path durable: its bytes, its
// attributes file (when the bucket writes one) and every folder from the object's up to the
// bucket's folder root.
func syncObject(root, path string) error {
	if err := syncPath(path); err != nil {
		return err
	}
	if err := syncPath(path + ".attrs"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	root = filepath.Clean(root)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if err := syncDir(dir); err != nil {
			return err
		}
		if dir == root || !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return nil
		}
	}
}

// syncDir syncs a folder, where the system can: some refuse fsync on folders (EINVAL), and
// there renames are as durable as they get.
func syncDir(dir string) error {
	err := syncPath(dir)
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
