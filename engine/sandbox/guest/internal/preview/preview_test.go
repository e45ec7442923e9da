package preview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"hearth/engine/sandbox/internal/pagetest"
	"hearth/engine/sandbox/internal/wire"
)

const pageURL = "https://example.com/articles/1?x=y"

func TestExtract(t *testing.T) {
	tests := []struct {
		name, contentType, page string
		want                    wire.Preview
	}{
		{
			"open graph",
			"text/html; charset=utf-8",
			`<!doctype html><html><head>
			<meta property="og:title" content="The title">
			<meta property="og:description" content="What it is about.">
			<meta property="og:site_name" content="Example">
			<meta property="og:image" content="/img/cover.png">
			<title>Ignored</title><meta name="description" content="Ignored too">
			</head><body>text</body></html>`,
			wire.Preview{Title: "The title", Description: "What it is about.", SiteName: "Example", Image: "https://example.com/img/cover.png"},
		},
		{
			"title and description fallbacks",
			"text/html",
			`<html><head><title>  Plain
			   page </title><meta name="Description" content="A plain page."></head></html>`,
			wire.Preview{Title: "Plain page", Description: "A plain page."},
		},
		{
			"twitter card before the fallbacks",
			"text/html",
			`<head><title>Fallback</title>
			<meta name="twitter:title" content="Card title">
			<meta name="twitter:description" content="Card text">
			<meta name="twitter:image:src" content="pics/a.jpg">`,
			wire.Preview{Title: "Card title", Description: "Card text", Image: "https://example.com/articles/pics/a.jpg"},
		},
		{
			"open graph before twitter, first tag wins",
			"text/html",
			`<head><meta name="twitter:title" content="Card"><meta property="og:title" content="OG one">
			<meta property="og:title" content="OG two"><meta property="og:image:secure_url" content="https://cdn.example.net/x.webp#frag"></head>`,
			wire.Preview{Title: "OG one", Image: "https://cdn.example.net/x.webp"},
		},
		{
			"entities are decoded once",
			"text/html",
			`<head><title>Tom &amp; Jerry &lt;3 &#x1F600; &amp;amp;</title><meta property="og:description" content="caf&eacute; &quot;ok&quot; &nosuch;"></head>`,
			wire.Preview{Title: "Tom & Jerry <3 😀 &amp;", Description: `café "ok" &nosuch;`},
		},
		{
			"the head ends at body",
			"text/html",
			`<head><title>T</title></head><body><meta property="og:title" content="from the body"></body>`,
			wire.Preview{Title: "T"},
		},
		{
			"a head without tags ends at body too",
			"text/html",
			`<title>T</title><p>hi<body><meta property="og:description" content="late">`,
			wire.Preview{Title: "T"},
		},
		{
			"scripts and comments are not tags",
			"text/html",
			`<head><script>var s = '<meta property="og:title" content="script">';</script>
			<!-- <meta property="og:title" content="comment"> --><title>Real</title></head>`,
			wire.Preview{Title: "Real"},
		},
		{
			"only http and https images, without credentials",
			"text/html",
			`<head><meta property="og:title" content="T"><meta property="og:image" content="javascript:alert(1)">
			<meta name="twitter:image" content="data:image/png;base64,AAAA"></head>`,
			wire.Preview{Title: "T"},
		},
		{
			"protocol-relative image",
			"text/html",
			`<meta property="og:image" content=" //cdn.example.org/a.gif ">`,
			wire.Preview{Image: "https://cdn.example.org/a.gif"},
		},
		{
			"image with credentials",
			"text/html",
			`<meta property="og:image" content="https://user:pw@example.org/a.gif">`,
			wire.Preview{},
		},
		{
			"control and bidi characters go",
			"text/html",
			"<title>a\u202Eb\x01c\u200Fd</title>",
			wire.Preview{Title: "abcd"},
		},
		{
			"charset from the header",
			"text/html; charset=ISO-8859-1",
			"<title>caf\xe9</title>",
			wire.Preview{Title: "café"},
		},
		{
			"charset from meta",
			"text/html",
			"<meta charset=\"shift_jis\"><title>\x93\xfa\x96\x7b</title>",
			wire.Preview{Title: "日本"},
		},
		{
			"charset from http-equiv",
			"text/html",
			"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\"><title>\xcf\xf0\xe8\xe2\xe5\xf2</title>",
			wire.Preview{Title: "Привет"},
		},
		{
			"meta charset after the first kilobyte",
			"text/html",
			"<head><!--" + strings.Repeat("x", 2000) + "--><meta charset=\"windows-1252\"><title>\x93quoted\x94</title>",
			wire.Preview{Title: "\u201cquoted\u201d"},
		},
		{
			"UTF-8 after the first kilobyte without a declaration",
			"text/html",
			"<head><!--" + strings.Repeat("x", 2000) + "--><title>naïve</title>",
			wire.Preview{Title: "naïve"},
		},
		{
			"neither declared nor UTF-8 is windows-1252",
			"text/html",
			"<title>na\xefve</title>",
			wire.Preview{Title: "naïve"},
		},
		{
			"charset from an XHTML page's XML declaration",
			"application/xhtml+xml",
			"<?xml version=\"1.0\" encoding='Shift_JIS' ?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>\x93\xfa\x96\x7b</title></head></html>",
			wire.Preview{Title: "日本"},
		},
		{
			"an XHTML page's XML declaration before its meta",
			"application/xhtml+xml",
			"<?xml version=\"1.0\" encoding=\"windows-1251\"?><html><head><meta charset=\"shift_jis\"/><title>\xcf\xf0\xe8\xe2\xe5\xf2</title></head></html>",
			wire.Preview{Title: "Привет"},
		},
		{
			"the header before the XML declaration",
			"application/xhtml+xml; charset=utf-8",
			"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><title>naïve</title>",
			wire.Preview{Title: "naïve"},
		},
		{
			"an HTML page's XML declaration means nothing",
			"text/html",
			"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><title>na\xefve</title>",
			wire.Preview{Title: "naïve"},
		},
		{
			"an XML declaration claiming UTF-16 is not believed",
			"application/xhtml+xml",
			"<?xml version=\"1.0\" encoding=\"UTF-16\"?><title>na\xc3\xafve</title>",
			wire.Preview{Title: "naïve"},
		},
		{
			"UTF-16 with a byte order mark",
			"text/html",
			"\xff\xfe<\x00t\x00i\x00t\x00l\x00e\x00>\x00h\x00i\x00<\x00/\x00t\x00i\x00t\x00l\x00e\x00>\x00",
			wire.Preview{Title: "hi"},
		},
		{
			"a page cut off inside its title",
			"text/html",
			"<title>Cut off",
			wire.Preview{Title: "Cut off"},
		},
		{
			"not a page at all",
			"text/html",
			"\x00\x01\x02\xff\xfe garbage",
			wire.Preview{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(pageURL, tt.contentType, []byte(tt.page))
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLengthLimits(t *testing.T) {
	long := strings.Repeat("é", 5000)
	got := Extract(pageURL, "text/html", []byte(`<title>`+long+`</title><meta name="description" content="`+long+`"><meta property="og:site_name" content="`+long+`">`))
	for _, f := range []struct {
		name, value string
		max         int
	}{{"title", got.Title, wire.MaxTitle}, {"description", got.Description, wire.MaxDescription}, {"site name", got.SiteName, wire.MaxSiteName}} {
		if n := utf8.RuneCountInString(f.value); n != f.max || !strings.HasSuffix(f.value, "é…") {
			t.Errorf("%s: %d characters ending %q; want %d ending in …", f.name, n, f.value[len(f.value)-8:], f.max)
		}
	}
	// Exactly the limit is kept whole.
	exact := strings.Repeat("a", wire.MaxTitle)
	if got := Extract(pageURL, "text/html", []byte("<title>"+exact+"</title>")); got.Title != exact {
		t.Errorf("a title of exactly %d characters became %q", wire.MaxTitle, got.Title)
	}
	// A cut never ends in a space before the ellipsis.
	spaced := strings.Repeat("a", wire.MaxTitle-2) + " bbbb"
	if got := Extract(pageURL, "text/html", []byte("<title>"+spaced+"</title>")); got.Title != strings.Repeat("a", wire.MaxTitle-2)+"…" {
		t.Errorf("got %q", got.Title)
	}
	// Image URLs over the limit are left out.
	img := "https://example.com/" + strings.Repeat("a", wire.MaxImageURL)
	if got := Extract(pageURL, "text/html", []byte(`<meta property="og:image" content="`+img+`">`)); got.Image != "" {
		t.Errorf("a %d-byte image URL was kept", len(img))
	}
}

// Hostile pages: each ends in a normal answer, bounded in size, and costs time linear in
// the page (the sandbox's tests run the same pages under its time and memory limits).
func TestHostilePages(t *testing.T) {
	for name, page := range pagetest.Hostile() {
		t.Run(name, func(t *testing.T) {
			got := Extract(pageURL, "text/html", page)
			if utf8.RuneCountInString(got.Title) > wire.MaxTitle || utf8.RuneCountInString(got.Description) > wire.MaxDescription ||
				utf8.RuneCountInString(got.SiteName) > wire.MaxSiteName || len(got.Image) > wire.MaxImageURL {
				t.Fatalf("answer over the limits: %d, %d, %d, %d", len(got.Title), len(got.Description), len(got.SiteName), len(got.Image))
			}
		})
	}
}

func BenchmarkExtract(b *testing.B) {
	page := []byte(pagetest.Typical())
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		Extract(pageURL, "text/html; charset=utf-8", page)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("text/html", []byte(pagetest.Typical()))
	f.Add("text/html; charset=shift_jis", []byte("<meta property=og:title content=\x93\xfa>"))
	f.Add("", []byte("<title>&amp;&#0;&#xD800;</title>"))
	f.Fuzz(func(t *testing.T, contentType string, page []byte) {
		got := Extract(pageURL, contentType, page)
		for _, s := range []string{got.Title, got.Description, got.SiteName, got.Image} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
			if strings.TrimSpace(s) != s || strings.Contains(s, "  ") {
				t.Fatalf("white space not collapsed in %q", s)
			}
		}
		if utf8.RuneCountInString(got.Title) > wire.MaxTitle || utf8.RuneCountInString(got.Description) > wire.MaxDescription ||
			utf8.RuneCountInString(got.SiteName) > wire.MaxSiteName || len(got.Image) > wire.MaxImageURL {
			t.Fatalf("answer over the limits: %+v", got)
		}
		if got.Image != "" && !strings.HasPrefix(got.Image, "http://") && !strings.HasPrefix(got.Image, "https://") {
			t.Fatalf("image %q is not http(s)", got.Image)
		}
	})
}
