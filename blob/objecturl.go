package blob

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// OpenObjectURL opens for reading the object a bucket URL names with its path:
// s3://BUCKET/backups/x.tar.gz?region=... is the object backups/x.tar.gz of the bucket
// s3://BUCKET?region=... (gs:// and azblob:// alike). It returns the object's size; Close
// closes the bucket too.
func OpenObjectURL(ctx context.Context, u string) (io.ReadCloser, int64, error) {
	pu, err := parseURL(u)
	if err != nil {
		return nil, 0, err
	}
	switch pu.Scheme {
	case "s3", "gs", "azblob":
	default:
		return nil, 0, fmt.Errorf("%s:// does not name an object: give a local path, or an s3://, gs:// or azblob:// URL with the object's key as its path", pu.Scheme)
	}
	key := strings.TrimPrefix(pu.Path, "/")
	if key == "" {
		return nil, 0, fmt.Errorf("bucket URL %s names no object: add its key as the path, e.g. %s://%s/backups/NAME", pu.Redacted(), pu.Scheme, pu.Host)
	}
	bu := *pu
	bu.Path, bu.RawPath = "", ""
	b, err := Open(ctx, bu.String(), "")
	if err != nil {
		return nil, 0, err
	}
	o, err := b.Open(ctx, key)
	if err != nil {
		b.Close()
		return nil, 0, err
	}
	return objectWithBucket{o, b}, o.Size(), nil
}

type objectWithBucket struct {
	*Object
	b *Bucket
}

func (o objectWithBucket) Close() error {
	err := o.Object.Close()
	o.b.Close()
	return err
}
