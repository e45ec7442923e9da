package blob_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/blob"
)

// fileblob writes "<object>.attrs" before it renames the object into place, and deletes it
// after the object: a process killed between the two steps leaves an attributes file without
// its object, which no listing shows (so the orphan sweep never saw it) and which stayed for
// good. SweepPartial, run at start, deletes it, and keeps those of objects that are there.
func TestSweepPartialDeletesAttributesWithoutTheirObject(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	b := open(t, "", data)
	defer b.Close()
	if _, err := b.Put(ctx, blob.FileKey("kept"), strings.NewReader("x"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(data, "files", "emoji", "cut.attrs")
	if err := os.MkdirAll(filepath.Dir(lone), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, []byte(`{"ContentType":"image/png"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := b.SweepPartial(ctx)
	if err != nil || n != 1 {
		t.Fatalf("SweepPartial = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(lone); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lone attributes file: %v, want it gone", err)
	}
	if _, err := os.Stat(filepath.Join(data, "files", "files", "kept.attrs")); err != nil {
		t.Fatalf("the attributes of a kept object: %v", err)
	}
	if info, err := b.Stat(ctx, blob.FileKey("kept")); err != nil || info.ContentType != "text/plain" {
		t.Fatalf("the kept object: %+v, %v", info, err)
	}
}
