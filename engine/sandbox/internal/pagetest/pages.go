// Package pagetest holds the HTML pages that the tests and benchmarks of the preview
// extraction share: natively (package preview of the guest) and in the guest (package
// sandbox).
package pagetest

import (
	"strings"

	"hearth/engine/sandbox/internal/wire"
)

// Typical is the head of a real-world article page: some 20 KB of scripts, styles and
// meta tags before the Open Graph tags, then a body.
func Typical() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>An article about something &mdash; Example News</title>
<link rel="stylesheet" href="/static/site.css"><link rel="icon" href="/favicon.ico">
`)
	for i := range 40 {
		b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"An article","n":`)
		b.WriteString(strings.Repeat("1", i%7+1))
		b.WriteString(`}</script><style>.a{color:red}.b{margin:0 auto;padding:1em}</style>` + "\n")
		b.WriteString(`<link rel="preload" as="font" href="/fonts/f.woff2" crossorigin>` + "\n")
	}
	b.WriteString(`<meta property="og:type" content="article">
<meta property="og:title" content="An article about something">
<meta property="og:description" content="A longer summary of the article, which says what it is about in a sentence or two, with an &amp; and a quote &quot;here&quot;.">
<meta property="og:site_name" content="Example News">
<meta property="og:image" content="/images/2026/11/cover.jpg">
<meta name="twitter:card" content="summary_large_image">
</head><body>`)
	b.WriteString(strings.Repeat("<p>Paragraph text of the article.</p>\n", 500))
	b.WriteString("</body></html>")
	return b.String()
}

// Hostile are pages made to hurt a parser, each at most wire.MaxPageBody bytes.
func Hostile() map[string][]byte {
	n := wire.MaxPageBody
	fill := func(prefix, unit, suffix string) []byte {
		count := (n - len(prefix) - len(suffix)) / len(unit)
		return []byte(prefix + strings.Repeat(unit, count) + suffix)
	}
	return map[string][]byte{
		"deep nesting":           fill("<html><head>", "<div>", "<title>deep</title>"),
		"deep nesting in head":   fill("<head><title>x</title>", "<span><b><i>", ""),
		"huge attribute":         fill(`<head><meta property="og:title" content="`, "A", `"></head>`),
		"huge attribute name":    fill(`<head><meta `, "a", `="1"></head>`),
		"many attributes":        fill(`<head><meta `, ` a="1"`, `></head>`),
		"entity bomb in title":   fill("<title>", "&amp;", "</title>"),
		"entity bomb in content": fill(`<meta name="description" content="`, "&lt;&#x1F600;&nbsp;", `">`),
		"huge title":             fill("<title>", "word ", "</title>"),
		"unterminated comment":   fill("<head><!--", "x", ""),
		"unterminated tag":       fill("<head><meta content='", "x", ""),
		"many metas":             fill("<head>", `<meta property="og:title" content="t">`, ""),
		"nul bytes":              fill("<title>", "\x00", "</title>"),
		"invalid UTF-8":          fill("<title>", "\xff\xfe\xc0", "</title>"),
		"many charset metas":     fill("<head>", `<meta charset="nonsense">`, ""),
		"script never ends":      fill("<head><script>", "<meta property=og:title content=x>", ""),
	}
}
