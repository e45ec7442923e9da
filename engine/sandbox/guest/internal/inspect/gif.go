package inspect

import "encoding/binary"

// gifExtent is the width and height a GIF is shown at: its logical screen, grown to its first
// frame when that lies within head. The header's logical screen alone can lie: the first frame
// may be far larger than the screen it claims, and browsers (Chromium, Firefox) then grow the
// image to the frame, decoding and drawing it all, so a few kilobytes "of 16x16 pixels" can
// hold a frame of 4,000x4,000. Later frames are clipped to that size, as browsers clip them.
// Only the block structure is walked (color tables and extensions are skipped by their
// lengths, nothing is decoded), so the cost is linear in head's length. ok is false when head
// does not start with a GIF header and logical screen descriptor.
func gifExtent(head []byte) (w, h int, ok bool) {
	if len(head) < 13 || string(head[:3]) != "GIF" {
		return 0, 0, false
	}
	w, h = int(binary.LittleEndian.Uint16(head[6:])), int(binary.LittleEndian.Uint16(head[8:]))
	i := 13
	if flags := head[10]; flags&0x80 != 0 {
		i += 3 << (flags&7 + 1) // global color table
	}
	// skipSubBlocks returns the position after the data sub-blocks starting at j, or -1 when
	// head ends first.
	skipSubBlocks := func(j int) int {
		for j < len(head) {
			n := int(head[j])
			j++
			if n == 0 {
				return j
			}
			j += n
		}
		return -1
	}
	for i < len(head) {
		switch head[i] {
		case 0x21: // extension: label, then sub-blocks
			if i = skipSubBlocks(i + 2); i < 0 {
				return w, h, true
			}
		case 0x2C: // image descriptor: left, top, width, height, flags
			if i+10 > len(head) {
				return w, h, true
			}
			d := head[i+1:]
			left, top := int(binary.LittleEndian.Uint16(d[0:])), int(binary.LittleEndian.Uint16(d[2:]))
			fw, fh := int(binary.LittleEndian.Uint16(d[4:])), int(binary.LittleEndian.Uint16(d[6:]))
			return max(w, left+fw), max(h, top+fh), true
		default: // the trailer (0x3B), or bytes that are no block: nothing more to read
			return w, h, true
		}
	}
	return w, h, true
}
