package blobtest

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"testing"
	"time"

	"hearth/blob"
)

// put stores data at key or fails the test.
func put(t *testing.T, b *blob.Bucket, key string, data []byte, contentType string) {
	t.Helper()
	n, err := b.Put(ctx(t), key, bytes.NewReader(data), contentType)
	if err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
	if n != int64(len(data)) {
		t.Fatalf("Put %s wrote %d bytes, want %d", key, n, len(data))
	}
}

func testPutStatOpenRead(t *testing.T, b *blob.Bucket) {
	key := blob.FileKey(newID(t))
	data := newPattern(100_000).all()
	before := time.Now()
	put(t, b, key, data, "image/png")

	info, err := b.Stat(ctx(t), key)
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if info.Size != int64(len(data)) || info.ContentType != "image/png" {
		t.Errorf("Stat = %+v, want size %d and image/png", info, len(data))
	}
	// Some services keep whole seconds; allow for that and a little clock skew.
	if info.ModTime.Before(before.Add(-2*time.Second)) || info.ModTime.After(time.Now().Add(2*time.Second)) {
		t.Errorf("ModTime %v is not around %v", info.ModTime, before)
	}

	o, err := b.Open(ctx(t), key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if o.Size() != info.Size || o.ContentType() != info.ContentType || !o.ModTime().Equal(info.ModTime) {
		t.Errorf("Object says size %d, type %q, modtime %v; Stat said %+v", o.Size(), o.ContentType(), o.ModTime(), info)
	}
	got, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("read %d bytes that differ from the %d written", len(got), len(data))
	}
	if err := o.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := o.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := o.Read(make([]byte, 1)); err == nil {
		t.Error("Read after Close succeeded")
	}
}

func testContentType(t *testing.T, b *blob.Bucket) {
	for _, tc := range []struct{ put, want string }{
		{"", "application/octet-stream"},
		{"text/plain; charset=utf-8", "text/plain; charset=utf-8"},
		{"video/mp4", "video/mp4"},
	} {
		key := blob.FileKey(newID(t))
		// HTML content, to show that an empty type is not guessed from the bytes.
		put(t, b, key, []byte("<!doctype html><script>alert(1)</script>"), tc.put)
		info, err := b.Stat(ctx(t), key)
		if err != nil {
			t.Fatal(err)
		}
		if info.ContentType != tc.want {
			t.Errorf("Put with type %q: stored %q, want %q", tc.put, info.ContentType, tc.want)
		}
	}
}

func testEmpty(t *testing.T, b *blob.Bucket) {
	key := blob.FileKey(newID(t))
	put(t, b, key, nil, "text/plain")
	o, err := b.Open(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.Size() != 0 {
		t.Errorf("Size = %d, want 0", o.Size())
	}
	if n, err := o.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("Read = %d, %v; want 0, io.EOF", n, err)
	}
}

func testNotFound(t *testing.T, b *blob.Bucket) {
	key := blob.FileKey(newID(t))
	if _, err := b.Stat(ctx(t), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat of a missing object: %v, want ErrNotFound", err)
	}
	if o, err := b.Open(ctx(t), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open of a missing object: %v, want ErrNotFound", err)
		if o != nil {
			o.Close()
		}
	}
	if err := b.Delete(ctx(t), key); err != nil {
		t.Errorf("Delete of a missing object: %v", err)
	}
}

func testDelete(t *testing.T, b *blob.Bucket) {
	key := blob.EmojiKey(newID(t))
	put(t, b, key, []byte("gif"), "image/gif")
	for i := range 2 {
		if err := b.Delete(ctx(t), key); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
	}
	if _, err := b.Stat(ctx(t), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat after Delete: %v, want ErrNotFound", err)
	}
}

func testList(t *testing.T, b *blob.Bucket) {
	id := newID(t)
	want := map[string]int64{
		blob.FileKey(id + "-a"): 1,
		blob.FileKey(id + "-b"): 22,
	}
	for k, size := range want {
		put(t, b, k, bytes.Repeat([]byte("x"), int(size)), "")
	}
	// Same id under the other prefixes: a listing of files/ must not see them.
	put(t, b, blob.EmojiKey(id+"-a"), []byte("e"), "")
	put(t, b, blob.PreviewKey(id+"-a"), []byte("p"), "")

	got := map[string]int64{}
	err := b.List(ctx(t), blob.FileKey(id), func(key string, size int64, modTime time.Time) error {
		got[key] = size
		if modTime.IsZero() {
			t.Errorf("%s listed without a modification time", key)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("List(%q) = %v, want %v", blob.FileKey(id), got, want)
	}

	var emoji []string
	if err := b.List(ctx(t), "emoji/"+id, func(key string, _ int64, _ time.Time) error {
		emoji = append(emoji, key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(emoji, []string{blob.EmojiKey(id + "-a")}) {
		t.Errorf("List(emoji/) = %v", emoji)
	}

	stop := errors.New("stop")
	calls := 0
	err = b.List(ctx(t), blob.FileKey(id), func(string, int64, time.Time) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("List with a failing callback: %v after %d calls, want stop after 1", err, calls)
	}

	var none []string
	if err := b.List(ctx(t), blob.FileKey(newID(t)), func(key string, _ int64, _ time.Time) error {
		none = append(none, key)
		return nil
	}); err != nil || len(none) > 0 {
		t.Errorf("List of an unused prefix: %v, %v", none, err)
	}
}
