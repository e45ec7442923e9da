// Package preview answers the guest's "preview" operation: the title, description, site
// name and image of an HTML page, from its Open Graph and Twitter card tags, with the
// <title> element and <meta name=description> as fallbacks.
//
// It reads the page with the HTML tokenizer, never building a tree, and stops at the end of
// the head: deep nesting costs nothing, and everything it does is linear in the page's
// size, which the host bounds (wire.MaxPageBody). Entities are decoded once, as HTML has
// no entity definitions that could expand.
package preview

import (
	"bytes"
	"mime"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	textunicode "golang.org/x/text/encoding/unicode"

	"hearth/engine/sandbox/internal/wire"
)

const (
	// maxToken bounds one token (a tag with its attributes, a run of text): a page is at
	// most 1 MB, which decodes to at most 3 MB of UTF-8.
	maxToken = 4 << 20
	// maxRawValue is how much of one attribute or title is cleaned up; the longest answer
	// is far shorter (wire.MaxDescription characters).
	maxRawValue = 64 << 10
	// maxTokens is how many tokens of a head are looked at. Real heads have a few hundred
	// (the largest seen, a thousand or two); a page made of tens of thousands of tags gets
	// the answer its first ones give, and the guest's time stays bounded.
	maxTokens = 10_000
	// maxAttrs is how many attributes of one <meta> are looked at; real ones have 2 or 3.
	maxAttrs = 16
)

// Extract reads the preview of page, whose final URL is pageURL and whose Content-Type
// header is contentType.
func Extract(pageURL, contentType string, page []byte) wire.Preview {
	text := decode(page, contentType)
	var f fields
	z := html.NewTokenizer(bytes.NewReader(text))
	z.SetMaxBuf(maxToken)
	inTitle := false
	var title strings.Builder
scan:
	for range maxTokens {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			break scan
		case html.TextToken:
			if inTitle && title.Len() < maxRawValue {
				title.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				break scan
			case "title":
				// The first <title> only; the tokenizer reads its text as RCDATA.
				inTitle = tt == html.StartTagToken && !f.titleSeen
				f.titleSeen = true
			case "meta":
				if hasAttr {
					f.meta(z)
				}
				if f.complete() {
					break scan // nothing later in the head could change the answer
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "head":
				break scan
			case "title":
				if inTitle {
					f.titleText = title.String()
				}
				inTitle = false
			}
		}
	}
	if inTitle {
		f.titleText = title.String() // a page cut off inside its title
	}
	return wire.Preview{
		Title:       clean(first(f.ogTitle, f.twitterTitle, f.titleText), wire.MaxTitle),
		Description: clean(first(f.ogDescription, f.twitterDescription, f.description), wire.MaxDescription),
		SiteName:    clean(f.siteName, wire.MaxSiteName),
		Image:       resolve(pageURL, first(f.ogImage, f.twitterImage)),
	}
}

// fields are the candidates found so far; the first of each kind wins.
type fields struct {
	ogTitle, twitterTitle, titleText               string
	ogDescription, twitterDescription, description string
	siteName                                       string
	ogImage, twitterImage                          string
	titleSeen                                      bool
}

// complete reports whether every field has its first choice: Open Graph's.
func (f *fields) complete() bool {
	return f.ogTitle != "" && f.ogDescription != "" && f.siteName != "" && f.ogImage != ""
}

// meta reads one <meta> tag: property= (Open Graph) or name= (Twitter cards, description)
// with content=.
func (f *fields) meta(z *html.Tokenizer) {
	var key, content string
	hasContent := false
	for i, more := 0, true; more && i < maxAttrs; i++ {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "property", "name":
			if key == "" {
				key = strings.ToLower(strings.TrimSpace(string(v)))
			}
		case "content":
			if !hasContent {
				content, hasContent = cut(v), true
			}
		}
	}
	if !hasContent {
		return
	}
	set := func(dst *string) {
		if *dst == "" {
			*dst = content
		}
	}
	switch key {
	case "og:title":
		set(&f.ogTitle)
	case "twitter:title":
		set(&f.twitterTitle)
	case "og:description":
		set(&f.ogDescription)
	case "twitter:description":
		set(&f.twitterDescription)
	case "description":
		set(&f.description)
	case "og:site_name":
		set(&f.siteName)
	case "og:image", "og:image:url", "og:image:secure_url":
		set(&f.ogImage)
	case "twitter:image", "twitter:image:src":
		set(&f.twitterImage)
	}
}

// cut copies at most maxRawValue bytes of an attribute (the tokenizer reuses its buffer).
func cut(v []byte) string {
	if len(v) > maxRawValue {
		v = v[:maxRawValue]
	}
	return string(v)
}

// first is the first of values that has something to show.
func first(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// decode turns the page into UTF-8. The encoding is the first of: a byte order mark, the
// header's charset, for an XHTML page (application/xhtml+xml) the encoding its XML declaration
// names, a <meta charset> or <meta http-equiv=content-type> anywhere in the head, UTF-8 if the
// page is valid UTF-8, else windows-1252 (what browsers assume).
func decode(page []byte, contentType string) []byte {
	enc, _, certain := charset.DetermineEncoding(page, contentType)
	if !certain {
		// DetermineEncoding looks at the first 1,024 bytes only, which many real heads
		// outgrow before their <meta charset>. An XHTML page is XML: its XML declaration
		// names its encoding, and comes before any <meta>.
		if e := xmlDeclCharset(page, contentType); e != nil {
			enc = e
		} else if e := metaCharset(page); e != nil {
			enc = e
		} else if utf8.Valid(page) {
			enc = encoding.Nop
		}
	}
	if enc == encoding.Nop || enc == textunicode.UTF8 {
		return page
	}
	out, err := enc.NewDecoder().Bytes(page)
	if err != nil {
		return page
	}
	return out
}

// xmlDeclCharset is the encoding the XML declaration of an XHTML page names (`<?xml
// version="1.0" encoding="Shift_JIS"?>`, which must open the page), or nil: for a page of
// another type, without a declaration, or naming no encoding this server knows. Browsers
// read an XHTML page by it and ignore its <meta> tags; an HTML page's declaration means
// nothing to them, so it does not here either.
func xmlDeclCharset(page []byte, contentType string) encoding.Encoding {
	if t, _, _ := mime.ParseMediaType(contentType); t != "application/xhtml+xml" {
		return nil
	}
	if !bytes.HasPrefix(page, []byte("<?xml")) {
		return nil
	}
	decl := page[:min(len(page), 1024)]
	end := bytes.Index(decl, []byte("?>"))
	if end < 0 {
		return nil
	}
	decl = decl[len("<?xml"):end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return nil
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
		return nil
	}
	label, _, ok := bytes.Cut(rest[1:], rest[:1])
	if !ok {
		return nil
	}
	e, name := charset.Lookup(string(label))
	if strings.HasPrefix(name, "utf-16") {
		return nil // the declaration was read as ASCII, so the page is not UTF-16
	}
	return e
}

// metaCharset finds the charset a <meta> tag of the head declares. Tags and attribute names
// are ASCII in every encoding a page may declare this way, so the raw bytes do.
func metaCharset(page []byte) encoding.Encoding {
	z := html.NewTokenizer(bytes.NewReader(page))
	z.SetMaxBuf(maxToken)
	for range maxTokens {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "body" {
				return nil
			}
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var label, fromContent string
			pragma := false
			for i, more := 0, true; more && i < maxAttrs; i++ {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					label = string(v)
				case "http-equiv":
					pragma = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
				case "content":
					if _, params, err := mime.ParseMediaType(string(v)); err == nil {
						fromContent = params["charset"]
					}
				}
			}
			if label == "" && pragma {
				label = fromContent
			}
			if label == "" {
				continue
			}
			if e, _ := charset.Lookup(label); e != nil {
				return e
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return nil
			}
		}
	}
	return nil
}

// clean makes a text fit to show: valid UTF-8, no control or bidirectional-override
// characters, every run of white space one space, trimmed, and at most max characters (a
// longer one is cut and ends in "…").
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(min(len(s), max*4))
	n := 0
	// emit adds r unless the text is full already.
	emit := func(r rune) bool {
		if n == max {
			return false
		}
		b.WriteRune(r)
		n++
		return true
	}
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = n > 0
			continue
		case unicode.IsControl(r), isBidiControl(r):
			continue
		}
		if space && !emit(' ') || !emit(r) {
			return strings.TrimRight(cutRunes(b.String(), max-1), " ") + "…"
		}
		space = false
	}
	return b.String()
}

// cutRunes is s's first n runes.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// isBidiControl reports the characters that reorder text around them: they could make a
// preview read differently from what it says.
func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// resolve makes an image URL absolute against the page's final URL. Only http and https
// URLs without credentials, of at most wire.MaxImageURL bytes, are kept.
func resolve(pageURL, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > wire.MaxImageURL {
		return ""
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u := base.ResolveReference(ref)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	s := u.String()
	if len(s) > wire.MaxImageURL || !utf8.ValidString(s) {
		return ""
	}
	return s
}
