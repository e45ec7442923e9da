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
