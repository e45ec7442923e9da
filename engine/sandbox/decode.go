package sandbox

import (
	"context"
	"fmt"

	"hearth/engine/sandbox/internal/wire"
)

// DecodeMaxBytes is the largest image Decode takes; a longer one is an error.
const DecodeMaxBytes = wire.MaxPayload - 64

// DecodeLimits bound what Decode does: the guest checks them before it decodes anything
// (from the headers, frame by frame), so no image makes it work past them.
type DecodeLimits struct {
	// MaxSide is the most pixels the canvas and every frame may have on a side.
	MaxSide int64
	// MaxPixels is the most pixels all frames together may have.
	MaxPixels int64
}

// Decoded is what Decode learns about an image.
type Decoded struct {
	// ContentType is the sniffed media type, as Info.ContentType.
	ContentType string
	// Width and Height are the canvas the image is shown on; Frames is 1 for a still image.
	Width, Height, Frames int32
	// Problem, when set, says for a person why the image does not decode (its data damaged
	// or cut short, a frame past the limits, not a PNG, GIF or WebP); the other fields may
	// then be zero. It is valid UTF-8 of at most 300 bytes, without control characters.
	Problem string
}

// Decode decodes a whole PNG, GIF or WebP image, every frame of an animated GIF or WebP, in a
// fresh guest: an image whose header is fine but whose data is not gets a Problem, where
// Inspect, reading headers only, would pass it. An image that makes the guest fail (too slow,
// too big for its memory) gives an error wrapping ErrUnreadable.
func (s *Sandbox) Decode(ctx context.Context, img []byte, lim DecodeLimits) (Decoded, error) {
	if len(img) > DecodeMaxBytes {
		return Decoded{}, fmt.Errorf("sandbox: an image to decode is over %d bytes", DecodeMaxBytes)
	}
	if lim.MaxSide <= 0 || lim.MaxPixels <= 0 {
		return Decoded{}, fmt.Errorf("sandbox: decode limits %+v must be positive", lim)
	}
	resp, err := s.call(ctx, wire.OpDecode, wire.EncodeImage(lim.MaxSide, lim.MaxPixels, img))
	if err != nil {
		return Decoded{}, err
	}
	r := resp.Decode
	if r == nil {
		return Decoded{}, unreadable("guest gave no decode result")
	}
	// The guest is ours, but its answer was computed from hostile bytes: check it as input.
	if !validContentType(r.ContentType) {
		return Decoded{}, unreadable("guest gave an invalid content type %q", r.ContentType)
	}
	if r.Problem != "" {
		if !showable(r.Problem, wire.MaxProblem) || len(r.Problem) > wire.MaxProblem {
			return Decoded{}, unreadable("guest gave an invalid problem")
		}
		return Decoded{ContentType: r.ContentType, Problem: r.Problem}, nil
	}
	if r.Width <= 0 || r.Height <= 0 || int64(r.Width) > lim.MaxSide || int64(r.Height) > lim.MaxSide || r.Frames <= 0 {
		return Decoded{}, unreadable("guest gave invalid dimensions %dx%d, %d frames", r.Width, r.Height, r.Frames)
	}
	return Decoded{ContentType: r.ContentType, Width: r.Width, Height: r.Height, Frames: r.Frames}, nil
}
