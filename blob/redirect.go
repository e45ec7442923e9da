package blob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// errNoDisposition says the bucket cannot put a Content-Disposition in a signed URL.
var errNoDisposition = errors.New("cannot sign a content disposition")

// SignedGetURL returns the bucket's own URL for reading key, valid for ttl, for the
// -files-redirect mode: check Hearth's signed URL first, then answer 302 with this one.
// Keep ttl short (minutes): anyone holding the URL can read the object until it expires.
//
// ok is false when the bucket cannot make such a URL: file and mem buckets, a gs:// bucket
// opened without signing credentials, and an azblob:// bucket asked for a
// contentDisposition. Serve the object through Open then.
//
// What the response to the URL carries is limited, and the same on every backend that
// says ok: the Content-Type the object was stored with (Put's), and contentDisposition
// if not empty (S3 and GCS take it as the signed response-content-disposition parameter;
// gocloud's Azure driver cannot sign one, hence ok=false there). No other header can be
// set: no X-Content-Type-Options, no Content-Security-Policy. So redirect only files that
// are safe to render on the bucket's origin (images, audio, video), or pass
// "attachment; filename=..." so that a browser saves the file instead of rendering it.
func (b *Bucket) SignedGetURL(ctx context.Context, key string, ttl time.Duration, contentDisposition string) (string, bool, error) {
	if !b.CanSign() {
		return "", false, nil
	}
	if ttl <= 0 {
		return "", false, fmt.Errorf("sign %s: ttl must be positive, not %v", key, ttl)
	}
	if strings.ContainsFunc(contentDisposition, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", false, fmt.Errorf("sign %s: content disposition has a control character", key)
	}
	opts := &gcblob.SignedURLOptions{Expiry: ttl, Method: http.MethodGet}
	if contentDisposition != "" {
		opts.BeforeSign = signDisposition(contentDisposition)
	}
	u, err := b.b.SignedURL(ctx, key, opts)
	if errors.Is(err, errNoDisposition) || gcerrors.Code(err) == gcerrors.Unimplemented {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sign %s: %w", key, err)
	}
	return u, true, nil
}

// signDisposition sets the Content-Disposition of the response in the request a driver
// is about to sign, or fails with errNoDisposition where the driver offers no way to.
func signDisposition(cd string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *s3.GetObjectInput
		if as(&in) {
			in.ResponseContentDisposition = aws.String(cd)
			return nil
		}
		var gcs *storage.SignedURLOptions
		if as(&gcs) {
			// Only V4 signatures cover query parameters.
			gcs.Scheme = storage.SigningSchemeV4
			gcs.QueryParameters = url.Values{"response-content-disposition": {cd}}
			return nil
		}
		return errNoDisposition
	}
}
