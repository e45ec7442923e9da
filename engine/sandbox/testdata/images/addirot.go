//go:build ignore

// Addirot writes a copy of a HEIF file whose primary image carries an irot (rotation)
// property, for tests: the HEIC encoder at hand (heif-enc 1.15) cannot write one.
//
//	go run addirot.go -angle 3 img.heic rotated.heic
//
// It appends the irot box to ipco, associates it (as essential) with the primary item in
// ipma, grows the enclosing boxes' sizes, and moves iloc's file offsets past the inserted
// bytes. It handles what heif-enc writes (32-bit box sizes, ipma with 8-bit associations,
// one meta box before mdat); anything else makes it stop with an error.
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
)

type span struct{ start, end int } // a box's bytes, header included

func main() {
	angle := flag.Int("angle", 1, "anticlockwise quarter turns (0-3)")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: addirot -angle N in.heic out.heic")
		os.Exit(2)
	}
	in, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		var out []byte
		if out, err = addIrot(in, byte(*angle&3)); err == nil {
			err = os.WriteFile(flag.Arg(1), out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "addirot:", err)
		os.Exit(1)
	}
}

// find returns the child boxes of b[start:end] by type (the first of each).
func find(b []byte, start, end int) (map[string]span, error) {
	found := map[string]span{}
	for off := start; off < end; {
		if off+8 > end {
			return nil, errors.New("short box header")
		}
		size := int(binary.BigEndian.Uint32(b[off:]))
		if size < 8 || off+size > end {
			return nil, fmt.Errorf("unsupported box size %d at %d", size, off)
		}
		typ := string(b[off+4 : off+8])
		if _, ok := found[typ]; !ok {
			found[typ] = span{off, off + size}
		}
		off += size
	}
	return found, nil
}

func addIrot(b []byte, angle byte) ([]byte, error) {
	top, err := find(b, 0, len(b))
	if err != nil {
		return nil, err
	}
	meta, ok := top["meta"]
	if !ok {
		return nil, errors.New("no meta box")
	}
	inMeta, err := find(b, meta.start+12, meta.end)
	if err != nil {
		return nil, err
	}
	iprp, pitm, iloc := inMeta["iprp"], inMeta["pitm"], inMeta["iloc"]
	if iprp.end == 0 || pitm.end == 0 || iloc.end == 0 || b[pitm.start+8] != 0 {
		return nil, errors.New("need iprp, iloc and a version 0 pitm")
	}
	primary := binary.BigEndian.Uint16(b[pitm.start+12:])
	inIprp, err := find(b, iprp.start+8, iprp.end)
	if err != nil {
		return nil, err
	}
	ipco, ipma := inIprp["ipco"], inIprp["ipma"]
	if ipco.end == 0 || ipma.end == 0 || ipco.end > ipma.start {
		return nil, errors.New("need ipco followed by ipma")
	}
	if _, err := find(b, ipco.start+8, ipco.end); err != nil {
		return nil, err
	}
	count := 0
	for off := ipco.start + 8; off < ipco.end; off += int(binary.BigEndian.Uint32(b[off:])) {
		count++
	}
	index := count + 1 // the new property's number
	if index > 127 || b[ipma.start+8] != 0 || b[ipma.start+11]&1 != 0 {
		return nil, errors.New("need a version 0 ipma with 8-bit associations and room for one")
	}

	// Where the primary item's association count sits in ipma, and the end of its list:
	// transformative properties come after the descriptive ones (ispe).
	off := ipma.start + 12
	entries := int(binary.BigEndian.Uint32(b[off:]))
	off += 4
	countAt, listEnd := -1, -1
	for e := 0; e < entries; e++ {
		id := binary.BigEndian.Uint16(b[off:])
		n := int(b[off+2])
		if id == primary {
			countAt, listEnd = off+2, off+3+n
			break
		}
		off += 3 + n
	}
	if countAt < 0 {
		return nil, errors.New("primary item has no ipma entry")
	}

	irot := []byte{0, 0, 0, 9, 'i', 'r', 'o', 't', angle}
	assoc := 0x80 | byte(index) // essential: a reader must apply it
	delta := len(irot) + 1

	out := make([]byte, 0, len(b)+delta)
	out = append(out, b[:ipco.end]...)
	out = append(out, irot...)
	out = append(out, b[ipco.end:listEnd]...)
	out = append(out, assoc)
	out = append(out, b[listEnd:]...)
	out[countAt+len(irot)]++ // the association count, moved by the irot box

	grow := func(at, by int) {
		binary.BigEndian.PutUint32(out[at:], binary.BigEndian.Uint32(out[at:])+uint32(by))
	}
	grow(meta.start, delta)
	grow(iprp.start, delta)
	grow(ipco.start, len(irot))
	grow(ipma.start+len(irot), 1)
	if err := shiftIloc(out[iloc.start:iloc.end], meta.end, delta); err != nil {
		return nil, err
	}
	return out, nil
}

// shiftIloc adds delta to every file offset in iloc that points at or past after (data
// that the insertion moved). Offsets relative to idat (construction method 1) stay.
func shiftIloc(box []byte, after, delta int) error {
	version := box[8]
	offSize, lenSize := int(box[12]>>4), int(box[12]&15)
	baseSize, idxSize := int(box[13]>>4), int(box[13]&15)
	if version == 0 {
		idxSize = 0
	}
	if version > 1 || offSize != 4 || (lenSize != 4 && lenSize != 0) || (baseSize != 0 && baseSize != 4) || idxSize != 0 {
		return errors.New("unsupported iloc layout")
	}
	p := 14
	items := int(binary.BigEndian.Uint16(box[p:]))
	p += 2
	for i := 0; i < items; i++ {
		p += 2 // item id
		method := 0
		if version == 1 {
			method = int(binary.BigEndian.Uint16(box[p:]) & 15)
			p += 2
		}
		p += 2 // data reference index
		base := 0
		baseAt := p
		if baseSize == 4 {
			base = int(binary.BigEndian.Uint32(box[p:]))
			p += 4
		}
		extents := int(binary.BigEndian.Uint16(box[p:]))
		p += 2
		for e := 0; e < extents; e++ {
			at := p
			p += offSize + lenSize
			if method != 0 {
				continue
			}
			if baseSize == 4 {
				continue
			}
			if v := binary.BigEndian.Uint32(box[at:]); int(v) >= after {
				binary.BigEndian.PutUint32(box[at:], v+uint32(delta))
			}
		}
		if method == 0 && baseSize == 4 && base >= after {
			binary.BigEndian.PutUint32(box[baseAt:], uint32(base+delta))
		}
	}
	return nil
}
