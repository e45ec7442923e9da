package diskspace

import "golang.org/x/sys/unix"

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
