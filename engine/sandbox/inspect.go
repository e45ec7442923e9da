package sandbox

import (
	"context"
	"mime"

	"hearth/engine/sandbox/internal/wire"
)

// HeadSize is how much of a file Inspect looks at; it ignores the rest. Sniffing needs the
// first 512 bytes and most image headers fewer, but a JPEG's size comes after its EXIF,
// XMP and ICC segments (up to 64 KiB each), and a HEIF's after its meta box.
const HeadSize = 256 << 10

// Info is what Inspect learns about a file.
type Info struct {
	// ContentType is the sniffed media type, as net/http.DetectContentType gives it
	// ("application/octet-stream" when nothing matched), or image/avif, image/heic,
	// image/heic-sequence, image/heif or image/heif-sequence from an ISOBMFF ftyp box.
	ContentType string
	// Width and Height are the image's display size in pixels (after HEIF rotation), read
	// from the header of a PNG, JPEG, GIF, WebP, BMP, AVIF or HEIF; zero when not an image
	// of those formats or the header is not whole within the head.
	Width, Height int32
}

// Inspect sniffs the content type of a file from its head (its first HeadSize bytes; pass
// more and the rest is ignored) and reads image dimensions, in a fresh guest. A head that
// makes the guest fail gives an error wrapping ErrUnreadable.
func (s *Sandbox) Inspect(ctx context.Context, head []byte) (Info, error) {
	if len(head) > HeadSize {
		head = head[:HeadSize]
	}
	resp, err := s.call(ctx, wire.OpInspect, head)
	if err != nil {
		return Info{}, err
	}
	r := resp.Inspect
	if r == nil {
		return Info{}, unreadable("guest gave no inspect result")
	}
	if !validContentType(r.ContentType) {
		return Info{}, unreadable("guest gave an invalid content type %q", r.ContentType)
	}
	if !(r.Width == 0 && r.Height == 0) && !(r.Width > 0 && r.Height > 0) {
		return Info{}, unreadable("guest gave invalid dimensions %dx%d", r.Width, r.Height)
	}
	return Info{ContentType: r.ContentType, Width: r.Width, Height: r.Height}, nil
}

// validContentType accepts what can go into a Content-Type header as is: a parseable media
// type of printable ASCII. The guest is ours, but its answer is checked like input, since
// it was computed from hostile bytes.
func validContentType(t string) bool {
	if t == "" || len(t) > 255 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x20 || t[i] > 0x7e {
			return false
		}
	}
	_, _, err := mime.ParseMediaType(t)
	return err == nil
}
