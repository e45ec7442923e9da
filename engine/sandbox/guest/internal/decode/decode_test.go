package decode

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	"hearth/engine/sandbox/sandboxtest"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// frameData finds the LZW data of frame n (from 1) of a GIF made by sandboxtest.GIF: the position
// of its first data sub-block's length byte.
func frameData(t *testing.T, b []byte, n int) int {
	t.Helper()
	i := 13
	if b[10]&0x80 != 0 {
		i += 3 << (b[10]&7 + 1)
	}
	for seen := 0; i < len(b); {
		switch b[i] {
		case 0x21:
			j, err := skipSubBlocks(b, i+2)
			if err != nil {
				t.Fatal(err)
			}
			i = j
		case 0x2C:
			j := i + 10
			if b[i+9]&0x80 != 0 {
				j += 3 << (b[i+9]&7 + 1)
			}
			if seen++; seen == n {
				return j + 1
			}
			k, err := skipSubBlocks(b, j+1)
			if err != nil {
				t.Fatal(err)
			}
			i = k
		default:
			t.Fatalf("no frame %d", n)
		}
	}
	t.Fatalf("no frame %d", n)
	return 0
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/images/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bigFrameGIF is a GIF whose header claims a 16x16 screen and whose one frame is side x side.
func bigFrameGIF(t *testing.T, side int) []byte {
	t.Helper()
	b := sandboxtest.GIF(t, side, side, 1)
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint16(b[8:], 16)
	return b
}

func TestDecode(t *testing.T) {
	okPNG := pngOf(t, 40, 30)
	anim := sandboxtest.GIF(t, 20, 10, 3)
	corruptFrame := bytes.Clone(anim)
	at := frameData(t, corruptFrame, 2)
	for i := at + 1; i < at+1+int(corruptFrame[at]); i++ {
		corruptFrame[i] = 0xFF // codes no LZW table has yet
	}
	// The second frame's VP8L bitstream, past its 5-byte header, overwritten: the RIFF sizes
	// still hold, the pixels do not.
	lossless := fixture(t, "anim-lossless.webp")
	frame := bytes.Index(lossless[bytes.Index(lossless, []byte("VP8L"))+4:], []byte("VP8L")) + bytes.Index(lossless, []byte("VP8L")) + 4
	badFrame := bytes.Clone(lossless)
	for i := frame + 8 + 5; i < len(badFrame); i++ {
		badFrame[i] = 0xFF
	}
	for _, tc := range []struct {
		what string
		img  []byte
		want string // the problem, "" when it decodes
		w, h int32
		n    int32
	}{
		{"a PNG", okPNG, "", 40, 30, 1},
		{"a truncated PNG", okPNG[:len(okPNG)-20], "its PNG data is damaged or cut short", 0, 0, 0},
		{"a PNG header alone", okPNG[:33], "its PNG data is damaged or cut short", 0, 0, 0},
		{"an animated GIF", anim, "", 20, 10, 3},
		{"a GIF with a corrupt second frame", corruptFrame, "its GIF frame 2 is damaged or cut short", 0, 0, 0},
		{"a GIF cut inside its last frame", anim[:len(anim)-10], "its GIF data is damaged or cut short (unexpected EOF)", 0, 0, 0},
		{"a GIF without its trailer", anim[:len(anim)-1], "", 20, 10, 3},
		{"a GIF's header alone", anim[:13], "its GIF has no frames", 0, 0, 0},
		{"a GIF whose frame outgrows its screen", bigFrameGIF(t, 64), "", 64, 64, 1},
		{"a GIF whose frame is past the limit", bigFrameGIF(t, 513), "it is 513x513 pixels; the limit is 512x512", 0, 0, 0},
		{"a lossy WebP", fixture(t, "lossy.webp"), "", 7, 5, 1},
		{"a lossless WebP", fixture(t, "lossless.webp"), "", 7, 5, 1},
		{"a WebP with alpha", fixture(t, "alpha.webp"), "", 7, 5, 1},
		{"an animated WebP", fixture(t, "anim.webp"), "", 16, 12, 3},
		{"an animated lossless WebP", fixture(t, "anim-lossless.webp"), "", 16, 12, 2},
		{"an animated WebP with a corrupt second frame", badFrame, "its WebP frame 2 is damaged or cut short", 0, 0, 0},
		{"a truncated WebP", fixture(t, "lossy.webp")[:30], "its WebP data is damaged or cut short", 0, 0, 0},
		{"a truncated animated WebP", fixture(t, "anim.webp")[:300], "its WebP data is damaged or cut short", 0, 0, 0},
		{"text", []byte("hello, world"), "it is text/plain; charset=utf-8, not a PNG, GIF or WebP image", 0, 0, 0},
	} {
		got := Decode(512, 1<<20, tc.img)
		if !strings.HasPrefix(got.Problem, tc.want) || (tc.want == "") != (got.Problem == "") {
			t.Errorf("%s: problem %q, want %q", tc.what, got.Problem, tc.want)
			continue
		}
		if got.Width != tc.w || got.Height != tc.h || got.Frames != tc.n {
			t.Errorf("%s: %dx%d, %d frames; want %dx%d, %d", tc.what, got.Width, got.Height, got.Frames, tc.w, tc.h, tc.n)
		}
	}
}

// The pixel budget counts every frame, and is checked before a frame is decoded.
func TestDecodePixelBudget(t *testing.T) {
	anim := sandboxtest.GIF(t, 20, 10, 3)
	if got := Decode(512, 600, anim); got.Problem != "" {
		t.Fatalf("three frames of 200 pixels within 600: %q", got.Problem)
	}
	if got := Decode(512, 599, anim); got.Problem != "its frames hold more than 599 pixels in all" {
		t.Fatalf("three frames of 200 pixels within 599: %q", got.Problem)
	}
	if got := Decode(512, 16*12*3-1, fixture(t, "anim.webp")); got.Problem != "its frames hold more than 575 pixels in all" {
		t.Fatalf("an animated WebP past the budget: %q", got.Problem)
	}
	if got := Decode(512, 1_000_000, sandboxtest.GIF(t, 500, 500, 5)); got.Problem != "its frames hold more than 1,000,000 pixels in all" {
		t.Fatalf("five frames of 250,000 pixels within 1,000,000: %q", got.Problem)
	}
	if got := Decode(39, 1<<20, pngOf(t, 40, 30)); got.Problem != "it is 40x30 pixels; the limit is 39x39" {
		t.Fatalf("a PNG past the side: %q", got.Problem)
	}
}
