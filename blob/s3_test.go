package blob_test

import (
	"context"
	"errors"
	"io"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcblob "gocloud.dev/blob"

	"hearth/blob"
	"hearth/blob/blobtest"
)

// An upload cut off after S3 started a multipart upload must abort it: the parts of an
// upload never completed are invisible to List, yet stay in the bucket and are billed.
// Cancelling the requests instead (gocloud's way to abort a write) left parts behind
// now and then: a part cut off mid-request may be stored after the abort.
func TestS3FailedPutLeavesNoParts(t *testing.T) {
	u := blobtest.StartS3(t)
	b := open(t, u, "")
	defer b.Close()

	cut := errors.New("cut")
	big := io.MultiReader(io.LimitReader(zeros{}, 12<<20), failing{cut})
	if _, err := b.Put(t.Context(), blob.FileKey("cut"), big, "video/mp4"); !errors.Is(err, cut) {
		t.Fatalf("Put = %v, want the reader's error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancelling := io.MultiReader(io.LimitReader(zeros{}, 12<<20), cancelOnRead{cancel})
	if _, err := b.Put(ctx, blob.FileKey("cancelled"), cancelling, "video/mp4"); err == nil {
		t.Fatal("Put with a cancelled context succeeded")
	}

	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := gcblob.OpenBucket(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var client *s3.Client
	if !raw.As(&client) {
		t.Fatal("no s3 client")
	}
	out, err := client.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: &pu.Host})
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range out.Uploads {
		t.Errorf("multipart upload of %s left behind", *up.Key)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// cancelOnRead cancels the context, as a server does when its client goes away, and
// fails the read as a request body then does.
type cancelOnRead struct{ cancel context.CancelFunc }

func (c cancelOnRead) Read([]byte) (int, error) {
	c.cancel()
	return 0, errors.New("client disconnected")
}

// s3AllocLimit bounds what a Put to S3 allocates: the first 5 MiB part, read whole
// before the upload starts (io.ReadAll: about 11 MiB with its growing, 22 MiB under the
// race detector, which does not optimise its final copy), two pooled 5 MiB parts and the
// SDK's requests come to 21 MiB (32 with -race), whatever the object's size. gocloud's
// defaults allocate about 84 MiB, for 25 MiB as for 64.
const s3AllocLimit = 40 << 20

// What a Put to S3 allocates depends on the part size, not on the object's size.
func TestS3PutMemoryDoesNotGrowWithSize(t *testing.T) {
	b := open(t, blobtest.StartS3(t), "")
	defer b.Close()
	const size = 64 << 20
	var err error
	alloc := blobtest.Allocated(func() {
		_, err = b.Put(t.Context(), blob.FileKey("big"), io.LimitReader(zeros{}, size), "video/mp4")
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d MiB Put allocated %.1f MiB", size>>20, float64(alloc)/(1<<20))
	if alloc > s3AllocLimit {
		t.Errorf("a %d byte Put allocated %d bytes; the limit is %d", size, alloc, s3AllocLimit)
	}
}
