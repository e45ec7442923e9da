// Package decode answers the guest's "decode" operation: it decodes a whole PNG, GIF or WebP,
// every frame of an animated one, and says why when it does not decode. A header over junk
// passes the inspect operation, which reads headers only; an image must pass this one to be
// kept where people expect it to render (custom emoji).
//
// The work is bounded before it is done: the canvas and every frame within maxSide pixels on
// a side, all frames together within maxPixels pixels. Frames are decoded one at a time, each
// from a single-frame image made of the file's header and that frame, so memory holds one
// frame however many there are.
package decode

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"strconv"

	"hearth/engine/sandbox/internal/wire"
)

// Decode decodes img within the limits.
func Decode(maxSide, maxPixels int64, img []byte) wire.Decode {
	res := wire.Decode{ContentType: http.DetectContentType(img)}
	l := &limits{maxSide: maxSide, maxPixels: maxPixels}
	var c canvas
	var err error
	switch res.ContentType {
	case "image/png":
		c, err = decodePNG(l, img)
	case "image/gif":
		c, err = decodeGIF(l, img)
	case "image/webp":
		c, err = decodeWebP(l, img)
	default:
		err = fmt.Errorf("it is %s, not a PNG, GIF or WebP image", res.ContentType)
	}
	if err != nil {
		res.Problem = problem(err)
		return res
	}
	res.Width, res.Height, res.Frames = int32(c.w), int32(c.h), int32(min(c.frames, math.MaxInt32))
	return res
}

// canvas is what a decoded image is: its size and how many frames it has.
type canvas struct {
	w, h   int64
	frames int64
}

// limits counts the pixels decoded against the budget.
type limits struct {
	maxSide, maxPixels int64
	pixels             int64
}

// side refuses a canvas or frame larger than maxSide on a side.
func (l *limits) side(what string, w, h int64) error {
	if w > l.maxSide || h > l.maxSide {
		return fmt.Errorf("%s is %dx%d pixels; the limit is %dx%d", what, w, h, l.maxSide, l.maxSide)
	}
	return nil
}

// spend counts a frame of w x h pixels, refusing it if the budget would be exceeded.
func (l *limits) spend(w, h int64) error {
	if l.pixels += w * h; l.pixels > l.maxPixels {
		return fmt.Errorf("its frames hold more than %s pixels in all", thousands(l.maxPixels))
	}
	return nil
}

// thousands writes n with commas between groups of three digits, as the server's messages do.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func decodePNG(l *limits, img []byte) (canvas, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return canvas{}, damaged("PNG", err)
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	if err := l.side("it", w, h); err != nil {
		return canvas{}, err
	}
	if err := l.spend(w, h); err != nil {
		return canvas{}, err
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		return canvas{}, damaged("PNG", err)
	}
	return canvas{w: w, h: h, frames: 1}, nil
}

// damaged is the error of image data that does not decode.
func damaged(format string, err error) error {
	return fmt.Errorf("its %s data is damaged or cut short (%v)", format, err)
}

// problem is an error's text as the answer carries it: valid UTF-8, at most MaxProblem bytes.
func problem(err error) string {
	s := []rune(err.Error())
	for len(string(s)) > wire.MaxProblem {
		s = s[:len(s)-1]
	}
	return string(s)
}
