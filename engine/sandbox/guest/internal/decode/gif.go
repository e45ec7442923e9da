package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image/gif"
)

var errGIFCut = errors.New("unexpected EOF")

// decodeGIF walks a GIF's blocks and decodes each frame on its own: the header and global
// color table, the graphic control extension that precedes the frame, the frame, a trailer.
// The logical screen of that single-frame GIF is grown to the frame, as browsers grow the
// image to a first frame larger than the screen its header claims (image/gif refuses a frame
// outside the screen); every frame must lie within maxSide pixels on a side. A file that ends
// after a whole frame without the trailer is whole enough: browsers show it.
func decodeGIF(l *limits, img []byte) (canvas, error) {
	if len(img) < 13 {
		return canvas{}, damaged("GIF", errGIFCut)
	}
	c := canvas{w: int64(binary.LittleEndian.Uint16(img[6:])), h: int64(binary.LittleEndian.Uint16(img[8:]))}
	i := 13
	if flags := img[10]; flags&0x80 != 0 {
		i += 3 << (flags&7 + 1) // global color table
	}
	if i > len(img) {
		return canvas{}, damaged("GIF", errGIFCut)
	}
	head := img[:i]
	var control []byte // the graphic control extension for the next frame
	for i < len(img) {
		switch img[i] {
		case 0x21: // extension: label, then sub-blocks
			if i+2 > len(img) {
				return canvas{}, damaged("GIF", errGIFCut)
			}
			end, err := skipSubBlocks(img, i+2)
			if err != nil {
				return canvas{}, damaged("GIF", err)
			}
			if img[i+1] == 0xF9 {
				control = img[i:end]
			}
			i = end
		case 0x2C: // image descriptor: left, top, width, height, flags
			if i+10 > len(img) {
				return canvas{}, damaged("GIF", errGIFCut)
			}
			d := img[i+1:]
			left, top := int64(binary.LittleEndian.Uint16(d[0:])), int64(binary.LittleEndian.Uint16(d[2:]))
			fw, fh := int64(binary.LittleEndian.Uint16(d[4:])), int64(binary.LittleEndian.Uint16(d[6:]))
			if c.frames == 0 {
				// The first frame sets the size the image is shown at (see inspect's gifExtent).
				c.w, c.h = max(c.w, left+fw), max(c.h, top+fh)
				if err := l.side("it", c.w, c.h); err != nil {
					return canvas{}, err
				}
			}
			if err := l.side(fmt.Sprintf("frame %d", c.frames+1), left+fw, top+fh); err != nil {
				return canvas{}, err
			}
			if err := l.spend(fw, fh); err != nil {
				return canvas{}, err
			}
			end := i + 10
			if flags := d[8]; flags&0x80 != 0 {
				end += 3 << (flags&7 + 1) // local color table
			}
			end++ // the LZW minimum code size
			if end > len(img) {
				return canvas{}, damaged("GIF", errGIFCut)
			}
			end, err := skipSubBlocks(img, end)
			if err != nil {
				return canvas{}, damaged("GIF", err)
			}
			if err := decodeGIFFrame(head, control, img[i:end], max(c.w, left+fw), max(c.h, top+fh)); err != nil {
				return canvas{}, fmt.Errorf("its GIF frame %d is damaged or cut short (%v)", c.frames+1, err)
			}
			c.frames++
			control = nil
			i = end
		case 0x3B: // the trailer
			i = len(img)
		default:
			return canvas{}, fmt.Errorf("its GIF data is damaged (byte %d starts no block)", i)
		}
	}
	if c.frames == 0 {
		return canvas{}, errors.New("its GIF has no frames")
	}
	return c, nil
}

// skipSubBlocks returns the position after the data sub-blocks starting at j.
func skipSubBlocks(img []byte, j int) (int, error) {
	for j < len(img) {
		n := int(img[j])
		j++
		if n == 0 {
			return j, nil
		}
		j += n
	}
	return 0, errGIFCut
}

// decodeGIFFrame decodes one frame as a GIF of its own, on a logical screen of w x h.
func decodeGIFFrame(head, control, frame []byte, w, h int64) error {
	if w > 0xFFFF || h > 0xFFFF {
		return fmt.Errorf("it reaches %dx%d, past a GIF's 65535x65535", w, h)
	}
	one := make([]byte, 0, len(head)+len(control)+len(frame)+1)
	one = append(one, head...)
	one[4] = '9' // GIF89a, which the graphic control extension needs
	binary.LittleEndian.PutUint16(one[6:], uint16(w))
	binary.LittleEndian.PutUint16(one[8:], uint16(h))
	one = append(one, control...)
	one = append(one, frame...)
	one = append(one, 0x3B)
	_, err := gif.Decode(bytes.NewReader(one))
	return err
}
