package blob_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/blob"
)

// SweepPartial removes the temporary files a killed process left in a file bucket (named as
// fileblob names them) and nothing else; other buckets have none.
func TestSweepPartial(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	b := open(t, "", data)
	defer b.Close()
	for _, key := range []string{blob.FileKey("kept"), blob.PreviewKey("kept"), blob.FileKey("name.tmp")} {
		if _, err := b.Put(ctx, key, strings.NewReader("x"), ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"files/a.18f0c2d9e1b3a4c5.tmp", "previews/b.1.tmp"} {
		if err := os.WriteFile(filepath.Join(data, "files", name), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n, err := b.SweepPartial(ctx)
	if err != nil || n != 2 {
		t.Fatalf("SweepPartial = %d, %v; want 2", n, err)
	}
	var keys []string
	b.List(ctx, "", func(key string, _ int64, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	if want := []string{"files/kept", "files/name.tmp", "previews/kept"}; !slices.Equal(keys, want) {
		t.Fatalf("after the sweep: %v, want %v", keys, want)
	}

	mem, err := blob.Open(ctx, "mem://", "")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mem.Put(ctx, "files/a.1.tmp", strings.NewReader("x"), "")
	if n, err := mem.SweepPartial(ctx); n != 0 || err != nil {
		t.Fatalf("a mem bucket: %d, %v", n, err)
	}
}
