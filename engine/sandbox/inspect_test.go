package sandbox

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"
)

func encodePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeGIF(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bmpFile writes a 24-bit BMP by hand (the standard library has no BMP encoder): the
// 14-byte file header, the 40-byte BITMAPINFOHEADER, then rows padded to 4 bytes. A
// negative height is a top-down image.
func bmpFile(w, h int32) []byte {
	rows := h
	if rows < 0 {
		rows = -rows
	}
	stride := (w*3 + 3) &^ 3
	pixels := int(stride * rows)
	b := []byte("BM")
	b = binary.LittleEndian.AppendUint32(b, uint32(54+pixels))
	b = binary.LittleEndian.AppendUint32(b, 0)  // reserved
	b = binary.LittleEndian.AppendUint32(b, 54) // pixel data offset
	b = binary.LittleEndian.AppendUint32(b, 40) // header size
	b = binary.LittleEndian.AppendUint32(b, uint32(w))
	b = binary.LittleEndian.AppendUint32(b, uint32(h))
	b = binary.LittleEndian.AppendUint16(b, 1)  // planes
	b = binary.LittleEndian.AppendUint16(b, 24) // bits per pixel
	b = binary.LittleEndian.AppendUint32(b, 0)  // no compression
	b = binary.LittleEndian.AppendUint32(b, uint32(pixels))
	b = append(b, make([]byte, 16)...) // resolution, palette sizes
	return append(b, make([]byte, pixels)...)
}

// pngHeader writes only a PNG's signature and IHDR chunk, claiming any size.
func pngHeader(w, h uint32) []byte {
	ihdr := []byte("IHDR")
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA, no interlace
	b := []byte("\x89PNG\r\n\x1a\n")
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/images/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func inspect(t *testing.T, s *Sandbox, head []byte) Info {
	t.Helper()
	info, err := s.Inspect(context.Background(), head)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return info
}

func TestInspectImageSizes(t *testing.T) {
	s := sharedSandbox(t)
	tests := []struct {
		name string
		head []byte
		want Info
	}{
		{"png", encodePNG(t, 31, 7), Info{"image/png", 31, 7}},
		{"jpeg", encodeJPEG(t, 33, 17), Info{"image/jpeg", 33, 17}},
		{"gif", encodeGIF(t, 10, 20), Info{"image/gif", 10, 20}},
		{"bmp", bmpFile(5, 3), Info{"image/bmp", 5, 3}},
		{"bmp top-down", bmpFile(5, -3), Info{"image/bmp", 5, 3}},
		{"webp lossy", fixture(t, "lossy.webp"), Info{"image/webp", 7, 5}},
		{"webp lossless", fixture(t, "lossless.webp"), Info{"image/webp", 7, 5}},
		{"webp extended", fixture(t, "alpha.webp"), Info{"image/webp", 7, 5}},
		{"avif", fixture(t, "img.avif"), Info{"image/avif", 7, 5}},
		{"avif rotated", fixture(t, "rotated.avif"), Info{"image/avif", 5, 7}},
		{"avif cropped", fixture(t, "cropped.avif"), Info{"image/avif", 6, 4}},
		{"heic grid", fixture(t, "img.heic"), Info{"image/heic", 7, 5}},
		{"heic with thumbnail", fixture(t, "thumbnail.heic"), Info{"image/heic", 64, 48}},
		{"heic rotated", fixture(t, "rotated.heic"), Info{"image/heic", 5, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inspect(t, s, tt.head); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestInspectContentTypes(t *testing.T) {
	s := sharedSandbox(t)
	mp4 := []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isommp41")
	tests := []struct {
		name, head, want string
	}{
		{"text", "hello, world\n", "text/plain; charset=utf-8"},
		{"empty", "", "text/plain; charset=utf-8"},
		{"html", "<!DOCTYPE html><html><head><title>x</title>", "text/html; charset=utf-8"},
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "application/pdf"},
		{"zip", "PK\x03\x04\x14\x00\x00\x00\x08\x00", "application/zip"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "application/x-gzip"},
		{"mp4", string(mp4), "video/mp4"},
		{"webm", "\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01", "video/webm"},
		{"ogg", "OggS\x00\x02\x00\x00", "application/ogg"},
		{"mp3", "ID3\x03\x00\x00\x00\x00\x00\x00", "audio/mpeg"},
		{"wav", "RIFF\x24\x00\x00\x00WAVEfmt ", "audio/wave"},
		{"binary", "\x00\x01\x02\x03\xff\xfe", "application/octet-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Info{ContentType: tt.want}
			if got := inspect(t, s, []byte(tt.head)); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// The guest reads headers only: a PNG claiming ten billion pixels is reported as claimed,
// and costs nothing (decoding it would need 40 GB).
func TestInspectHugeDimensionsWithoutDecoding(t *testing.T) {
	s := sharedSandbox(t)
	want := Info{"image/png", 100000, 100000}
	if got := inspect(t, s, pngHeader(100000, 100000)); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Beyond int32 the size is not reported, and the call still succeeds.
	want = Info{ContentType: "image/png"}
	if got := inspect(t, s, pngHeader(0x7fffffff, 1<<31)); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A zip bomb named .png is only bytes to Inspect: sniffed as zip, nothing decompressed.
func TestInspectZipBombIsJustAZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, err := zw.Create("bomb.png")
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 16 { // 16 MiB of zeros, about 16 KiB compressed
		if _, err := f.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	s := sharedSandbox(t)
	want := Info{ContentType: "application/zip"}
	if got := inspect(t, s, buf.Bytes()); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Truncated headers and garbage give a content type and no size, never an error.
func TestInspectTruncatedAndGarbage(t *testing.T) {
	s := sharedSandbox(t)
	heic := fixture(t, "img.heic")
	garbage := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"png cut in IHDR", encodePNG(t, 31, 7)[:20], "image/png"},
		{"jpeg cut before its frame header", encodeJPEG(t, 33, 17)[:100], "image/jpeg"},
		{"gif cut in its screen descriptor", encodeGIF(t, 10, 20)[:8], "image/gif"},
		{"bmp cut in its header", bmpFile(5, 3)[:20], "image/bmp"},
		{"webp cut in its header", fixture(t, "lossy.webp")[:20], "image/webp"},
		{"heic cut in its meta box", heic[:200], "image/heic"},
		{"avif of only ftyp", fixture(t, "img.avif")[:32], "image/avif"},
		{"png signature then garbage", append([]byte("\x89PNG\r\n\x1a\n"), garbage...), "image/png"},
		{"garbage", garbage, "application/octet-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Info{ContentType: tt.want}
			if got := inspect(t, s, tt.head); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// Inspect looks at HeadSize bytes and ignores the rest, whatever the caller passes.
func TestInspectIgnoresAllButTheHead(t *testing.T) {
	s := sharedSandbox(t)
	file := append(encodePNG(t, 31, 7), make([]byte, 4*HeadSize)...)
	want := Info{"image/png", 31, 7}
	if got := inspect(t, s, file); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Colours do not matter to the header, but an image with a palette takes GIF's other
// path through DecodeConfig (a global color table).
func TestInspectGIFWithGlobalPalette(t *testing.T) {
	var buf bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, 3, 9), color.Palette{color.Black, color.White})
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{img}, Delay: []int{0}, Config: image.Config{
		ColorModel: img.Palette, Width: 3, Height: 9,
	}}); err != nil {
		t.Fatal(err)
	}
	s := sharedSandbox(t)
	want := Info{"image/gif", 3, 9}
	if got := inspect(t, s, buf.Bytes()); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
