package sandbox

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/engine/sandbox/internal/wire"
)

// Limits of a preview, in characters: the guest cuts longer texts.
const (
	MaxTitle       = wire.MaxTitle
	MaxDescription = wire.MaxDescription
	MaxSiteName    = wire.MaxSiteName
	// MaxPageBody is how much of a page Preview reads (1 MB); it ignores the rest.
	MaxPageBody = wire.MaxPageBody
	// MaxPageURL is the longest page URL Preview takes, in bytes; a longer one is an error.
	MaxPageURL = wire.MaxPageURL
)

// Page is a fetched HTML page.
type Page struct {
	// URL is the page's final URL, after redirects: relative URLs are resolved against it.
	URL string
	// ContentType is the response's Content-Type header, whose charset counts.
	ContentType string
	// Body is the page's first bytes; only the first MaxPageBody are read.
	Body []byte
}

// Preview is what a page says about itself. Any field may be empty.
type Preview struct {
	Title, Description, SiteName string
	// Image is the absolute http or https URL of the page's preview image.
	Image string
}

// Preview reads a page's Open Graph and Twitter card tags, its <title> and its meta
// description, in a fresh guest. A page that makes the guest fail (too slow, too big for its
// memory, or anything else) gives an error wrapping ErrUnreadable.
func (s *Sandbox) Preview(ctx context.Context, p Page) (Preview, error) {
	if len(p.URL) > wire.MaxPageURL || strings.ContainsAny(p.URL, "\r\n") {
		return Preview{}, fmt.Errorf("sandbox: page URL is over %d bytes or has a line break", wire.MaxPageURL)
	}
	ct := p.ContentType
	if len(ct) > wire.MaxPageType || strings.ContainsAny(ct, "\r\n") {
		ct = "" // a header we would not read anyway: the page's own <meta charset> decides
	}
	body := p.Body
	if len(body) > MaxPageBody {
		body = body[:MaxPageBody]
	}
	resp, err := s.call(ctx, wire.OpPreview, wire.EncodePage(p.URL, ct, body))
	if err != nil {
		return Preview{}, err
	}
	r := resp.Preview
	if r == nil {
		return Preview{}, unreadable("guest gave no preview result")
	}
	// The guest is ours, but its answer was computed from a hostile page: check it as input.
	for _, f := range []struct {
		name, value string
		max         int
	}{{"title", r.Title, MaxTitle}, {"description", r.Description, MaxDescription}, {"site name", r.SiteName, MaxSiteName}} {
		if !showable(f.value, f.max) {
			return Preview{}, unreadable("guest gave an invalid %s", f.name)
		}
	}
	if r.Image != "" && !validImageURL(r.Image) {
		return Preview{}, unreadable("guest gave an invalid image URL")
	}
	return Preview{Title: r.Title, Description: r.Description, SiteName: r.SiteName, Image: r.Image}, nil
}

// showable accepts valid UTF-8 of at most max characters without control characters.
func showable(s string, max int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}

// validImageURL accepts an absolute http or https URL without credentials or fragment.
func validImageURL(s string) bool {
	if len(s) > wire.MaxImageURL || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil && u.Fragment == ""
}
