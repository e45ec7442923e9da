package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"hearth/blob"
)

// Destination is where the server keeps its backups: a folder, or a bucket under backups/.
type Destination interface {
	// Save stores one backup under name from what write writes. When write fails, nothing is
	// left under name. It returns where the backup is, for the operator.
	Save(ctx context.Context, name string, write func(io.Writer) error) (string, error)
	// List returns the names of the backups there (Name's form only), oldest first.
	List(ctx context.Context) ([]string, error)
	// Remove deletes one.
	Remove(ctx context.Context, name string) error
	// String names the destination for logs.
	String() string
}

// namePattern is the form of Name: the time sorts as text.
var namePattern = regexp.MustCompile(`^hearth-backup-\d{8}T\d{6}\.\d{3}Z\.tar\.gz$`)

// Name is the name of a backup taken at t.
func Name(t time.Time) string {
	return "hearth-backup-" + t.UTC().Format("20060102T150405.000") + "Z.tar.gz"
}

// BucketPrefix is where backups go in a bucket.
const BucketPrefix = "backups/"

// Folder keeps backups in a local folder.
type Folder string

func (f Folder) String() string { return string(f) }

// Save writes to a hidden temporary file beside the backup and renames it into place once it
// is whole and synced.
func (f Folder) Save(ctx context.Context, name string, write func(io.Writer) error) (string, error) {
	dir := string(f)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return "", err
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	final := filepath.Join(dir, name)
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(final)
	if err != nil {
		abs = final
	}
	return abs, nil
}

func (f Folder) List(ctx context.Context) ([]string, error) {
	entries, err := os.ReadDir(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && namePattern.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func (f Folder) Remove(ctx context.Context, name string) error {
	err := os.Remove(filepath.Join(string(f), name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// InBucket keeps backups in a bucket under BucketPrefix.
type InBucket struct {
	Bucket *blob.Bucket
}

func (b InBucket) String() string { return b.Bucket.Where() + "/" + BucketPrefix }

// Save streams the backup into the bucket; a failed write aborts the upload (blob.Put).
func (b InBucket) Save(ctx context.Context, name string, write func(io.Writer) error) (string, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err)
		done <- err
	}()
	_, err := b.Bucket.Put(ctx, BucketPrefix+name, pr, "application/gzip")
	// Unblock the writer if Put stopped reading early.
	pr.CloseWithError(errors.New("the bucket stopped taking the backup"))
	if werr := <-done; werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return "", err
	}
	return b.Bucket.Where() + "/" + BucketPrefix + name, nil
}

func (b InBucket) List(ctx context.Context) ([]string, error) {
	var names []string
	err := b.Bucket.List(ctx, BucketPrefix, func(key string, _ int64, _ time.Time) error {
		name := strings.TrimPrefix(key, BucketPrefix)
		if namePattern.MatchString(name) {
			names = append(names, name)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

func (b InBucket) Remove(ctx context.Context, name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%q is not a backup's name", name)
	}
	return b.Bucket.Delete(ctx, BucketPrefix+name)
}
