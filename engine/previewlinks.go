package engine

import (
	"crypto/sha256"
	"net"
	"net/url"
	"regexp"
	"strings"

	"hearth/engine/store"
)

// Links of a message, for link previews.

const (
	// previewLinksMax is how many links of a message get previews (API.md).
	previewLinksMax = 5
	// previewLinkMax bounds a link we fetch, in bytes; longer ones get no preview.
	previewLinkMax = 2048
)

// linkPattern finds http and https URLs: from the scheme to the first white space, angle
// bracket, double quote or backtick (which end links in chat text, and in `code`). An
// apostrophe is part of a URL (https://en.wikipedia.org/wiki/Ender's_Game), as the browser
// client links it; a trailing one, closing a quote, is trimmed like punctuation.
var linkPattern = regexp.MustCompile("(?i)\\bhttps?://[^\\s<>\"`]+")

// link is one link of a message.
type link struct {
	// written is the link as the message has it (the preview's url).
	written string
	// fetch is the URL fetched: normalized, without its fragment.
	fetch string
	// key is the SHA-256 of fetch, the key of its cached preview.
	key store.URLHash
}

// findLinks returns the first previewLinksMax distinct http(s) links of text, in order.
// Links are distinct when they fetch the same URL (so "x.com/a#1" and "X.com/a" are one
// link, named as first written); links with credentials or over previewLinkMax bytes are
// skipped.
func findLinks(text string) []link {
	var out []link
	seen := map[string]bool{}
	for _, raw := range linkPattern.FindAllString(text, -1) {
		raw = trimLink(cutHostApostrophe(raw))
		if len(raw) > previewLinkMax {
			continue
		}
		fetch, ok := normalizeLink(raw)
		if !ok || seen[fetch] {
			continue
		}
		seen[fetch] = true
		out = append(out, link{written: raw, fetch: fetch, key: sha256.Sum256([]byte(fetch))})
		if len(out) == previewLinksMax {
			break
		}
	}
	return out
}

// cutHostApostrophe ends a link at an apostrophe in its host, which no host name has: it is
// a possessive after the link ("https://example.com's docs"), whereas one in the path is the
// link's own (https://en.wikipedia.org/wiki/Ender's_Game).
func cutHostApostrophe(s string) string {
	start := strings.Index(s, "://") + len("://")
	host := s[start:]
	if end := strings.IndexAny(host, "/?#"); end >= 0 {
		host = host[:end]
	}
	if i := strings.IndexByte(host, '\''); i >= 0 {
		return s[:start+i]
	}
	return s
}

// trimLink drops what ends a sentence rather than the link: trailing punctuation, and a
// closing bracket that the link does not open ("(see https://x.com/a)").
func trimLink(s string) string {
	for len(s) > 0 {
		last := s[len(s)-1]
		switch last {
		case '.', ',', ';', ':', '!', '?', '*', '_', '~', '\'':
			s = s[:len(s)-1]
			continue
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[last]
			if strings.Count(s, string(open)) < strings.Count(s, string(last)) {
				s = s[:len(s)-1]
				continue
			}
		}
		return s
	}
	return s
}

// normalizeLink is the URL to fetch for a link: scheme and host in lower case, the default
// port and the fragment dropped, an empty path made "/". ok is false for anything that is
// not an absolute http(s) URL with a host and without credentials, and for an IPv6 address
// with a zone: a zone names one of the sender's own interfaces, so the link can never be
// fetched (outbound refuses scoped addresses), and a zone net/url took in with bytes that
// are not UTF-8 would not parse again once written out.
func normalizeLink(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", false
	}
	host, port := u.Hostname(), u.Port()
	if host == "" || strings.Contains(host, "%") {
		return "", false
	}
	host = strings.ToLower(host)
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}
