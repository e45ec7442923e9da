// Package inspect answers the guest's "inspect" operation: the content type of a file head
// and, for images, the width and height from the header. It never decodes pixels, so a
// header claiming a huge image costs nothing.
package inspect

import (
	"bytes"
	"image"
	"math"
	"net/http"

	// Formats image.DecodeConfig reads headers of. The guest registers exactly these.
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/webp"

	"hearth/engine/sandbox/guest/internal/heif"
	"hearth/engine/sandbox/internal/wire"
)

// decodable are the content types whose dimensions image.DecodeConfig reads. Asking only
// for these keeps the answer consistent: dimensions are never reported for a head that
// was sniffed as something else.
var decodable = map[string]bool{
	"image/png":  true,
	"image/jpeg": true,
	"image/gif":  true,
	"image/webp": true,
	"image/bmp":  true,
}

// Inspect sniffs head and reads its image dimensions when it is an image of a known format
// whose header is whole within head. A GIF's are those it is shown at (see gifExtent): its
// first frame can reach past the logical screen its header claims.
func Inspect(head []byte) wire.Inspect {
	if t, ok := heif.ContentType(head); ok {
		res := wire.Inspect{ContentType: t}
		if w, h, ok := heif.Size(head); ok {
			res.Width, res.Height = fit(int64(w), int64(h))
		}
		return res
	}
	res := wire.Inspect{ContentType: http.DetectContentType(head)}
	if decodable[res.ContentType] {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(head)); err == nil {
			w, h := cfg.Width, cfg.Height
			if res.ContentType == "image/gif" {
				// The first frame can reach past the logical screen DecodeConfig reports.
				if gw, gh, ok := gifExtent(head); ok {
					w, h = max(w, gw), max(h, gh)
				}
			}
			res.Width, res.Height = fit(int64(w), int64(h))
		}
	}
	return res
}

// fit returns the dimensions if both are positive and fit the response's int32, else
// none: a header that claims a size out of that range is not reported.
func fit(w, h int64) (int32, int32) {
	if w <= 0 || h <= 0 || w > math.MaxInt32 || h > math.MaxInt32 {
		return 0, 0
	}
	return int32(w), int32(h)
}
