//go:build ignore

// Srcflip writes the second frame of the animated WebP fixtures (a.png, from srcpng.go, is
// the first): another gradient, with one transparent pixel.
//
//	go run srcflip.go out.png
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: srcflip out.png")
		os.Exit(2)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 16, 12))
	for y := 0; y < 12; y++ {
		for x := 0; x < 16; x++ {
			img.Set(x, y, color.NRGBA{uint8(255 - x*255/16), 40, uint8(y * 255 / 12), 255})
		}
	}
	img.Set(3, 3, color.NRGBA{0, 0, 0, 0})
	f, err := os.Create(os.Args[1])
	if err == nil {
		err = png.Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "srcflip:", err)
		os.Exit(1)
	}
}
