package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The plugins folder, <data>/plugins: one file per plugin, `<name>.js` while enabled and
// `<name>.js.disabled` while disabled. Files are written whole to a temporary file in the
// folder, synced and renamed over the old one, and the folder is synced, so a crash leaves the
// old source or the new one, never a part.

const (
	enabledExt  = ".js"
	disabledExt = ".js.disabled"
	// tempPrefix starts the temporary files of writeSource (no plugin's file does: ~ is not in
	// a plugin name); a crash may leave one, which the next start removes.
	tempPrefix = "~tmp-"
)

type folder struct{ dir string }

// found is a plugin file of the folder.
type found struct {
	name    string
	enabled bool
}

// list returns the plugins in the folder, by name, creating the folder if needed. A name that
// is there both enabled and disabled counts as enabled. Temporary files left by a crash are
// removed; other files are ignored (skipped names are returned for the log).
func (f folder) list() (out []found, skipped []string, err error) {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, tempPrefix):
			os.Remove(filepath.Join(f.dir, n))
		case !e.Type().IsRegular():
			skipped = append(skipped, n)
		case strings.HasSuffix(n, disabledExt):
			name := strings.TrimSuffix(n, disabledExt)
			if _, ok := byName[name]; !ok {
				byName[name] = false
			}
		case strings.HasSuffix(n, enabledExt):
			byName[strings.TrimSuffix(n, enabledExt)] = true
		default:
			skipped = append(skipped, n)
		}
	}
	for name, enabled := range byName {
		out = append(out, found{name: name, enabled: enabled})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, skipped, nil
}

func (f folder) path(name string, enabled bool) string {
	if enabled {
		return filepath.Join(f.dir, name+enabledExt)
	}
	return filepath.Join(f.dir, name+disabledExt)
}

// read returns a plugin's source, refusing one over limit bytes without reading it whole.
func (f folder) read(name string, enabled bool, limit int) (string, error) {
	file, err := os.Open(f.path(name, enabled))
	if err != nil {
		return "", err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "", err
	}
	if st.Size() > int64(limit) {
		return "", &sourceError{fmt.Sprintf("the source is %s bytes; the limit is %s (256 KB)", thousands(int(st.Size())), thousands(limit))}
	}
	b := make([]byte, st.Size())
	if _, err := file.ReadAt(b, 0); err != nil && st.Size() > 0 {
		return "", err
	}
	return string(b), nil
}

// writeSource writes an enabled plugin's source atomically and removes a disabled copy.
func (f folder) writeSource(name, src string) error {
	tmp, err := os.CreateTemp(f.dir, tempPrefix+name+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path(name, true))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := removeIfThere(f.path(name, false)); err != nil {
		return err
	}
	return f.sync()
}

// rename moves a plugin's file between its enabled and disabled names.
func (f folder) rename(name string, enabled bool) error {
	if err := os.Rename(f.path(name, !enabled), f.path(name, enabled)); err != nil {
		return err
	}
	return f.sync()
}

// remove deletes both files of a plugin.
func (f folder) remove(name string) error {
	if err := removeIfThere(f.path(name, true)); err != nil {
		return err
	}
	if err := removeIfThere(f.path(name, false)); err != nil {
		return err
	}
	return f.sync()
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// sync makes the folder's entries durable.
func (f folder) sync() error {
	d, err := os.Open(f.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
