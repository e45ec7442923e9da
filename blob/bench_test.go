package blob_test

import (
	"io"
	"net/url"
	"testing"
	"time"

	"hearth/blob"
)

// BenchmarkPut25MB streams an upload of the largest allowed size into a file bucket.
// Allocations per op stay near the copy buffer (about 1 MiB), not the 25 MB object.
func BenchmarkPut25MB(b *testing.B) {
	const size = 25_000_000
	bucket, err := blob.Open(b.Context(), "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.Close()
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		n, err := bucket.Put(b.Context(), blob.FileKey("bench"), io.LimitReader(zeros{}, size), "video/mp4")
		if err != nil || n != size {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkSignerURL(b *testing.B) {
	s := fixedSigner(b)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		s.URL(testID, "holiday photo.jpg", now)
	}
}

func BenchmarkSignerCheck(b *testing.B) {
	s := fixedSigner(b)
	now := time.Now()
	pu, err := url.Parse(s.URL(testID, "holiday photo.jpg", now))
	if err != nil {
		b.Fatal(err)
	}
	exp, sig := pu.Query().Get("exp"), pu.Query().Get("sig")
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(testID, exp, sig, now); err != nil {
			b.Fatal(err)
		}
	}
}
