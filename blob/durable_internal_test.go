package blob

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recordSyncs replaces syncPath for the test with one that records what it synced (and still
// syncs), failing for the paths fail names.
func recordSyncs(t *testing.T, fail func(path string) bool) func() []string {
	t.Helper()
	var mu sync.Mutex
	var synced []string
	real := syncPath
	syncPath = func(path string) error {
		if fail != nil && fail(path) {
			return errors.New("the disk said no")
		}
		mu.Lock()
		synced = append(synced, path)
		mu.Unlock()
		return real(path)
	}
	t.Cleanup(func() { syncPath = real })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(synced)
	}
}

// A Put to a file bucket returns only once the object, its attributes file and the folders
// naming them are synced: the engine commits the row pointing at the object right after, and a
// power cut then must not leave the row with a missing or empty file (fileblob syncs nothing
// itself).
func TestPutSyncsFileObjectBeforeReturning(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	b, err := Open(ctx, "", data)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	synced := recordSyncs(t, nil)
	if _, err := b.Put(ctx, FileKey("f1"), strings.NewReader("bytes"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(filepath.Join(data, "files"))
	obj := filepath.Join(root, "files", "f1")
	want := []string{obj, obj + ".attrs", filepath.Join(root, "files"), root}
	if got := synced(); !slices.Equal(got, want) {
		t.Fatalf("synced %q, want %q", got, want)
	}
}

// A Put whose sync fails returns the error and leaves no object: the caller commits no row,
// and no object stays that might not survive a power cut.
func TestPutWhoseSyncFailsLeavesNoObject(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	b, err := Open(ctx, "", data)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	recordSyncs(t, func(path string) bool { return strings.HasSuffix(path, ".attrs") })
	if _, err := b.Put(ctx, EmojiKey("e1"), strings.NewReader("bytes"), "image/png"); err == nil {
		t.Fatal("Put succeeded though its sync failed")
	}
	if _, err := b.Stat(ctx, EmojiKey("e1")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Stat after the failed Put: %v, want ErrNotFound", err)
	}
	left, _ := filepath.Glob(filepath.Join(data, "files", "emoji", "*"))
	if len(left) != 0 {
		t.Fatalf("files left: %q", left)
	}
}

// Other buckets are durable when their write returns; nothing is synced for them.
func TestPutSyncsNothingOnMemBucket(t *testing.T) {
	ctx := context.Background()
	b, err := Open(ctx, "mem://", "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	synced := recordSyncs(t, nil)
	if _, err := b.Put(ctx, FileKey("f1"), strings.NewReader("bytes"), ""); err != nil {
		t.Fatal(err)
	}
	if got := synced(); len(got) != 0 {
		t.Fatalf("synced %q on a mem bucket", got)
	}
}
