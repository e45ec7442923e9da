package heif

// Content types by ftyp brand. AVIF sequences share image/avif (its registration covers
// both); HEVC-coded HEIF has separate types for single images and sequences.
const (
	TypeAVIF         = "image/avif"
	TypeHEIC         = "image/heic"
	TypeHEICSequence = "image/heic-sequence"
	TypeHEIF         = "image/heif"
	TypeHEIFSequence = "image/heif-sequence"
)

// brandTypes maps the brands that name a format by themselves.
var brandTypes = map[string]string{
	"avif": TypeAVIF,
	"avis": TypeAVIF,
	"heic": TypeHEIC,
	"heix": TypeHEIC,
	"heim": TypeHEIC,
	"heis": TypeHEIC,
	"hevc": TypeHEICSequence,
	"hevx": TypeHEICSequence,
}

// structuralTypes maps the brands that only say "HEIF structure" (MIAF and the HEIF image
// and sequence brands): the compatible brands may say which codec, else it is plain HEIF.
var structuralTypes = map[string]string{
	"mif1": TypeHEIF,
	"miaf": TypeHEIF,
	"msf1": TypeHEIFSequence,
}

// maxBrands bounds the compatible brands looked at; real files list fewer than ten.
const maxBrands = 64

// ContentType tells whether b starts with the ftyp box of a HEIF file and which type it is.
// The major brand decides first, so an MP4 video that merely lists an image brand among its
// compatible ones stays a video.
func ContentType(b []byte) (string, bool) {
	ftyp, _, ok := nextBox(b)
	if !ok || ftyp.typ != "ftyp" || len(ftyp.body) < 8 {
		return "", false
	}
	major := ftyp.body[:4]
	if t, ok := brandTypes[string(major)]; ok {
		return t, true
	}
	fallback, ok := structuralTypes[string(major)]
	if !ok {
		return "", false
	}
	compat := ftyp.body[8:]
	for i := 0; i+4 <= len(compat) && i < 4*maxBrands; i += 4 {
		if t, ok := brandTypes[string(compat[i:i+4])]; ok {
			return t, true
		}
	}
	return fallback, true
}
