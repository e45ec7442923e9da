package inspect

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"testing"
)

// gifWithScreen is a GIF of one frame of fw x fh pixels at (left, top) whose header claims a
// logical screen of sw x sh.
func gifWithScreen(t *testing.T, sw, sh, left, top, fw, fh int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(left, top, left+fw, top+fh), []color.Color{color.White, color.Black})
	var buf bytes.Buffer
	err := gif.EncodeAll(&buf, &gif.GIF{
		Image:  []*image.Paletted{img},
		Delay:  []int{0},
		Config: image.Config{Width: max(sw, left+fw), Height: max(sh, top+fh), ColorModel: img.Palette},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.LittleEndian.PutUint16(b[6:], uint16(sw))
	binary.LittleEndian.PutUint16(b[8:], uint16(sh))
	return b
}

func TestGIFDimensionsAreWhatItsFramesReach(t *testing.T) {
	tests := []struct {
		name         string
		gif          []byte
		wantW, wantH int32
	}{
		{"frame within the screen", gifWithScreen(t, 32, 20, 2, 3, 10, 10), 32, 20},
		{"frame larger than the screen", gifWithScreen(t, 16, 16, 0, 0, 4000, 3000), 4000, 3000},
		{"frame placed past the screen", gifWithScreen(t, 16, 16, 600, 10, 8, 8), 608, 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Inspect(tt.gif)
			if got.ContentType != "image/gif" || got.Width != tt.wantW || got.Height != tt.wantH {
				t.Errorf("got %s %dx%d, want image/gif %dx%d", got.ContentType, got.Width, got.Height, tt.wantW, tt.wantH)
			}
		})
	}
	// A later frame is clipped to the first's extent, as browsers clip it; extensions before
	// the first frame are skipped, and a head cut before its descriptor ends keeps the screen.
	two := &gif.GIF{Config: image.Config{Width: 16, Height: 16}, LoopCount: 0}
	for range 2 {
		two.Image = append(two.Image, image.NewPaletted(image.Rect(0, 0, 16, 16), []color.Color{color.White, color.Black}))
		two.Delay = append(two.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, two); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	descriptor := []byte{0x2C, 0, 0, 0, 0, 16, 0, 16, 0}
	first, second := bytes.Index(b, descriptor), bytes.LastIndex(b, descriptor)
	if first < 0 || second <= first {
		t.Fatal("no two image descriptors")
	}
	later := bytes.Clone(b)
	binary.LittleEndian.PutUint16(later[second+5:], 900)
	if got := Inspect(later); got.Width != 16 || got.Height != 16 {
		t.Errorf("second frame 900 wide: got %dx%d, want 16x16", got.Width, got.Height)
	}
	firstWide := bytes.Clone(b)
	binary.LittleEndian.PutUint16(firstWide[first+5:], 900)
	if got := Inspect(firstWide); got.Width != 900 || got.Height != 16 {
		t.Errorf("first frame 900 wide, after a graphic control extension: got %dx%d, want 900x16", got.Width, got.Height)
	}
	if got := Inspect(firstWide[:first+6]); got.Width != 16 || got.Height != 16 {
		t.Errorf("cut inside the first descriptor: got %dx%d, want 16x16", got.Width, got.Height)
	}
}
