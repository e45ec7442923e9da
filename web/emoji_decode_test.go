package web_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"os"
	"testing"

	"hearth/engine"
	"hearth/engine/sandbox/sandboxtest"
	"hearth/web/webtest"
)

// paddedPNG is a real w x h PNG grown to exactly size bytes by a private ancillary chunk after
// its header, which decoders skip (its checksum is right).
func paddedPNG(t *testing.T, w, h, size int) []byte {
	t.Helper()
	img := pngImage(t, w, h)
	pad := size - len(img) - 12 // a chunk's length, type and checksum
	if pad < 0 {
		t.Fatalf("a %dx%d PNG is %d bytes, over %d", w, h, len(img), size)
	}
	body := append([]byte("heRt"), make([]byte, pad)...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(pad))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	const afterHeader = 8 + 25 // the signature, then the IHDR chunk
	out := append(append(bytes.Clone(img[:afterHeader]), chunk...), img[afterHeader:]...)
	if len(out) != size {
		t.Fatalf("padded PNG of %d bytes, want %d", len(out), size)
	}
	return out
}

// corruptLastGIFFrame overwrites the first sub-block of a GIF's last frame's LZW data with
// codes no table has yet: the header and every block length stay as they were.
func corruptLastGIFFrame(t *testing.T, b []byte) []byte {
	t.Helper()
	b = bytes.Clone(b)
	at := bytes.LastIndexByte(b, 0x2C) // animatedGIF's frames have no local color table
	data := at + 10 + 1                // the descriptor, the LZW minimum code size
	for i := data + 1; i <= data+int(b[data]) && i < len(b); i++ {
		b[i] = 0xFF
	}
	return b
}

// TestEmojiThatDoesNotDecodeIsRejected: an emoji is decoded whole in the sandbox, every frame of
// an animation, before it is stored: a PNG cut short and a GIF whose last frame is damaged pass
// the header checks but are rejected, with why; a valid image of each type an emoji may be
// (PNG, GIF and WebP, still and animated) is added, and only those are listed and stored.
func TestEmojiThatDoesNotDecodeIsRejected(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	png := pngImage(t, 64, 64)
	anim := animatedGIF(t, 32, 32, 3)
	animWebP, err := os.ReadFile("../engine/sandbox/testdata/images/anim.webp")
	if err != nil {
		t.Fatal(err)
	}
	a := postEmoji(t, s, alice.Token,
		filePart("cut.png", png[:len(png)-30]),
		filePart("broken.gif", corruptLastGIFFrame(t, anim)),
		filePart("cut.webp", webpImage(t)[:40]),
		filePart("fine.png", png),
		filePart("fine.gif", anim),
		filePart("fine.webp", webpImage(t)),
		filePart("moving.webp", animWebP),
	)
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	wantResults(t, a.results, []result{
		{"cut.png", "cut", rejected, "it does not decode: its PNG data is damaged or cut short (png: invalid format: not enough pixel data)"},
		{"broken.gif", "broken", rejected, "it does not decode: its GIF frame 3 is damaged or cut short (gif: reading image data: lzw: invalid code)"},
		{"cut.webp", "cut", rejected, "it does not decode: its WebP data is damaged or cut short (unexpected EOF)"},
		{"fine.png", "fine", added, ""},
		{"fine.gif", "fine", taken, ""},
		{"fine.webp", "fine", taken, ""},
		{"moving.webp", "moving", added, ""},
	})
	if got := emojiURLs(listEmojiOf(t, s, alice)); len(got) != 2 || got["fine"] == "" || got["moving"] == "" {
		t.Errorf("emoji listed %v, want fine and moving", got)
	}
	if keys := emojiKeys(t, s); len(keys) != 2 {
		t.Errorf("objects %v, want the two emoji's", keys)
	}
}

// TestEmojiFramesWithinThePixelBudget: an animation's frames may hold as many pixels as sixteen
// of 512x512 together; one more frame, each a few hundred bytes, is refused before it is decoded.
func TestEmojiFramesWithinThePixelBudget(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	full := sandboxtest.FlatGIF(t, 512, 16)
	over := sandboxtest.FlatGIF(t, 512, 17)
	if len(over) > engine.EmojiMaxBytes {
		t.Fatalf("17 frames of 512x512 make %d bytes", len(over))
	}
	a := postEmoji(t, s, alice.Token, filePart("full.gif", full), filePart("over.gif", over))
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	wantResults(t, a.results, []result{
		{"full.gif", "full", added, ""},
		{"over.gif", "over", rejected, "it does not decode: its frames hold more than 4,194,304 pixels in all"},
	})
}
