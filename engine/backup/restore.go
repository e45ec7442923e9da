package backup

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"hearth/engine/store"
)

// restoreStaging starts the name of the folder a restore unpacks into, inside the data
// directory, so that moving everything into place is a rename on one file system.
const restoreStaging = ".restore-"

// maxManifest bounds the manifest entry.
const maxManifest = 64 << 10

// Restore fills the data directory dir from the backup r. dir may be missing or hold
// anything but a database and the names the backup brings; a directory that holds a
// database is refused before anything is read. Nothing is moved into dir until the whole
// archive was read and checked; a restore that fails leaves dir as it was (a missing dir
// still missing).
func Restore(ctx context.Context, r io.Reader, dir string, log *slog.Logger) (res Summary, err error) {
	if has, err := store.HasDatabase(filepath.Join(dir, "db")); err != nil {
		return res, err
	} else if has {
		return res, fmt.Errorf("%s holds a database: restore fills an empty data directory; move it away or choose another", filepath.Clean(dir))
	}
	if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		// Runs after the staging folder is gone: an empty dir made here goes too.
		defer func() {
			if err != nil {
				os.Remove(dir)
			}
		}()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, err
	}
	staging, err := os.MkdirTemp(dir, restoreStaging)
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(staging)
	if err := unpack(ctx, r, staging, log, &res); err != nil {
		return res, err
	}
	return res, moveInto(staging, dir)
}

// unpack reads the whole archive into staging.
func unpack(ctx context.Context, r io.Reader, staging string, log *slog.Logger, res *Summary) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a Hearth backup (not gzip): %w", err)
	}
	tr := tar.NewReader(gz)
	h, err := tr.Next()
	if err != nil {
		return fmt.Errorf("not a Hearth backup: %w", err)
	}
	if h.Name != ManifestName {
		return fmt.Errorf("not a Hearth backup: it starts with %q, not %s", h.Name, ManifestName)
	}
	b, err := io.ReadAll(io.LimitReader(tr, maxManifest))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &res.Manifest); err != nil {
		return fmt.Errorf("the backup's %s is unreadable: %w", ManifestName, err)
	}
	if res.Manifest.Format > Format || res.Manifest.Format < 1 {
		return fmt.Errorf("the backup has format %d, this Hearth reads format %d: restore it with the version that wrote it (%s) or a newer one", res.Manifest.Format, Format, res.Manifest.Version)
	}
	sawDB := false
	h, err = tr.Next()
	for err == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		name, nerr := entryName(h)
		if nerr != nil {
			return nerr
		}
		if strings.HasPrefix(name, dbPrefix) {
			if sawDB {
				return fmt.Errorf("the backup's database parts are not together (%s)", name)
			}
			sawDB = true
			parts := &partReader{tr: tr, cur: h}
			if err := parts.check(h); err != nil {
				return err
			}
			seq, lerr := store.Load(filepath.Join(staging, "db"), parts, log)
			if parts.err != nil {
				return parts.err
			}
			if lerr != nil {
				return lerr
			}
			res.Seq, res.DBBytes = seq, parts.total
			if h, err = parts.after(); err != nil {
				break
			}
			continue
		}
		n, werr := writeFile(tr, h, filepath.Join(staging, filepath.FromSlash(name)))
		if werr != nil {
			return werr
		}
		if h.Typeflag == tar.TypeReg {
			res.Files++
			res.FileBytes += n
		}
		h, err = tr.Next()
	}
	if err != io.EOF {
		return fmt.Errorf("the backup is damaged or cut short: %w", err)
	}
	// Reading to the end makes gzip check the archive's checksum and length.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return fmt.Errorf("the backup is damaged or cut short: %w", err)
	}
	if !sawDB {
		return errors.New("the backup holds no database")
	}
	return nil
}

// entryName checks an entry: a regular file or a folder, at a clean relative path.
func entryName(h *tar.Header) (string, error) {
	name := strings.TrimSuffix(h.Name, "/")
	if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir {
		return "", fmt.Errorf("the backup holds %q, which is neither a file nor a folder", h.Name)
	}
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "\\") {
		return "", fmt.Errorf("the backup holds an entry with a bad path %q", h.Name)
	}
	if name == ManifestName {
		return "", fmt.Errorf("the backup holds a second %s", ManifestName)
	}
	return name, nil
}

// writeFile creates one entry under staging; keys and files stay private to their owner.
func writeFile(tr *tar.Reader, h *tar.Header, dst string) (int64, error) {
	if h.Typeflag == tar.TypeDir {
		return 0, os.MkdirAll(dst, 0o700)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(h.Mode&0o700)|0o600)
	if err != nil {
		return 0, fmt.Errorf("the backup holds %s twice, or it cannot be written: %w", h.Name, err)
	}
	in := &archiveReader{r: tr}
	n, err := io.Copy(f, in)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if in.err != nil {
		return n, fmt.Errorf("the backup is damaged or cut short (in %s): %w", h.Name, in.err)
	}
	if err != nil {
		return n, fmt.Errorf("restore %s: %w", h.Name, err)
	}
	return n, nil
}

// archiveReader keeps the error of reading the archive apart from one of writing the file.
type archiveReader struct {
	r   io.Reader
	err error
}

func (a *archiveReader) Read(b []byte) (int, error) {
	n, err := a.r.Read(b)
	if err != nil && err != io.EOF {
		a.err = err
	}
	return n, err
}

// partReader reads the database parts, db/00000001 on, as one stream. It ends at the first
// entry that is not a part, which after returns.
type partReader struct {
	tr    *tar.Reader
	cur   *tar.Header
	n     int
	next  *tar.Header
	done  bool
	err   error // a damaged archive, kept apart from what the database makes of it
	total int64
}

func (p *partReader) check(h *tar.Header) error {
	p.n++
	if h.Name != fmt.Sprintf("%s%08d", dbPrefix, p.n) {
		return fmt.Errorf("the backup's database part %s is out of order (expected %s%08d)", h.Name, dbPrefix, p.n)
	}
	return nil
}

func (p *partReader) Read(b []byte) (int, error) {
	for !p.done {
		n, err := p.tr.Read(b)
		p.total += int64(n)
		if err != nil && err != io.EOF {
			p.err = fmt.Errorf("the backup is damaged or cut short: %w", err)
			return n, p.err
		}
		if n > 0 {
			// The end of this part is not the end of the stream: the next call moves on.
			return n, nil
		}
		h, err := p.tr.Next()
		if err != nil {
			p.done = true
			if err != io.EOF {
				p.err = fmt.Errorf("the backup is damaged or cut short: %w", err)
				return 0, p.err
			}
			break
		}
		if !strings.HasPrefix(h.Name, dbPrefix) {
			p.done, p.next = true, h
			break
		}
		if err := p.check(h); err != nil {
			p.err = err
			return 0, err
		}
	}
	return 0, io.EOF
}

// after returns the entry that followed the parts, or io.EOF.
func (p *partReader) after() (*tar.Header, error) {
	if !p.done {
		// Load stopped before the end of its stream: the parts held more than a database.
		return nil, errors.New("the backup's database stream has trailing bytes")
	}
	if p.next == nil {
		return nil, io.EOF
	}
	return p.next, nil
}

// moveInto renames every entry of staging into dir, after checking that none is there yet.
func moveInto(staging, dir string) error {
	entries, err := os.ReadDir(staging)
	if err != nil {
		return err
	}
	for _, e := range entries {
		target := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(target); err == nil {
			// An empty folder (a files/ made by hand, a db/ of a server that never started) is
			// replaced; anything else is the operator's and stays.
			if fi.IsDir() && os.Remove(target) == nil {
				continue
			}
			return fmt.Errorf("%s already exists: restore fills an empty data directory; move it away first", target)
		}
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(staging, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
