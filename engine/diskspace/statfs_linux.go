package diskspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

func statfs(dir string) (Space, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return Space{}, err
	}
	bs := uint64(st.Bsize)
	return Space{Free: st.Bavail * bs, Total: st.Blocks * bs}, nil
}

// SameDisk reports whether two folders are on one file system (when either cannot be read,
// it says they are, the careful answer for a guard).
func SameDisk(a, b string) bool {
	var sa, sb unix.Stat_t
	if unix.Stat(a, &sa) != nil || unix.Stat(b, &sb) != nil {
		return true
	}
	return sa.Dev == sb.Dev
}

// Used is the disk space the files under dir take: the blocks allocated to them, which for a
// sparse file (Badger's value log, made long and filled as it goes) is less than its length.
func Used(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += fi.Size()
				}
			}
		}
		return nil
	})
	return n, err
}
