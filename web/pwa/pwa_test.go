package pwa

import (
	"bytes"
	"image/png"
	"testing"
)

// TestDefaultIconsArePNGsOfTheirSize: each icon the manifest lists decodes as a PNG of its size,
// orange in the corner's inside and white in the flame.
func TestDefaultIconsArePNGsOfTheirSize(t *testing.T) {
	for _, size := range IconSizes {
		img, err := png.Decode(bytes.NewReader(defaultIcon(size)))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Fatalf("icon %d is %v", size, b)
		}
		at := func(x, y float64) (uint32, uint32, uint32, uint32) {
			return img.At(int(x*float64(size)/64), int(y*float64(size)/64)).RGBA()
		}
		if r, g, b, a := at(8, 32); r>>8 != 0xc2 || g>>8 != 0x41 || b>>8 != 0x0c || a>>8 != 0xff {
			t.Errorf("icon %d: the background at (8,32) is %x %x %x %x", size, r>>8, g>>8, b>>8, a>>8)
		}
		if r, g, b, _ := at(32, 44); r>>8 != 0xff || g>>8 != 0xff || b>>8 != 0xff {
			t.Errorf("icon %d: the flame at (32,44) is %x %x %x", size, r>>8, g>>8, b>>8)
		}
		if _, _, _, a := at(0.2, 0.2); a != 0 {
			t.Errorf("icon %d: the rounded corner is not transparent", size)
		}
	}
}
