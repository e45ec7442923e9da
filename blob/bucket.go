package blob

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// Bucket is where file bytes live. It is safe for concurrent use.
type Bucket struct {
	b      *gcblob.Bucket
	scheme string
	// s3 is the client of an s3:// bucket, used to tune its uploads (see s3.go); nil otherwise.
	s3 *s3.Client
	// where names the bucket for logs: its URL without the query (which may hold settings,
	// never to be logged whole); dir is the folder of a file bucket.
	where, dir string
	hold       deleteHold
}

// Object keys, one prefix per kind of file.

// FileKey is the key of an uploaded file.
func FileKey(id string) string { return "files/" + id }

// EmojiKey is the key of a custom emoji image.
func EmojiKey(id string) string { return "emoji/" + id }

// PreviewKey is the key of a link preview image.
func PreviewKey(id string) string { return "previews/" + id }

// ExportKey is the key of a data export's zip (ExportMyData).
func ExportKey(id string) string { return "exports/" + id }

// schemeHint ends every error about a scheme, so the fix is in the message.
const schemeHint = "use file://, s3://, gs://, azblob:// or mem://"

// ValidateURL checks a bucket URL before anything starts, so that a mistake in -bucket is
// one clear line. It checks the form; whether the bucket can be reached is Open's job.
func ValidateURL(u string) error {
	_, err := parseURL(u)
	return err
}

func parseURL(u string) (*url.URL, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("bucket URL %q is malformed: %v", u, errors.Unwrap(err))
	}
	if pu.Scheme == "" {
		return nil, fmt.Errorf("bucket URL %q has no scheme: %s", u, schemeHint)
	}
	if pu.Opaque != "" {
		return nil, fmt.Errorf("bucket URL %q lacks the // of %s://BUCKET", u, pu.Scheme)
	}
	switch pu.Scheme {
	case "mem":
	case "file":
		// file://data/files reads as host "data" and path "/files": a bucket in the wrong
		// place, silently. gocloud takes host "." as a relative path.
		if pu.Host != "" && pu.Host != "." {
			return nil, fmt.Errorf("file bucket URL %q has a host (%q): write file:///absolute/path, with three slashes", u, pu.Host)
		}
		if pu.Path == "" || (pu.Host == "." && pu.Path == "/") {
			return nil, fmt.Errorf("file bucket URL %q names no folder", u)
		}
	case "s3", "gs", "azblob":
		if pu.Host == "" {
			return nil, fmt.Errorf("bucket URL %q names no bucket: write %s://BUCKET", u, pu.Scheme)
		}
	default:
		return nil, fmt.Errorf("unknown bucket scheme %q: %s", pu.Scheme, schemeHint)
	}
	return pu, nil
}

// Open opens the bucket at URL u. An empty u means file://<dataDir>/files, created if
// missing. The context is used only while opening.
func Open(ctx context.Context, u, dataDir string) (*Bucket, error) {
	if u == "" {
		return openDefault(dataDir)
	}
	pu, err := parseURL(u)
	if err != nil {
		return nil, err
	}
	if pu.Scheme == "file" {
		fileDefaults(pu)
	}
	// gocloud's errors name the URL already.
	b, err := gcblob.OpenBucket(ctx, pu.String())
	if err != nil {
		return nil, err
	}
	bucket := &Bucket{b: b, scheme: pu.Scheme, where: pu.Scheme + "://" + pu.Host + pu.Path}
	if pu.Scheme == "file" {
		// As fileblob reads it: host "." makes the path relative.
		dir := pu.Path
		if pu.Host == "." {
			dir = "." + dir
		}
		bucket.dir = filepath.Clean(dir)
		bucket.where = "file://" + filepath.ToSlash(absDir(bucket.dir))
	}
	if pu.Scheme == "s3" && !b.As(&bucket.s3) {
		b.Close()
		return nil, fmt.Errorf("open bucket %s: the s3 driver gave no client", u)
	}
	return bucket, nil
}

// openDefault opens the folder bucket under the data directory.
func openDefault(dataDir string) (*Bucket, error) {
	if dataDir == "" {
		return nil, errors.New("no bucket URL and no data folder to keep files in")
	}
	dir := filepath.Join(dataDir, "files")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the file folder: %w", err)
	}
	// The folder's own name must be durable too: Put syncs only from the object up to it.
	if err := syncDir(dataDir); err != nil {
		return nil, fmt.Errorf("sync the data folder: %w", err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, DirFileMode: 0o700})
	if err != nil {
		return nil, fmt.Errorf("open the file folder: %w", err)
	}
	return &Bucket{b: b, scheme: "file", dir: dir, where: "file://" + filepath.ToSlash(absDir(dir))}, nil
}

func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// fileDefaults gives a file:// URL the settings of the default bucket: temporary files
// beside the objects, always (a rename across file systems fails, and Put syncs an object
// where its temporary file says it lands: durable.go), and private folders unless it chose
// otherwise.
func fileDefaults(pu *url.URL) {
	q := pu.Query()
	q.Set("no_tmp_dir", "true")
	if !q.Has("dir_file_mode") {
		q.Set("dir_file_mode", "0700")
	}
	pu.RawQuery = q.Encode()
}

// CanSign reports whether the bucket can make its own signed URLs (s3, gs, azblob), so
// that -files-redirect can be warned about on a bucket where it does nothing. A gs://
// bucket opened without signing credentials still says true; SignedGetURL then answers
// ok=false.
func (b *Bucket) CanSign() bool {
	switch b.scheme {
	case "s3", "gs", "azblob":
		return true
	}
	return false
}

// Where names the bucket for a log line: its URL without the query, which may hold settings
// (credentials never appear in a URL we accept, but an operator may try).
func (b *Bucket) Where() string { return b.where }

// Scheme is the bucket URL's scheme: file, s3, gs, azblob or mem.
func (b *Bucket) Scheme() string { return b.scheme }

// Dir is the folder of a file bucket, as it was given (maybe relative); empty for other
// buckets.
func (b *Bucket) Dir() string { return b.dir }

// Close releases the bucket. Objects still open must be closed first.
func (b *Bucket) Close() error {
	return b.b.Close()
}
