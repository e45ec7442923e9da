// Package heif reads what the sandbox needs from HEIF files (HEIC, AVIF and plain HEIF):
// the content type from the ftyp box's brands, and the primary image's display size from
// the meta box's properties (ispe, clap, irot). It reads headers only, never image data.
//
// The input is untrusted: every length is checked against the bytes actually present, and
// every loop is bounded both by the input and by a fixed count, so a crafted file costs at
// most a few thousand steps over the head the guest was given.
package heif

import "encoding/binary"

// box is one ISOBMFF box: its four-character type and its body (the bytes after the
// header, within the box's declared size).
type box struct {
	typ  string
	body []byte
}

// maxBoxes bounds how many sibling boxes any loop here looks at. Real files have a handful
// of top-level and meta boxes; the property container is handled with its own bound.
const maxBoxes = 256

// nextBox splits the first box off b. It fails when the header is short or the declared
// size is smaller than the header or larger than what b holds (a truncated head: the box
// cannot be read whole, so it is not read at all).
func nextBox(b []byte) (bx box, rest []byte, ok bool) {
	if len(b) < 8 {
		return box{}, nil, false
	}
	size := uint64(binary.BigEndian.Uint32(b))
	typ := string(b[4:8])
	hdr := uint64(8)
	switch size {
	case 0: // the box runs to the end of the file
		size = uint64(len(b))
	case 1: // a 64-bit size follows the type
		if len(b) < 16 {
			return box{}, nil, false
		}
		size = binary.BigEndian.Uint64(b[8:16])
		hdr = 16
	}
	if size < hdr || size > uint64(len(b)) {
		return box{}, nil, false
	}
	return box{typ: typ, body: b[hdr:size]}, b[size:], true
}

// children returns the boxes directly inside body, at most limit of them. A malformed box
// ends the list: what came before it is still usable.
func children(body []byte, limit int) []box {
	var out []box
	for len(body) > 0 && len(out) < limit {
		bx, rest, ok := nextBox(body)
		if !ok {
			break
		}
		out = append(out, bx)
		body = rest
	}
	return out
}

// fullBoxBody checks a FullBox's version and flags header and returns them with the rest.
func fullBoxBody(body []byte) (version uint8, flags uint32, rest []byte, ok bool) {
	if len(body) < 4 {
		return 0, 0, nil, false
	}
	return body[0], binary.BigEndian.Uint32(body) & 0xffffff, body[4:], true
}

// reader reads big-endian integers from a byte slice, failing once it runs short.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || len(r.b) < n {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint32 {
	if v := r.take(1); v != nil {
		return uint32(v[0])
	}
	return 0
}

func (r *reader) u16() uint32 {
	if v := r.take(2); v != nil {
		return uint32(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}
