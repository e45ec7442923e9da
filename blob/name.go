package blob

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameBytes bounds a display name: file systems take 255 bytes, and the URL and the
// Content-Disposition header carry it escaped.
const maxNameBytes = 200

// SafeName turns an uploaded file's name into the display name used in file URLs (and
// fit for Content-Disposition). The rule:
//
//  1. Bytes that are not UTF-8 are dropped.
//  2. Only the part after the last "/" or "\" is kept: a name is never a path.
//  3. Control characters (NUL, CR, LF, DEL, ...) and invisible format characters (such
//     as the right-to-left override that makes "gpj.exe" read "exe.jpg") are dropped.
//  4. Spaces and dots are trimmed from both ends, so "." and ".." vanish and no name is
//     hidden or ends in a dot.
//  5. Longer than 200 bytes, the end of the stem is cut (at a character boundary), keeping
//     a short extension.
//  6. Nothing left gives "file".
//
// Path-escaped, the result is one URL path segment other than "." or "..": it cannot
// leave /files/<id>/.
func SafeName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
	name = trimName(name)
	if len(name) > maxNameBytes {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		name = trimName(cutUTF8(name[:len(name)-len(ext)], maxNameBytes-len(ext)) + ext)
	}
	if name == "" {
		return "file"
	}
	return name
}

func trimName(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r == '.' || unicode.IsSpace(r) })
}

// cutUTF8 shortens s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
