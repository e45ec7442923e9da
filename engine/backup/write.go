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
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"hearth/blob"
	"hearth/engine/store"
)

// Format is the archive's layout version; Restore refuses a newer one.
const Format = 1

// ManifestName is the archive's first entry.
const ManifestName = "hearth-backup.json"

// dbPrefix names the parts of the database stream.
const dbPrefix = "db/"

// partSize is the largest part of the database stream: the writer holds one in memory.
const partSize = 1 << 20

// Manifest says what a backup is.
type Manifest struct {
	Format int `json:"format"`
	// Version is the version of the server that wrote it.
	Version string    `json:"version"`
	Created time.Time `json:"created"`
	// Files is set when the bucket's objects are in the backup (the bucket was the data
	// directory's files folder); otherwise they stay in Bucket, which the backup names
	// without its settings.
	Files  bool   `json:"files"`
	Bucket string `json:"bucket"`
}

// Source is what a backup copies.
type Source struct {
	DB *store.DB
	// Dir is the data directory.
	Dir string
	// Bucket is the server's file bucket. Its objects are carried when it is the folder
	// <Dir>/files; its deletions are held while they are.
	Bucket *blob.Bucket
	// Skip are more paths (absolute, or relative to the working directory) to leave out, such
	// as a backup folder inside the data directory.
	Skip []string
	// Version is the server's version, recorded in the manifest.
	Version string
	Log     *slog.Logger
}

// Summary tells what a backup or a restore held.
type Summary struct {
	Manifest Manifest
	// Seq is the newest event seq in the database snapshot.
	Seq int64
	// DBBytes is the length of the database stream; Files how many other files there were and
	// FileBytes their length.
	DBBytes, FileBytes int64
	Files              int
}

// Skipped are the names under the data directory that a backup leaves out: rebuilt, scratch
// or live-only. Any other file is carried.
var Skipped = []string{
	"db",         // carried as Badger's backup stream
	"cache",      // compiled code and such, rebuilt on demand
	"tmp",        // spooled uploads
	"admin.sock", // the running server's socket
}

// bucketSkipped are the prefixes of the bucket folder a backup leaves out: older backups
// (a backup of backups grows without end) and start checks.
var bucketSkipped = []string{"backups", "healthcheck"}

// FilesIncluded reports whether a backup of src carries the bucket's objects.
func (src Source) FilesIncluded() bool {
	if src.Bucket == nil || src.Bucket.Dir() == "" {
		return false
	}
	return samePath(src.Bucket.Dir(), filepath.Join(src.Dir, "files"))
}

// Write writes a backup of src to w. The server keeps serving meanwhile: the database is read
// in one snapshot, and deletions from the bucket wait until its files are copied.
func Write(ctx context.Context, w io.Writer, src Source, now time.Time) (Summary, error) {
	files := src.FilesIncluded()
	if files {
		release := src.Bucket.HoldDeletes()
		defer func() {
			if err := release(context.WithoutCancel(ctx)); err != nil && src.Log != nil {
				src.Log.Warn("deleting files held during a backup; the cleanup will retry", "err", err)
			}
		}()
	}
	sum := Summary{Manifest: Manifest{Format: Format, Version: src.Version, Created: now.UTC(), Files: files}}
	if src.Bucket != nil {
		sum.Manifest.Bucket = src.Bucket.Where()
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return sum, err
	}
	tw := tar.NewWriter(gz)
	manifest, err := json.MarshalIndent(sum.Manifest, "", "  ")
	if err != nil {
		return sum, err
	}
	if err := writeEntry(tw, ManifestName, manifest, now); err != nil {
		return sum, err
	}
	parts := &partWriter{tw: tw, now: now, ctx: ctx}
	if sum.Seq, err = src.DB.Backup(parts); err != nil {
		return sum, fmt.Errorf("back up the database: %w", err)
	}
	if err := parts.flush(); err != nil {
		return sum, err
	}
	sum.DBBytes = parts.total
	if err := copyDir(ctx, tw, src, files, &sum); err != nil {
		return sum, err
	}
	if err := tw.Close(); err != nil {
		return sum, err
	}
	return sum, gz.Close()
}

func writeEntry(tw *tar.Writer, name string, b []byte, now time.Time) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(b)), Mode: 0o600, ModTime: now}); err != nil {
		return err
	}
	_, err := tw.Write(b)
	return err
}

// partWriter cuts the database stream into tar entries of up to partSize bytes.
type partWriter struct {
	tw    *tar.Writer
	ctx   context.Context
	now   time.Time
	buf   []byte
	n     int
	total int64
}

func (p *partWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		if p.buf == nil {
			p.buf = make([]byte, 0, partSize)
		}
		k := min(len(b), partSize-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b, written = b[k:], written+k
		if len(p.buf) == partSize {
			if err := p.flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

func (p *partWriter) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	// A cancelled backup stops at its next part.
	if err := p.ctx.Err(); err != nil {
		return err
	}
	p.n++
	if err := writeEntry(p.tw, fmt.Sprintf("%s%08d", dbPrefix, p.n), p.buf, p.now); err != nil {
		return err
	}
	p.total += int64(len(p.buf))
	p.buf = p.buf[:0]
	return nil
}

// copyDir adds every file of the data directory but the skipped ones, in lexical order.
func copyDir(ctx context.Context, tw *tar.Writer, src Source, files bool, sum *Summary) error {
	root := filepath.Clean(src.Dir)
	skip := map[string]bool{}
	for _, name := range Skipped {
		skip[name] = true
	}
	if files {
		for _, p := range bucketSkipped {
			skip["files/"+p] = true
		}
	} else {
		skip["files"] = true
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != root {
				return nil // deleted while we walked
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if path == root {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if skip[name] || skippedPath(path, src.Skip) || temporary(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			// Sockets, links and devices are no state of ours.
			return nil
		}
		n, err := copyFile(tw, path, name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sum.Files++
		sum.FileBytes += n
		return nil
	})
}

// temporary tells the names of files being written: a file bucket's unfinished objects, the
// data directory's write checks, a restore's staging folder.
func temporary(name string) bool {
	return strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, ".write-check-") || strings.HasPrefix(name, restoreStaging) ||
		certBeingWritten.MatchString(name)
}

// certBeingWritten is the name of a file <data>/certs is writing (autocert writes name.tmpNNN
// beside name, then renames it).
var certBeingWritten = regexp.MustCompile(`\.tmp[0-9]+$`)

func skippedPath(path string, skip []string) bool {
	for _, s := range skip {
		if samePath(path, s) {
			return true
		}
	}
	return false
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// copyFile adds one file. Objects and keys are never rewritten in place (they are written
// beside and renamed), so the length read at open is the length copied.
func copyFile(tw *tar.Writer, path, name string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: fi.Size(), Mode: int64(fi.Mode().Perm()), ModTime: fi.ModTime()}
	if err := tw.WriteHeader(h); err != nil {
		return 0, err
	}
	n, err := io.CopyN(tw, f, fi.Size())
	if errors.Is(err, io.EOF) {
		return n, fmt.Errorf("%s shrank while it was copied; run the backup again", name)
	}
	return n, err
}
