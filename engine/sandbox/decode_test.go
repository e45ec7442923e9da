package sandbox

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hearth/engine/sandbox/sandboxtest"
)

// emojiLimits are the server's limits for custom emoji (engine: 512x512, and as many pixels
// as sixteen frames of that).
var emojiLimits = DecodeLimits{MaxSide: 512, MaxPixels: 16 * 512 * 512}

// TestDecodeWholeImages: through the real guest, a valid image of each type an emoji may be
// decodes with its canvas and frames; a truncated PNG and a GIF with a corrupt frame do not,
// and say why.
func TestDecodeWholeImages(t *testing.T) {
	s := sharedSandbox(t)
	ctx := context.Background()
	png := encodePNG(t, 40, 30)
	anim := sandboxtest.GIF(t, 20, 10, 3)
	corrupt := bytes.Clone(anim)
	// The last frame's LZW data: overwrite its first sub-block with codes no table has yet.
	last := bytes.LastIndexByte(corrupt, 0x2C)
	for i := last + 12; i < last+12+40 && i < len(corrupt)-2; i++ {
		corrupt[i] = 0xFF
	}
	for _, tc := range []struct {
		what    string
		img     []byte
		problem string
		want    Decoded
	}{
		{"a PNG", png, "", Decoded{ContentType: "image/png", Width: 40, Height: 30, Frames: 1}},
		{"an animated GIF", anim, "", Decoded{ContentType: "image/gif", Width: 20, Height: 10, Frames: 3}},
		{"a WebP", fixture(t, "lossy.webp"), "", Decoded{ContentType: "image/webp", Width: 7, Height: 5, Frames: 1}},
		{"an animated WebP", fixture(t, "anim.webp"), "", Decoded{ContentType: "image/webp", Width: 16, Height: 12, Frames: 3}},
		{"a truncated PNG", png[:len(png)-20], "its PNG data is damaged or cut short", Decoded{}},
		{"a GIF with a corrupt frame", corrupt, "its GIF frame 3 is damaged or cut short", Decoded{}},
	} {
		got, err := s.Decode(ctx, tc.img, emojiLimits)
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if tc.problem != "" {
			if !strings.HasPrefix(got.Problem, tc.problem) {
				t.Errorf("%s: problem %q, want %q", tc.what, got.Problem, tc.problem)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.what, got, tc.want)
		}
	}
}

// TestDecodeWithinLimits: the limits reach the guest, which refuses past them before it
// decodes; an image that fills the server's budget decodes within the call's deadline.
func TestDecodeWithinLimits(t *testing.T) {
	s := sharedSandbox(t)
	ctx := context.Background()
	got, err := s.Decode(ctx, sandboxtest.GIF(t, 20, 10, 3), DecodeLimits{MaxSide: 512, MaxPixels: 599})
	if err != nil || got.Problem != "its frames hold more than 599 pixels in all" {
		t.Fatalf("three frames of 200 pixels within 599: %+v, %v", got, err)
	}
	// 16 frames of 512x512: the budget, in a file an emoji may be.
	full := sandboxtest.FlatGIF(t, 512, 16)
	if len(full) > 256_000 {
		t.Fatalf("the GIF is %d bytes", len(full))
	}
	got, err = s.Decode(ctx, full, emojiLimits)
	if err != nil || got.Problem != "" || got.Frames != 16 {
		t.Fatalf("16 frames of 512x512: %+v, %v", got, err)
	}
	got, err = s.Decode(ctx, sandboxtest.FlatGIF(t, 512, 17), emojiLimits)
	if err != nil || got.Problem != "its frames hold more than 4,194,304 pixels in all" {
		t.Fatalf("17 frames of 512x512: %+v, %v", got, err)
	}
	if _, err := s.Decode(ctx, make([]byte, DecodeMaxBytes+1), emojiLimits); err == nil || errors.Is(err, ErrUnreadable) {
		t.Fatalf("an image over DecodeMaxBytes: %v", err)
	}
	if _, err := s.Decode(ctx, sandboxtest.GIF(t, 4, 4, 2), DecodeLimits{}); err == nil {
		t.Fatal("zero limits are taken")
	}
}

// BenchmarkDecodeFullBudget is how long the guest takes for an emoji that fills the pixel
// budget (16 frames of 512x512, each a few hundred bytes of LZW): it must stay well within the
// sandbox's 2 s deadline. About 0.4 s on a loaded 2-core machine; native Go takes a twentieth.
func BenchmarkDecodeFullBudget(b *testing.B) {
	s := sharedSandbox(b)
	img := sandboxtest.FlatGIF(b, 512, 16)
	for b.Loop() {
		start := time.Now()
		if got, err := s.Decode(context.Background(), img, emojiLimits); err != nil || got.Problem != "" {
			b.Fatalf("%+v, %v", got, err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/decode")
	}
}
