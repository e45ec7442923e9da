package web_test

import (
	"net/http"
	"strings"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Found by the outbound audit. A preview's image is drawn by every client that shows the
// message, unasked, like a settings image: a few bytes claiming 100,000 x 100,000 pixels
// would make each of them decode gigabytes. Such an image is left out (the preview keeps
// its text); one of 8,192 pixels on a side, the settings images' limit, is kept.
func TestLinkPreviewImageOfHugeDimensionsIsLeftOut(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/wide", ogPage("Wide", "w", "", "/wide.png"))
	site.file("/wide.png", "image/png", pngHeader(100_000, 10))
	site.html("/tall", ogPage("Tall", "t", "", "/tall.png"))
	site.file("/tall.png", "image/png", pngHeader(10, 8193))
	site.html("/edge", ogPage("Edge", "e", "", "/edge.png"))
	site.file("/edge.png", "image/png", pngHeader(8192, 8192))
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, path := range []string{"/wide", "/tall"} {
		got := previewsOf(t, owner, ch, site.URL+path)
		if len(got) != 1 || got[0].GetTitle() == "" || got[0].GetImageUrl() != "" {
			t.Errorf("%s: got %v, want the preview without its image", path, got)
		}
	}
	if keys := previewKeys(t, s); len(keys) != 0 {
		t.Fatalf("stored %v", keys)
	}
	got := previewsOf(t, owner, ch, site.URL+"/edge")
	if len(got) != 1 || !strings.HasPrefix(got[0].GetImageUrl(), "/previews/") {
		t.Fatalf("8192 x 8192: got %v, want the image kept", got)
	}
	img := fetch(t, s, http.MethodGet, got[0].GetImageUrl())
	for h, want := range map[string]string{
		"Content-Type":            "image/png",
		"Content-Disposition":     "inline",
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "sandbox; default-src 'none'",
	} {
		if got := img.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// Uploads that would run on the server's origin if shown as they are: an SVG with a script
// (named .svg, sent as image/svg+xml), and a GIF whose bytes go on as an HTML page. The SVG
// sniffs as XML and is a download that cannot run; the GIF is shown as an image only, never
// sniffed as a page; a name made to break the Content-Disposition header stays one quoted
// parameter.
func TestUploadsThatCouldRunAreNeverPages(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	svg := mustUpload(t, s, owner, "pic.svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	if svg.GetContentType() != "text/xml; charset=utf-8" {
		t.Fatalf("svg upload: %v", svg)
	}
	polyglot := mustUpload(t, s, owner, "x.gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00<html><script>alert(1)</script>"))
	if polyglot.GetContentType() != "image/gif" {
		t.Fatalf("gif upload: %v", polyglot)
	}
	quoted := mustUpload(t, s, owner, `a"; filename=evil.html; x=.txt`, []byte("text"))
	for _, tt := range []struct {
		att  *svcv1.Attachment
		want map[string]string
	}{
		{svg, map[string]string{
			"Content-Type":            "text/xml; charset=utf-8",
			"Content-Disposition":     "attachment; filename=pic.svg",
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": "sandbox; default-src 'none'",
		}},
		{polyglot, map[string]string{
			"Content-Type":           "image/gif",
			"Content-Disposition":    "inline; filename=x.gif",
			"X-Content-Type-Options": "nosniff",
		}},
		{quoted, map[string]string{
			"Content-Type":            "text/plain; charset=utf-8",
			"Content-Disposition":     `attachment; filename="a\"; filename=evil.html; x=.txt"`,
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": "sandbox; default-src 'none'",
		}},
	} {
		got := fetch(t, s, http.MethodGet, tt.att.GetUrl())
		if got.status != http.StatusOK {
			t.Fatalf("GET %s: %d", tt.att.GetUrl(), got.status)
		}
		for k, v := range tt.want {
			if got.header.Get(k) != v {
				t.Errorf("%s: %s %q, want %q", tt.att.GetName(), k, got.header.Get(k), v)
			}
		}
	}
}

// Found by the outbound audit. A page that redirects to a URL longer than the sandbox takes
// (8,192 bytes) is the page's failure, cached like any other: it was taken for a failure of
// the server, logged as an error and never cached, so every request for its preview fetched
// the hostile page again.
func TestLinkPreviewRedirectToAnOverlongURLIsThePagesFailure(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	long := "/long?" + strings.Repeat("a", 9000)
	site.handle("/start", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, long, http.StatusFound) })
	site.html("/long", "<title>Long</title>")
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: site.URL + "/start"})
	for range 2 {
		if got := mustPreviews(t, owner, m.GetId()); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	}
	if n := site.hitsOf("/start"); n != 1 {
		t.Fatalf("the page was fetched %d times, want once (its failure cached)", n)
	}
}
