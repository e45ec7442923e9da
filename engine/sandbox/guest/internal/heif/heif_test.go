package heif

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Builders for crafted files. Real encoder output is tested end to end by the sandbox's
// tests (engine/sandbox/testdata/images); these cover the layouts encoders at hand do not
// write, and the malformed ones.

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func mkbox(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append(u32(uint32(8+len(body))), typ...), body...)
}

// box64 writes a box with the 64-bit size form.
func mkbox64(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	b := append(u32(1), typ...)
	b = binary.BigEndian.AppendUint64(b, uint64(16+len(body)))
	return append(b, body...)
}

func full(version byte, flags uint32, parts ...[]byte) []byte {
	return append(u32(uint32(version)<<24|flags), bytes.Join(parts, nil)...)
}

func ftyp(major string, compat ...string) []byte {
	b := append([]byte(major), 0, 0, 0, 0)
	for _, c := range compat {
		b = append(b, c...)
	}
	return mkbox("ftyp", b)
}

func ispe(w, h uint32) []byte     { return mkbox("ispe", full(0, 0, u32(w), u32(h))) }
func irot(angle byte) []byte      { return mkbox("irot", []byte{angle}) }
func pitm16(id uint16) []byte     { return mkbox("pitm", full(0, 0, u16(id))) }
func pitm32(id uint32) []byte     { return mkbox("pitm", full(1, 0, u32(id))) }
func clap(w, h uint32) []byte     { return mkbox("clap", u32(w), u32(1), u32(h), u32(1), make([]byte, 16)) }
func hdlr() []byte                { return mkbox("hdlr", full(0, 0, u32(0), []byte("pict"), make([]byte, 13))) }
func meta(parts ...[]byte) []byte { return mkbox("meta", full(0, 0, parts...)) }

// ipma0 writes a version 0 ipma with 8-bit associations: item id, then property numbers
// (the essential bit set on each, as encoders do for transforms).
func ipma0(entries map[uint16][]byte) []byte {
	body := u32(uint32(len(entries)))
	for id := uint16(1); id < 100; id++ {
		props, ok := entries[id]
		if !ok {
			continue
		}
		body = append(body, u16(id)...)
		body = append(body, byte(len(props)))
		for _, p := range props {
			body = append(body, 0x80|p)
		}
	}
	return mkbox("ipma", full(0, 0, body))
}

// heic returns a HEIC head whose item 2 (primary) is a grid of 7x5 with the given extra
// properties; item 1 is a 64x64 tile listed first, as heif-enc writes.
func heic(extra ...[]byte) []byte {
	props := [][]byte{ispe(64, 64), ispe(7, 5)}
	assoc := []byte{2}
	for i, e := range extra {
		props = append(props, e)
		assoc = append(assoc, byte(3+i))
	}
	return bytes.Join([][]byte{
		ftyp("heic", "mif1", "heic"),
		meta(hdlr(), pitm16(2), mkbox("iprp", mkbox("ipco", props...), ipma0(map[uint16][]byte{1: {1}, 2: assoc}))),
		mkbox("mdat", []byte("pixels")),
	}, nil)
}

func TestContentType(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"avif", ftyp("avif", "mif1", "miaf"), TypeAVIF},
		{"avif sequence", ftyp("avis", "msf1", "avif"), TypeAVIF},
		{"heic", ftyp("heic", "mif1", "heic"), TypeHEIC},
		{"heix", ftyp("heix", "mif1"), TypeHEIC},
		{"heic sequence", ftyp("hevc", "msf1"), TypeHEICSequence},
		{"mif1 naming avif", ftyp("mif1", "miaf", "avif"), TypeAVIF},
		{"mif1 naming heic", ftyp("mif1", "heic"), TypeHEIC},
		{"plain heif", ftyp("mif1", "mif1"), TypeHEIF},
		{"heif sequence", ftyp("msf1"), TypeHEIFSequence},
		{"size 0 runs to the end", append(u32(0), ftyp("avif")[4:]...), TypeAVIF},
	}
	for _, tt := range tests {
		got, ok := ContentType(tt.in)
		if !ok || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}

	no := map[string][]byte{
		"mp4 listing avif":  ftyp("isom", "avif", "mp41"),
		"quicktime":         ftyp("qt  "),
		"no brands":         mkbox("ftyp", []byte("avi")),
		"truncated ftyp":    ftyp("avif", "mif1")[:12],
		"meta first":        meta(),
		"empty":             nil,
		"size below header": append(u32(4), "ftypavif"...),
		"size past the end": append(u32(1000), "ftypavif\x00\x00\x00\x00"...),
	}
	for name, in := range no {
		if got, ok := ContentType(in); ok {
			t.Errorf("%s: got %q, want not HEIF", name, got)
		}
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		w, h uint32
	}{
		{"primary, not the first ispe", heic(), 7, 5},
		{"irot 0", heic(irot(0)), 7, 5},
		{"irot 1", heic(irot(1)), 5, 7},
		{"irot 2", heic(irot(2)), 7, 5},
		{"irot 3", heic(irot(3)), 5, 7},
		{"reserved irot bits ignored", heic(irot(0xfd)), 5, 7},
		{"clap", heic(mkbox("clap", u32(12), u32(2), u32(8), u32(2), make([]byte, 16))), 6, 4},
		{"clap then irot", heic(clap(6, 4), irot(1)), 4, 6},
		{"clap larger than the image is ignored", heic(clap(8, 5)), 7, 5},
		{"clap with a zero denominator is ignored", heic(mkbox("clap", u32(6), u32(0), u32(4), u32(1), make([]byte, 16))), 7, 5},
		{"short clap is ignored", heic(mkbox("clap", u32(6))), 7, 5},
		{"64-bit meta size", bytes.Join([][]byte{
			ftyp("avif"),
			mkbox64("meta", full(0, 0, pitm16(1), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {1}})))),
		}, nil), 9, 3},
		{"free box before meta", bytes.Join([][]byte{
			ftyp("avif"), mkbox("free", make([]byte, 10)),
			meta(pitm16(1), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {1}}))),
		}, nil), 9, 3},
		{"version 1: 32-bit ids, 15-bit property numbers", bytes.Join([][]byte{
			ftyp("avif"),
			meta(pitm32(70000), mkbox("iprp",
				mkbox("ipco", ispe(1, 1), ispe(300, 200)),
				mkbox("ipma", full(1, 1, u32(1), u32(70000), []byte{1}, u16(0x8002))))),
		}, nil), 300, 200},
		{"association in a second ipma", bytes.Join([][]byte{
			ftyp("avif"),
			meta(pitm16(5), mkbox("iprp",
				mkbox("ipco", ispe(1, 1), ispe(40, 30)),
				ipma0(map[uint16][]byte{1: {1}}),
				ipma0(map[uint16][]byte{5: {2}}))),
		}, nil), 40, 30},
	}
	for _, tt := range tests {
		w, h, ok := Size(tt.in)
		if !ok || w != tt.w || h != tt.h {
			t.Errorf("%s: got %dx%d, %v; want %dx%d", tt.name, w, h, ok, tt.w, tt.h)
		}
	}
}

func TestSizeRefusesWhatItCannotRead(t *testing.T) {
	whole := heic(irot(1))
	metaEnd := bytes.Index(whole, []byte("mdat")) - 4
	no := map[string][]byte{
		"meta cut short": whole[:metaEnd-1],
		"no meta":        ftyp("avif"),
		"no pitm": bytes.Join([][]byte{ftyp("avif"),
			meta(mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {1}})))}, nil),
		"primary without ispe": bytes.Join([][]byte{ftyp("avif"),
			meta(pitm16(2), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {1}, 2: {}})))}, nil),
		"property number out of range": bytes.Join([][]byte{ftyp("avif"),
			meta(pitm16(1), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {7}})))}, nil),
		"property number 0": bytes.Join([][]byte{ftyp("avif"),
			meta(pitm16(1), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {0}})))}, nil),
		"zero ispe": bytes.Join([][]byte{ftyp("avif"),
			meta(pitm16(1), mkbox("iprp", mkbox("ipco", ispe(0, 3)), ipma0(map[uint16][]byte{1: {1}})))}, nil),
		"ipma cut inside an entry": bytes.Join([][]byte{ftyp("avif"),
			meta(pitm16(1), mkbox("iprp", mkbox("ipco", ispe(9, 3)), mkbox("ipma", full(0, 0, u32(1), u16(1), []byte{3, 0x81}))))}, nil),
		"short pitm": bytes.Join([][]byte{ftyp("avif"),
			meta(mkbox("pitm", full(0, 0, []byte{1})), mkbox("iprp", mkbox("ipco", ispe(9, 3)), ipma0(map[uint16][]byte{1: {1}})))}, nil),
	}
	for name, in := range no {
		if w, h, ok := Size(in); ok {
			t.Errorf("%s: got %dx%d, want no size", name, w, h)
		}
	}
}

// A claimed entry count far beyond the data must cost no more than the data allows.
func TestSizeHugeCounts(t *testing.T) {
	in := bytes.Join([][]byte{ftyp("avif"),
		meta(pitm16(9), mkbox("iprp", mkbox("ipco", ispe(9, 3)),
			mkbox("ipma", full(0, 0, u32(0xffffffff), bytes.Repeat([]byte{0, 1, 0}, 1000)))))}, nil)
	if _, _, ok := Size(in); ok {
		t.Error("got a size for an item with no associations")
	}
}

// FuzzSize checks that no input makes the parser panic or report a zero dimension.
func FuzzSize(f *testing.F) {
	f.Add(heic(clap(6, 4), irot(1)))
	f.Add(heic())
	f.Add(ftyp("avif"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ContentType(b)
		if w, h, ok := Size(b); ok && (w == 0 || h == 0) {
			t.Fatalf("ok with %dx%d", w, h)
		}
	})
}
