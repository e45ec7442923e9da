package blob_test

import (
	"testing"

	"hearth/blob"
	"hearth/blob/blobtest"
)

// The conformance suite against each backend we can run here. gs:// and azblob:// need
// their clouds; they share the drivers' gocloud conformance, not ours.

// fileAllocLimit bounds what a Put to a file bucket allocates: gocloud's 1 MiB copy
// buffer and small change.
const fileAllocLimit = 2 << 20

func TestFileBucket(t *testing.T) {
	dir := t.TempDir()
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		return open(t, "", dir)
	}, blobtest.Options{AllocLimit: fileAllocLimit})
}

func TestFileBucketURL(t *testing.T) {
	dir := t.TempDir()
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		return open(t, "file://"+dir, "")
	}, blobtest.Options{AllocLimit: fileAllocLimit})
}

func TestMemBucket(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		return open(t, "mem://", "")
	}, blobtest.Options{})
}

func TestS3Bucket(t *testing.T) {
	u := blobtest.StartS3(t)
	blobtest.Run(t, func(t *testing.T) *blob.Bucket {
		return open(t, u, "")
	}, blobtest.Options{AllocLimit: s3AllocLimit, SignsDisposition: true})
}
