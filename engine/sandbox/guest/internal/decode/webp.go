package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/image/webp"
)

var errWebPCut = errors.New("unexpected EOF")

// VP8X flags (the WebP container specification).
const (
	webpAnimation = 1 << 1
	webpAlpha     = 1 << 4
)

// chunk is one RIFF chunk: its four-character code, its payload and all its bytes (header,
// payload and padding).
type chunk struct {
	id        string
	data, all []byte
}

// chunks splits b into RIFF chunks; a chunk that reaches past b is an error.
func chunks(b []byte) ([]chunk, error) {
	var out []chunk
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, errWebPCut
		}
		n := int64(binary.LittleEndian.Uint32(b[4:]))
		end := 8 + n
		if end > int64(len(b)) {
			return nil, errWebPCut
		}
		all := end + n&1 // chunks are padded to an even length
		if all > int64(len(b)) {
			all = end // a missing last pad byte is tolerated, as decoders do
		}
		out = append(out, chunk{id: string(b[:4]), data: b[8:end], all: b[:all]})
		b = b[all:]
	}
	return out, nil
}

// decodeWebP decodes a WebP: a still image whole (x/image/webp reads VP8, VP8L and VP8X with
// alpha), an animated one frame by frame, each ANMF frame's bitstream (and its ALPH) wrapped
// as a still image of the frame's size, which x/image/webp cannot read animated.
func decodeWebP(l *limits, img []byte) (canvas, error) {
	if len(img) < 12 {
		return canvas{}, damaged("WebP", errWebPCut)
	}
	size := int64(binary.LittleEndian.Uint32(img[4:]))
	if size < 4 || 8+size > int64(len(img)) {
		return canvas{}, damaged("WebP", errWebPCut)
	}
	body := img[12 : 8+size] // what follows the RIFF is not the image's
	cs, err := chunks(body)
	if err != nil {
		return canvas{}, damaged("WebP", err)
	}
	if len(cs) == 0 {
		return canvas{}, damaged("WebP", errWebPCut)
	}
	if cs[0].id != "VP8X" || len(cs[0].data) < 10 || cs[0].data[0]&webpAnimation == 0 {
		return decodeStillWebP(l, img[:8+size])
	}
	x := cs[0].data
	c := canvas{w: int64(uint24(x[4:])) + 1, h: int64(uint24(x[7:])) + 1}
	if err := l.side("it", c.w, c.h); err != nil {
		return canvas{}, err
	}
	for _, ch := range cs[1:] {
		if ch.id != "ANMF" {
			continue // ANIM, ICCP, EXIF, XMP and unknown chunks carry no pixels
		}
		if err := decodeWebPFrame(l, c, ch.data, c.frames+1); err != nil {
			return canvas{}, err
		}
		c.frames++
	}
	if c.frames == 0 {
		return canvas{}, errors.New("its WebP is animated but has no frames")
	}
	return c, nil
}

func uint24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }

// decodeStillWebP decodes a WebP that is not animated.
func decodeStillWebP(l *limits, img []byte) (canvas, error) {
	cfg, err := webp.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return canvas{}, damaged("WebP", err)
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	if err := l.side("it", w, h); err != nil {
		return canvas{}, err
	}
	if err := l.spend(w, h); err != nil {
		return canvas{}, err
	}
	if _, err := webp.Decode(bytes.NewReader(img)); err != nil {
		return canvas{}, damaged("WebP", err)
	}
	return canvas{w: w, h: h, frames: 1}, nil
}

// decodeWebPFrame decodes the frame n of an animation from its ANMF payload: 16 bytes of
// position, size, duration and flags, then its ALPH (optional) and VP8 or VP8L chunks.
func decodeWebPFrame(l *limits, c canvas, anmf []byte, n int64) error {
	if len(anmf) < 16 {
		return fmt.Errorf("its WebP frame %d is damaged or cut short (%v)", n, errWebPCut)
	}
	left, top := 2*int64(uint24(anmf[0:])), 2*int64(uint24(anmf[3:]))
	fw, fh := int64(uint24(anmf[6:]))+1, int64(uint24(anmf[9:]))+1
	if left+fw > c.w || top+fh > c.h {
		return fmt.Errorf("its WebP frame %d (%dx%d at %d,%d) reaches past the %dx%d canvas", n, fw, fh, left, top, c.w, c.h)
	}
	if err := l.spend(fw, fh); err != nil {
		return err
	}
	parts, err := chunks(anmf[16:])
	if err != nil {
		return fmt.Errorf("its WebP frame %d is damaged or cut short (%v)", n, err)
	}
	var alpha, bitstream []byte
	for _, p := range parts {
		switch p.id {
		case "ALPH":
			alpha = p.all
		case "VP8 ", "VP8L":
			if bitstream != nil {
				return fmt.Errorf("its WebP frame %d has two images", n)
			}
			bitstream = p.all
		}
	}
	if bitstream == nil {
		return fmt.Errorf("its WebP frame %d has no image", n)
	}
	// A still VP8X image of the frame's size: x/image/webp checks the bitstream against it.
	var flags byte
	if alpha != nil {
		flags = webpAlpha
	}
	vp8x := []byte{'V', 'P', '8', 'X', 10, 0, 0, 0, flags, 0, 0, 0}
	vp8x = append(vp8x, byte(fw-1), byte((fw-1)>>8), byte((fw-1)>>16), byte(fh-1), byte((fh-1)>>8), byte((fh-1)>>16))
	still := make([]byte, 0, 12+len(vp8x)+len(alpha)+len(bitstream))
	still = append(still, 'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P')
	still = append(still, vp8x...)
	still = append(still, alpha...)
	still = append(still, bitstream...)
	binary.LittleEndian.PutUint32(still[4:], uint32(len(still)-8))
	if _, err := webp.Decode(bytes.NewReader(still)); err != nil {
		return fmt.Errorf("its WebP frame %d is damaged or cut short (%v)", n, err)
	}
	return nil
}
