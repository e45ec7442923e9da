package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"hearth/blob"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// pages is a loopback web site for link previews: handlers by path, and the requests each
// path got.
type pages struct {
	*httptest.Server
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	hits   map[string]int
	agents []string
}

func newPages(t *testing.T) *pages {
	t.Helper()
	p := &pages{routes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		p.agents = append(p.agents, r.Header.Get("User-Agent"))
		h := p.routes[r.URL.Path]
		p.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// handle serves path with h.
func (p *pages) handle(path string, h http.HandlerFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes[path] = h
}

// html serves path as an HTML page with body.
func (p *pages) html(path, body string) {
	p.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	})
}

// file serves path with a content type and bytes.
func (p *pages) file(path, contentType string, body []byte) {
	p.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	})
}

// hitsOf is how many requests path got.
func (p *pages) hitsOf(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

// total is how many requests the site got.
func (p *pages) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.hits {
		n += h
	}
	return n
}

func (p *pages) addr() netip.AddrPort { return netip.MustParseAddrPort(p.Listener.Addr().String()) }

// ogPage is a page with Open Graph tags.
func ogPage(title, description, siteName, image string) string {
	return `<!doctype html><html><head><meta charset="utf-8"><title>fallback</title>
<meta property="og:title" content="` + title + `">
<meta property="og:description" content="` + description + `">
<meta property="og:site_name" content="` + siteName + `">
<meta property="og:image" content="` + image + `">
</head><body><p>Hello</p></body></html>`
}

// previewsOf sends text as a message of by in ch and returns its link previews.
func previewsOf(t *testing.T, by *webtest.Client, ch *svcv1.Channel, text string) []*svcv1.LinkPreview {
	t.Helper()
	m := mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
	return mustPreviews(t, by, m.GetId())
}

func mustPreviews(t *testing.T, by *webtest.Client, messageID string) []*svcv1.LinkPreview {
	t.Helper()
	res, err := by.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: messageID}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetPreviews()
}

// previewKeys lists the objects under previews/.
func previewKeys(t *testing.T, s *webtest.Server) []string {
	t.Helper()
	var keys []string
	err := s.Bucket().List(context.Background(), blob.PreviewKey(""), func(key string, _ int64, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// within waits, a bounded while, until cond holds.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
