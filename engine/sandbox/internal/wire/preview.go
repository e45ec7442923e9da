package wire

import (
	"bytes"
	"errors"
	"strings"
)

// Limits of a preview, in characters (runes); the guest cuts longer texts and the host
// refuses an answer over them.
const (
	MaxTitle       = 300
	MaxDescription = 1000
	MaxSiteName    = 100
	// MaxImageURL is in bytes: an image URL longer than this is left out.
	MaxImageURL = 2048
	// MaxPageURL and MaxPageType bound the header lines of a page request, in bytes; the
	// page's bytes get the rest of MaxPayload.
	MaxPageURL  = 8192
	MaxPageType = 512
	// MaxPageBody is how much of a page the guest reads (1 MB): the host passes at most
	// this, the rest of a longer page is never fetched.
	MaxPageBody = 1_000_000
)

// Preview is the answer to OpPreview. Every field may be empty; Image is an absolute http or
// https URL.
type Preview struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	SiteName    string `json:"site_name,omitempty"`
	Image       string `json:"image,omitempty"`
}

// EncodePage is the payload of OpPreview: the page's final URL (after redirects, the base
// of its relative URLs) and its Content-Type header, one line each, then its bytes.
func EncodePage(url, contentType string, body []byte) []byte {
	b := make([]byte, 0, len(url)+len(contentType)+2+len(body))
	b = append(b, url...)
	b = append(b, '\n')
	b = append(b, contentType...)
	b = append(b, '\n')
	return append(b, body...)
}

// DecodePage reads EncodePage's payload.
func DecodePage(payload []byte) (url, contentType string, body []byte, err error) {
	u, rest, ok := bytes.Cut(payload, []byte("\n"))
	if !ok || len(u) > MaxPageURL {
		return "", "", nil, errors.New("page has no URL line")
	}
	ct, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || len(ct) > MaxPageType {
		return "", "", nil, errors.New("page has no content type line")
	}
	if len(body) > MaxPageBody {
		body = body[:MaxPageBody]
	}
	return string(u), strings.TrimSpace(string(ct)), body, nil
}
