package blob_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/blob"
)

func TestValidateURL(t *testing.T) {
	for _, u := range []string{
		"file:///var/lib/hearth/files",
		"file://./files", // relative, as gocloud reads it
		"file:///srv/files?metadata=skip",
		"mem://",
		"s3://my-bucket?region=eu-west-1",
		"S3://my-bucket",
		"gs://my-bucket",
		"azblob://my-container",
	} {
		if err := blob.ValidateURL(u); err != nil {
			t.Errorf("ValidateURL(%q) = %v", u, err)
		}
	}
	for _, tc := range []struct{ url, want string }{
		{"ftp://host/files", `unknown bucket scheme "ftp": use file://, s3://, gs://, azblob:// or mem://`},
		{"http://example.com/bucket", `unknown bucket scheme "http"`},
		{"/var/lib/hearth/files", "has no scheme: use file://"},
		{"my-bucket", "has no scheme"},
		{"s3://", "names no bucket: write s3://BUCKET"},
		{"gs://?x=1", "names no bucket"},
		{"s3:my-bucket", "lacks the // of s3://BUCKET"},
		{"file://data/files", `has a host ("data"): write file:///absolute/path`},
		{"file://", "names no folder"},
		{"s3://bad bucket", "is malformed"},
		{"s3://b\x7f", "is malformed"},
		{":", "is malformed"},
	} {
		err := blob.ValidateURL(tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateURL(%q) = %v, want an error containing %q", tc.url, err, tc.want)
		}
	}
}

func TestOpenDefaultCreatesPrivateFolder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	b := open(t, "", data)
	defer b.Close()
	if _, err := b.Put(t.Context(), blob.FileKey("f1"), strings.NewReader("hello"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{data, filepath.Join(data, "files"), filepath.Join(data, "files", "files")} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	got, err := os.ReadFile(filepath.Join(data, "files", "files", "f1"))
	if err != nil || string(got) != "hello" {
		t.Errorf("the object is not at <data>/files/files/f1: %q, %v", got, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ url, dataDir, want string }{
		{"", "", "no bucket URL and no data folder"},
		{"ftp://x", dir, "unknown bucket scheme"},
		{"file://" + filepath.Join(dir, "missing"), "", "no such file"},
		{"file://" + dir + "?bogus=1", "", `"bogus"`},
		{"mem://?bogus=1", "", `"bogus"`},
	} {
		b, err := blob.Open(t.Context(), tc.url, tc.dataDir)
		if err == nil {
			b.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q, %q) = %v, want an error containing %q", tc.url, tc.dataDir, err, tc.want)
		}
	}
	// The default folder cannot be made where a file is in the way.
	blocked := filepath.Join(dir, "data")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := blob.Open(t.Context(), "", blocked); err == nil {
		b.Close()
		t.Error("Open under a file succeeded")
	}
}

// A file:// bucket named by URL gets the default bucket's settings: private folders and
// temporary files beside the objects.
func TestOpenFileURLDefaults(t *testing.T) {
	dir := t.TempDir()
	b := open(t, "file://"+dir, "")
	defer b.Close()
	if _, err := b.Put(t.Context(), blob.PreviewKey("p1"), strings.NewReader("x"), ""); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "previews"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("previews/ has mode %v, want 0700", fi.Mode().Perm())
	}
	// An explicit setting wins.
	dir2 := t.TempDir()
	b2 := open(t, "file://"+dir2+"?dir_file_mode=0750", "")
	defer b2.Close()
	if _, err := b2.Put(t.Context(), blob.PreviewKey("p1"), strings.NewReader("x"), ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir2, "previews")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("previews/ with dir_file_mode=0750: %v, %v", fi.Mode(), err)
	}
}

func TestKeys(t *testing.T) {
	for got, want := range map[string]string{
		blob.FileKey("abc"):    "files/abc",
		blob.EmojiKey("abc"):   "emoji/abc",
		blob.PreviewKey("abc"): "previews/abc",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}

func TestCanSign(t *testing.T) {
	for _, u := range []string{"mem://", "file://" + t.TempDir()} {
		b := open(t, u, "")
		if b.CanSign() {
			t.Errorf("%s says it can sign", u)
		}
		b.Close()
	}
	// Opening an s3:// bucket makes no request, so no server is needed to ask it.
	b := open(t, "s3://bucket?region=us-east-1&endpoint=http://127.0.0.1:1", "")
	defer b.Close()
	if !b.CanSign() {
		t.Error("s3:// says it cannot sign")
	}
}

// open opens a bucket for a test or fails it.
func open(t *testing.T, u, dataDir string) *blob.Bucket {
	t.Helper()
	b, err := blob.Open(t.Context(), u, dataDir)
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", u, dataDir, err)
	}
	return b
}

// A file:// URL that sets no_tmp_dir itself (empty or false) still gets its temporary files
// beside the objects: a Put syncs the object where its temporary file says it lands, and one
// made in the system's temporary folder failed every upload.
func TestFileBucketKeepsTemporaryFilesBesideTheObjects(t *testing.T) {
	for _, q := range []string{"?no_tmp_dir=", "?no_tmp_dir=false"} {
		dir := t.TempDir()
		b := open(t, "file://"+filepath.ToSlash(dir)+q, t.TempDir())
		if _, err := b.Put(t.Context(), blob.FileKey("f1"), strings.NewReader("bytes"), "text/plain"); err != nil {
			t.Errorf("%s: Put: %v", q, err)
		}
		b.Close()
	}
}
