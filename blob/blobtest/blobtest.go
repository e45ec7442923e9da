// Package blobtest is the conformance suite every bucket backend must pass, and the S3
// server it runs against.
package blobtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"hearth/blob"
)

// Options says what the suite may expect of a backend.
type Options struct {
	// AllocLimit bounds the bytes Put may allocate while storing a 25 MiB object, which
	// shows that it streams. Zero skips the check: for mem://, whose objects live in the
	// heap.
	AllocLimit uint64
	// SignsDisposition says that SignedGetURL with a content disposition must give a URL
	// (s3 and gs do; azblob, file and mem do not).
	SignsDisposition bool
}

// Run runs the suite. open returns a bucket for one subtest; the suite closes it. Buckets
// may be shared and need not be empty: every subtest writes under fresh ids.
func Run(t *testing.T, open func(t *testing.T) *blob.Bucket, opts Options) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b *blob.Bucket)
	}{
		{"PutStatOpenRead", testPutStatOpenRead},
		{"ContentType", testContentType},
		{"Empty", testEmpty},
		{"Seek", testSeek},
		{"ServeContent", testServeContent},
		{"NotFound", testNotFound},
		{"Delete", testDelete},
		{"List", testList},
		{"FailingReader", testFailingReader},
		{"CancelledContext", testCancelledContext},
		{"Stream25MiB", func(t *testing.T, b *blob.Bucket) { testStream(t, b, opts.AllocLimit) }},
		{"SignedGetURL", func(t *testing.T, b *blob.Bucket) { testSignedGetURL(t, b, opts.SignsDisposition) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, b)
		})
	}
}

// newID returns an id no other subtest uses, so that backends can be shared.
func newID(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// ctx is a context for one subtest's calls to the bucket.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}
