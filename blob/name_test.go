package blob_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"hearth/blob"
)

func TestSafeName(t *testing.T) {
	long := strings.Repeat("a", 250)
	for _, tc := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"holiday photo (1).jpg", "holiday photo (1).jpg"},
		{"名前.png", "名前.png"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\me\secret.txt`, "secret.txt"},
		{"dir/", "file"},
		{"..", "file"},
		{".", "file"},
		{"", "file"},
		{"  ", "file"},
		{".bashrc", "bashrc"},
		{"name.", "name"},
		{"  spaced  ", "spaced"},
		{"x\x00y.png", "xy.png"},
		{"a\r\nb", "ab"},
		{"tab\there", "tabhere"},
		{"\u202egnp.exe", "gnp.exe"},         // right-to-left override
		{"zero\u200bwidth", "zerowidth"},     // zero-width space
		{"bad\xffutf8", "badutf8"},           // invalid bytes
		{"%2e%2e%2f", "%2e%2e%2f"},           // stays literal; the URL escapes the %
		{"a?b#c", "a?b#c"},                   // likewise
		{long + ".txt", long[:196] + ".txt"}, // the extension survives the cut
		{long, long[:200]},
		{strings.Repeat("é", 150), strings.Repeat("é", 100)}, // cut between characters
	} {
		if got := blob.SafeName(tc.in); got != tc.want {
			t.Errorf("SafeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSafeName checks the promises of SafeName on any input.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"a.png", "../x", "..", "\x00", "é.txt", strings.Repeat("ab", 200), "\u202e.exe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := blob.SafeName(in)
		if got == "" || got == "." || got == ".." || len(got) > 200 || !utf8.ValidString(got) {
			t.Fatalf("SafeName(%q) = %q", in, got)
		}
		if strings.ContainsAny(got, `/\`) || strings.IndexFunc(got, unicode.IsControl) >= 0 {
			t.Fatalf("SafeName(%q) = %q holds a separator or control character", in, got)
		}
		if got != blob.SafeName(got) {
			t.Fatalf("SafeName is not stable: %q, then %q", got, blob.SafeName(got))
		}
	})
}
