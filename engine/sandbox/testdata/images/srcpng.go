//go:build ignore

// Srcpng writes the PNG the fixtures here were encoded from: a gradient with varying
// alpha, so that encoders also write an alpha plane (a second image item in HEIF).
//
//	go run srcpng.go WIDTH HEIGHT out.png
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: srcpng WIDTH HEIGHT out.png")
		os.Exit(2)
	}
	w, errW := strconv.Atoi(os.Args[1])
	h, errH := strconv.Atoi(os.Args[2])
	if errW != nil || errH != nil || w <= 0 || h <= 0 {
		fmt.Fprintln(os.Stderr, "srcpng: bad size")
		os.Exit(2)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, uint8(128 + x*127/w)})
		}
	}
	f, err := os.Create(os.Args[3])
	if err == nil {
		err = png.Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "srcpng:", err)
		os.Exit(1)
	}
}
