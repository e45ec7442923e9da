package web_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"net/http"
	"testing"

	"hearth/web/webtest"
)

// bigFrameGIF is a GIF whose header claims a 16x16 logical screen while its one frame is
// side x side pixels: all one color, so it is a few kilobytes.
func bigFrameGIF(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, side, side), []color.Color{color.White, color.Black})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint16(b[8:], 16)
	return b
}

// An emoji's 512x512 bound holds for the pixels a GIF's frames reach, not only for the
// logical screen its header claims: 11 KB "of 16x16" holding a 4,000x4,000 frame, which
// every client would decode wherever the emoji shows, is refused.
func TestEmojiGIFFrameLargerThanItsScreenIsRefused(t *testing.T) {
	s := webtest.Start(t)
	alice := s.Join("alice")
	bomb := bigFrameGIF(t, 4000)
	if len(bomb) > 256_000 {
		t.Fatalf("the GIF is %d bytes", len(bomb))
	}
	a := postEmoji(t, s, alice.Token,
		filePart("bomb.gif", bomb),
		filePart("wide.gif", bigFrameGIF(t, 513)),
		filePart("fine.gif", bigFrameGIF(t, 512)),
		filePart("anim.gif", animatedGIF(t, 8, 8, 3)),
	)
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	wantResults(t, a.results, []result{
		{"bomb.gif", "bomb", rejected, "it is 4000x4000 pixels; the limit is 512x512"},
		{"wide.gif", "wide", rejected, "it is 513x513 pixels; the limit is 512x512"},
		{"fine.gif", "fine", added, ""},
		{"anim.gif", "anim", added, ""},
	})
	if n := len(listEmojiOf(t, s, alice)); n != 2 {
		t.Errorf("%d emoji listed, want 2", n)
	}
}
