package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
	"time"

	"hearth/blob"
)

// testFailingReader: an upload cut off midway leaves no object, and leaves an older one
// at the same key as it was. Sizes below and above S3's multipart threshold (5 MiB).
func testFailingReader(t *testing.T, b *blob.Bucket) {
	for _, n := range []int64{0, 64 << 10, 6 << 20} {
		key := blob.FileKey(newID(t))
		_, err := b.Put(ctx(t), key, failingReader(newPattern(n+1), n), "image/png")
		if !errors.Is(err, errReader) {
			t.Fatalf("Put failing after %d bytes: %v, want the reader's error", n, err)
		}
		assertGone(t, b, key)
	}

	key := blob.FileKey(newID(t))
	put(t, b, key, []byte("first"), "text/plain")
	if _, err := b.Put(ctx(t), key, failingReader(newPattern(6<<20), 6<<20-1), "image/png"); !errors.Is(err, errReader) {
		t.Fatalf("Put over an object, failing: %v", err)
	}
	assertContent(t, b, key, []byte("first"))
}

// testCancelledContext: a request whose client went away ends with its context
// cancelled while Put reads; nothing is stored.
func testCancelledContext(t *testing.T, b *blob.Bucket) {
	for _, n := range []int64{64 << 10, 6 << 20} {
		key := blob.FileKey(newID(t))
		c, cancel := context.WithCancel(ctx(t))
		r := &cancellingReader{r: newPattern(n + 1), n: n, ctx: c, cancel: cancel}
		if _, err := b.Put(c, key, r, "image/png"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Put cancelled after %d bytes: %v, want context.Canceled", n, err)
		}
		assertGone(t, b, key)
	}
}

// testStream puts 25 MiB (the upload limit) from a reader that holds none of it, checks
// that Put allocates no more than limit meanwhile, and reads it all back.
func testStream(t *testing.T, b *blob.Bucket, limit uint64) {
	const size = 25 << 20
	key := blob.FileKey(newID(t))
	p := newPattern(size)
	var n int64
	var err error
	alloc := Allocated(func() { n, err = b.Put(ctx(t), key, p.fresh(), "video/mp4") })
	if err != nil || n != size {
		t.Fatalf("Put = %d, %v; want %d", n, err, size)
	}
	t.Logf("a %d MiB Put allocated %.1f MiB", size>>20, float64(alloc)/(1<<20))
	if limit > 0 && alloc > limit {
		t.Errorf("a %d byte Put allocated %d bytes; the limit is %d: is Put buffering?", size, alloc, limit)
	}

	o, err := b.Open(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got, want := sha256.New(), sha256.New()
	if _, err := io.Copy(got, o); err != nil {
		t.Fatal(err)
	}
	io.Copy(want, p.fresh())
	if o.Size() != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Errorf("read back %d bytes that differ from the %d written", o.Size(), size)
	}
}

// assertGone fails unless there is no object at key, not even in a listing.
func assertGone(t *testing.T, b *blob.Bucket, key string) {
	t.Helper()
	if _, err := b.Stat(ctx(t), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("after a failed Put, Stat(%s) = %v, want ErrNotFound", key, err)
	}
	var listed []string
	if err := b.List(ctx(t), key, func(k string, _ int64, _ time.Time) error {
		listed = append(listed, k)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(listed) > 0 {
		t.Errorf("after a failed Put, listed %v", listed)
	}
}

// assertContent fails unless the object at key holds want.
func assertContent(t *testing.T, b *blob.Bucket, key string, want []byte) {
	t.Helper()
	o, err := b.Open(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got, err := io.ReadAll(o)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s holds %q (%v), want %q", key, got, err, want)
	}
}
