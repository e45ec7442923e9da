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
	// A second frame counts too, and a head cut inside the data keeps what it read.
	two := &gif.GIF{Config: image.Config{Width: 16, Height: 16}}
	for _, r := range []image.Rectangle{image.Rect(0, 0, 16, 16), image.Rect(0, 0, 16, 16)} {
		two.Image = append(two.Image, image.NewPaletted(r, []color.Color{color.White, color.Black}))
		two.Delay = append(two.Delay, 0)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, two); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The second image descriptor's width: find the second 0x2C that starts a descriptor
	// after the first frame's data, by walking as gifExtent does.
	second := bytes.LastIndex(b, []byte{0x2C, 0, 0, 0, 0, 16, 0, 16, 0})
	if second < 0 {
		t.Fatal("no second image descriptor")
	}
	binary.LittleEndian.PutUint16(b[second+5:], 900)
	if got := Inspect(b); got.Width != 900 || got.Height != 16 {
		t.Errorf("second frame 900 wide: got %dx%d", got.Width, got.Height)
	}
	if got := Inspect(b[:second+3]); got.Width != 16 || got.Height != 16 {
		t.Errorf("cut before the second descriptor ends: got %dx%d, want 16x16", got.Width, got.Height)
	}
}
