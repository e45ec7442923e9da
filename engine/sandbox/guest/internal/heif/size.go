package heif

import "encoding/binary"

// maxProperties bounds the item properties read from ipco. An ipma association addresses
// a property with at most 15 bits, so no file can use more than this many.
const maxProperties = 1 << 15

// Size returns the display size of the primary image: its ispe (the coded size), cropped
// by its clean aperture (clap) and turned by its rotation (irot), in that order as HEIF
// applies them. ok is false when b does not hold the whole meta box or the primary item
// has no ispe. b is the file from its start (its ftyp box first).
func Size(b []byte) (width, height uint32, ok bool) {
	meta, ok := findMeta(b)
	if !ok {
		return 0, 0, false
	}
	_, _, body, ok := fullBoxBody(meta.body)
	if !ok {
		return 0, 0, false
	}
	var (
		primary    uint32
		hasPrimary bool
		iprp       []byte
	)
	for _, bx := range children(body, maxBoxes) {
		switch bx.typ {
		case "pitm":
			primary, hasPrimary = parsePitm(bx.body)
		case "iprp":
			if iprp == nil {
				iprp = bx.body
			}
		}
	}
	if !hasPrimary || iprp == nil {
		return 0, 0, false
	}
	props := primaryProperties(iprp, primary)
	return displaySize(props)
}

// findMeta returns the top-level meta box, looking past the boxes before it (ftyp, and
// possibly free or other small boxes) but never past one that b does not hold whole.
func findMeta(b []byte) (box, bool) {
	for i := 0; i < maxBoxes; i++ {
		bx, rest, ok := nextBox(b)
		if !ok {
			return box{}, false
		}
		if bx.typ == "meta" {
			return bx, true
		}
		b = rest
	}
	return box{}, false
}

// parsePitm reads the primary item's id: 16 bits in version 0, 32 bits after.
func parsePitm(body []byte) (uint32, bool) {
	version, _, rest, ok := fullBoxBody(body)
	if !ok {
		return 0, false
	}
	r := reader{b: rest}
	var id uint32
	if version == 0 {
		id = r.u16()
	} else {
		id = r.u32()
	}
	return id, !r.bad
}

// primaryProperties returns the properties associated with item, in association order.
// iprp holds one ipco (the properties, numbered from 1) and one or more ipma (which item
// uses which property numbers).
func primaryProperties(iprp []byte, item uint32) []box {
	var ipco []box
	var ipmas [][]byte
	for _, bx := range children(iprp, maxBoxes) {
		switch bx.typ {
		case "ipco":
			if ipco == nil {
				ipco = children(bx.body, maxProperties)
			}
		case "ipma":
			ipmas = append(ipmas, bx.body)
		}
	}
	var props []box
	for _, ipma := range ipmas {
		for _, idx := range associations(ipma, item) {
			if idx >= 1 && int(idx) <= len(ipco) {
				props = append(props, ipco[idx-1])
			}
		}
	}
	return props
}

// associations returns the property numbers one ipma box gives item. Each entry is an
// item id (16 or 32 bits by version), a count, then that many numbers of 7 or 15 bits (by
// flag 1) behind an "essential" bit.
func associations(ipma []byte, item uint32) []uint32 {
	version, flags, body, ok := fullBoxBody(ipma)
	if !ok {
		return nil
	}
	r := reader{b: body}
	entries := r.u32()
	for e := uint32(0); e < entries && !r.bad; e++ {
		var id uint32
		if version < 1 {
			id = r.u16()
		} else {
			id = r.u32()
		}
		n := r.u8()
		var idx []uint32
		for a := uint32(0); a < n && !r.bad; a++ {
			var v uint32
			if flags&1 != 0 {
				v = r.u16() & 0x7fff
			} else {
				v = r.u8() & 0x7f
			}
			if id == item {
				idx = append(idx, v)
			}
		}
		if r.bad {
			return nil
		}
		if id == item {
			return idx
		}
	}
	return nil
}

// displaySize applies the primary item's transforming properties to its ispe.
func displaySize(props []box) (width, height uint32, ok bool) {
	for _, p := range props {
		if p.typ == "ispe" {
			width, height, ok = parseIspe(p.body)
			break
		}
	}
	if !ok {
		return 0, 0, false
	}
	for _, p := range props {
		if p.typ == "clap" {
			if w, h, ok := parseClap(p.body, width, height); ok {
				width, height = w, h
			}
			break
		}
	}
	for _, p := range props {
		// irot's low two bits are the anticlockwise rotation in quarter turns.
		if p.typ == "irot" && len(p.body) >= 1 && p.body[0]&1 == 1 {
			width, height = height, width
			break
		}
	}
	return width, height, true
}

// parseIspe reads the coded image size.
func parseIspe(body []byte) (width, height uint32, ok bool) {
	_, _, rest, ok := fullBoxBody(body)
	if !ok {
		return 0, 0, false
	}
	r := reader{b: rest}
	width, height = r.u32(), r.u32()
	if r.bad || width == 0 || height == 0 {
		return 0, 0, false
	}
	return width, height, true
}

// parseClap reads the clean aperture's width and height (fractions; offsets do not change
// the size). A clap that is not a proper crop of the coded size is ignored rather than
// trusted.
func parseClap(body []byte, codedW, codedH uint32) (width, height uint32, ok bool) {
	if len(body) < 16 {
		return 0, 0, false
	}
	wn, wd := binary.BigEndian.Uint32(body[0:]), binary.BigEndian.Uint32(body[4:])
	hn, hd := binary.BigEndian.Uint32(body[8:]), binary.BigEndian.Uint32(body[12:])
	if wd == 0 || hd == 0 {
		return 0, 0, false
	}
	width, height = wn/wd, hn/hd
	if width == 0 || height == 0 || width > codedW || height > codedH {
		return 0, 0, false
	}
	return width, height, true
}
