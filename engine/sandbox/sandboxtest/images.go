// GIFs the decoding tests feed the sandbox: the guest's own tests, the host's and web's alike.

package sandboxtest

import (
	"bytes"
	"image"
	"image/color/palette"
	"image/gif"
	"testing"
)

// GIF is a GIF of frames w x h frames on a screen of the same size, each a different pattern of
// the Plan 9 palette (so its LZW data is not trivially short).
func GIF(t testing.TB, w, h, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	for f := range frames {
		img := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		for i := range img.Pix {
			img.Pix[i] = byte(i*7 + f*31)
		}
		g.Image = append(g.Image, img)
		g.Delay = append(g.Delay, 10)
	}
	return encode(t, g)
}

// FlatGIF is a GIF of frames frames of side x side pixels of one color: a few hundred bytes a
// frame, the most pixels a file of its size can make a decoder produce.
func FlatGIF(t testing.TB, side, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	for range frames {
		g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, side, side), palette.Plan9))
		g.Delay = append(g.Delay, 10)
	}
	return encode(t, g)
}

func encode(t testing.TB, g *gif.GIF) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
