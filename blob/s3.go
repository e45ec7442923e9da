package blob

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// s3AbortTimeout is how long an S3 upload whose Put context ended may take to wind up
// (finish its part in flight, abort), and bounds the abort of a failed multipart upload.
const s3AbortTimeout = 30 * time.Second

// s3TuneUpload replaces the settings of the transfer manager that gocloud's s3 driver
// uploads with, through the *transfermanager.Client that the driver hands to BeforeWrite
// for exactly this purpose. Two defaults do not suit us:
//
//   - It reads the first 16 MiB into memory before deciding on a multipart upload, and
//     then runs five 8 MiB parts at once: a 25 MB upload held whole, and more. We use
//     5 MiB parts, one in flight, so an upload holds about three parts.
//   - When the upload's context is cancelled, it aborts the multipart upload with that
//     same, cancelled, context: the abort fails and the parts stay in the bucket,
//     invisible and billed. FailTimeout gives the abort a fresh context. (Put cancels
//     only when an upload takes too long to wind up; see writeContext.)
//
// The driver calls BeforeWrite before it uses the client, so replacing it is race-free.
func s3TuneUpload(client *s3.Client) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var tm *transfermanager.Client
		if !as(&tm) {
			return nil
		}
		*tm = *transfermanager.New(client, func(o *transfermanager.Options) {
			o.PartSizeBytes = partSize
			o.MultipartUploadThreshold = partSize
			o.Concurrency = 1
			o.FailTimeout = s3AbortTimeout
			// The driver sets this from the bucket URL's request_checksum_calculation;
			// the client it made carries the same setting.
			o.RequestChecksumCalculation = client.Options().RequestChecksumCalculation
		})
		return nil
	}
}

// s3QuietRead keeps the SDK from logging, on every read of an object uploaded in parts,
// that it skipped checking the checksum: such an object has only a checksum of its
// parts' checksums, which a read cannot check. The warning is a log line per download
// that says nothing is wrong.
func s3QuietRead(as func(any) bool) error {
	var opts *[]func(*s3.Options)
	if as(&opts) {
		*opts = append(*opts, func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true })
	}
	return nil
}
