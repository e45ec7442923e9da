package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/blob"
	"hearth/engine"
	"hearth/engine/outbound"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func TestLinkPreviewHappyPath(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	png := pngImage(t, 40, 30)
	site.html("/article", ogPage("Big news &amp; more", "What   happened,\n today.", "Example News", "/img/cover.png"))
	site.file("/img/cover.png", "application/octet-stream", png) // sniffed, not believed
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)

	written := site.URL + "/article#comments"
	got := previewsOf(t, owner, ch, "read this: "+written+". And again (<"+site.URL+"/article>)")
	if len(got) != 1 {
		t.Fatalf("got %d previews, want 1 (the same page twice): %v", len(got), got)
	}
	p := got[0]
	if p.GetUrl() != written || p.GetTitle() != "Big news & more" || p.GetDescription() != "What happened, today." || p.GetSiteName() != "Example News" {
		t.Fatalf("got %+v", p)
	}
	if !strings.HasPrefix(p.GetImageUrl(), "/previews/") {
		t.Fatalf("image_url %q is not served by us", p.GetImageUrl())
	}
	img := fetch(t, s, http.MethodGet, p.GetImageUrl())
	if img.status != http.StatusOK || !bytes.Equal(img.body, png) {
		t.Fatalf("GET %s: %d, %d bytes", p.GetImageUrl(), img.status, len(img.body))
	}
	for h, want := range map[string]string{"Content-Type": "image/png", "X-Content-Type-Options": "nosniff"} {
		if got := img.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if cc := img.header.Get("Cache-Control"); !strings.HasPrefix(cc, "public, max-age=") || !strings.HasSuffix(cc, ", immutable") {
		t.Errorf("Cache-Control %q", cc)
	}
	if site.hitsOf("/article") != 1 || site.hitsOf("/img/cover.png") != 1 {
		t.Fatalf("page fetched %d times, image %d", site.hitsOf("/article"), site.hitsOf("/img/cover.png"))
	}
	for _, ua := range site.agents {
		if ua != outbound.UserAgent("dev") {
			t.Errorf("User-Agent %q", ua)
		}
	}

	// From the cache, after a restart too: nothing is fetched again.
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: written})
	s.Restart()
	owner = s.Client(owner.Token)
	again := mustPreviews(t, owner, m.GetId())
	if len(again) != 1 || again[0].GetImageUrl() != p.GetImageUrl() || again[0].GetTitle() != p.GetTitle() {
		t.Fatalf("after a restart: %v", again)
	}
	if site.total() != 2 {
		t.Fatalf("the site got %d requests, want the first 2", site.total())
	}
	// Unknown and malformed image ids.
	for _, u := range []string{"/previews/00000000000000000000000000000000", "/previews/nope", "/previews/" + strings.Repeat("A", 32)} {
		if status, _ := fetchError(t, s, u); status != http.StatusNotFound {
			t.Errorf("GET %s: %d", u, status)
		}
	}
}

func TestLinkPreviewOrderLimitAndFallbacks(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	for i := 1; i <= 7; i++ {
		site.html(fmt.Sprintf("/p%d", i), fmt.Sprintf("<title>Page %d</title><meta name=description content='About %d'>", i, i))
	}
	site.html("/empty", "<html><head></head><body>nothing to say</body></html>")
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	u := func(path string) string { return site.URL + path }
	text := strings.Join([]string{
		u("/p1"), "ftp://example.com/x", u("/missing"), strings.ToUpper(u("/p1")[:7]) + u("/p1")[7:], // the same as the first
		u("/empty"), u("/p2"), u("/p3"), u("/p4"), u("/p5"), u("/p6"),
	}, " ")
	got := previewsOf(t, owner, ch, text)
	var titles []string
	for _, p := range got {
		titles = append(titles, p.GetTitle()+"|"+p.GetDescription()+"|"+p.GetImageUrl())
	}
	// The first five distinct links are p1, missing, empty, p2 and p3; the two without a
	// preview are left out.
	want := []string{"Page 1|About 1|", "Page 2|About 2|", "Page 3|About 3|"}
	if strings.Join(titles, ",") != strings.Join(want, ",") {
		t.Fatalf("got %q, want %q", titles, want)
	}
	if got[0].GetUrl() != u("/p1") {
		t.Fatalf("url %q", got[0].GetUrl())
	}
	for _, path := range []string{"/p4", "/p5", "/p6"} {
		if n := site.hitsOf(path); n != 0 {
			t.Errorf("%s fetched %d times", path, n)
		}
	}
	// A message without links, and a deleted one, have no previews.
	if got := previewsOf(t, owner, ch, "no links here, just www.example.com"); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: u("/p7")})
	if _, err := owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil {
		t.Fatal(err)
	}
	if got := mustPreviews(t, owner, m.GetId()); len(got) != 0 || site.hitsOf("/p7") != 0 {
		t.Fatalf("a deleted message: %v, %d fetches", got, site.hitsOf("/p7"))
	}
}

// Without -preview-allow-private, every link to a loopback, private or link-local address
// gets no preview, and nothing is sent to it. The policy here allows any port, so that the
// address rule is what refuses (ports other than 80 and 443 are refused too, as the last
// case shows). 10.0.0.1 and 169.254.169.254 are refused from the URL alone, before any dial.
func TestLinkPreviewRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	inner := newPages(t)
	inner.html("/secret", "<title>secret</title>")
	port := fmt.Sprint(inner.addr().Port())
	// A "public" site, let through by the test's policy, that redirects inside.
	public := newPages(t)
	public.handle("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	})
	public.handle("/to-localhost", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+port+"/secret", http.StatusMovedPermanently)
	})
	public.handle("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	public.html("/image-inside", ogPage("T", "D", "S", inner.URL+"/secret.png"))
	s := webtest.Start(t, webtest.WithPreviewPolicy(outbound.Policy{AnyPort: true, Exceptions: []netip.AddrPort{public.addr()}}))
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, link := range []string{
		"http://127.0.0.1:" + port + "/secret",
		"http://[::1]:" + port + "/secret",
		"http://[::ffff:127.0.0.1]:" + port + "/secret",
		"http://localhost:" + port + "/secret", // a name that resolves to loopback
		"http://10.0.0.1/secret",
		"http://169.254.169.254/latest/meta-data/",
		public.URL + "/to-loopback",
		public.URL + "/to-localhost",
		public.URL + "/to-metadata",
	} {
		if got := previewsOf(t, owner, ch, link); len(got) != 0 {
			t.Errorf("%s: got %v", link, got)
		}
	}
	// A public page whose image is inside: the preview, without the image.
	got := previewsOf(t, owner, ch, public.URL+"/image-inside")
	if len(got) != 1 || got[0].GetTitle() != "T" || got[0].GetImageUrl() != "" {
		t.Fatalf("got %v", got)
	}
	if n := inner.total(); n != 0 {
		t.Fatalf("the inside got %d requests", n)
	}

	// The default policy refuses ports other than 80 and 443 even on a public address.
	s2 := webtest.Start(t, webtest.WithPreviewPolicy(outbound.Policy{Exceptions: []netip.AddrPort{netip.AddrPortFrom(public.addr().Addr(), 80)}}))
	owner2 := s2.Join("owner")
	ch2 := mustChannel(t, owner2, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	before := public.total()
	if got := previewsOf(t, owner2, ch2, public.URL+"/image-inside"); len(got) != 0 || public.total() != before {
		t.Fatalf("a link to port %d: %v", public.addr().Port(), got)
	}
}

func TestLinkPreviewPagesThatGiveNone(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	site.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head>")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	site.file("/json", "application/json", []byte(`{"title": "not a page"}`))
	site.file("/text", "text/plain", []byte("<title>plain text</title>"))
	site.file("/untyped", "", []byte("<title>no type</title>"))
	site.handle("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	site.handle("/error", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "<title>Server error</title>")
	})
	// Deep nesting before the tags: the guest reads the head's first 10,000 tokens only.
	site.html("/nested", "<html><head>"+strings.Repeat("<div>", 200_000)+`<meta property="og:title" content="too deep">`)
	// The slow page on a server whose fetches time out soon; the others on the default
	// timeout, which the redirect loop's six requests stay well inside however loaded the
	// machine (under 300 ms they once did not).
	short := webtest.Start(t, webtest.WithPreviewAllowPrivate(), webtest.WithPreviewTimeout(300*time.Millisecond))
	owner := short.Join("owner")
	if got := previewsOf(t, owner, mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT), site.URL+"/slow"); len(got) != 0 {
		t.Errorf("/slow: got %v", got)
	}
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner = s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, path := range []string{"/json", "/text", "/untyped", "/loop", "/error", "/nested"} {
		if got := previewsOf(t, owner, ch, site.URL+path); len(got) != 0 {
			t.Errorf("%s: got %v", path, got)
		}
	}
	if n := site.hitsOf("/loop"); n != 6 {
		t.Errorf("the redirect loop was fetched %d times, want the first and 5 redirects", n)
	}
}

// A page of 50 MB: the first megabyte is read, the rest never.
func TestLinkPreviewReadsOnlyTheFirstMegabyte(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	sent := make(chan int, 1)
	site.handle("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		n, _ := fmt.Fprint(w, `<html><head><meta property="og:title" content="Huge"></head><body>`)
		chunk := []byte(strings.Repeat("<p>x</p>", 8<<10))
		for n < 50_000_000 {
			k, err := w.Write(chunk)
			n += k
			if err != nil {
				break
			}
		}
		sent <- n
	})
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	got := previewsOf(t, owner, ch, site.URL+"/huge")
	if len(got) != 1 || got[0].GetTitle() != "Huge" {
		t.Fatalf("got %v", got)
	}
	select {
	case n := <-sent:
		if n >= 50_000_000 {
			t.Fatalf("the whole page was sent: %d bytes", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the page is still being sent")
	}
}

func TestLinkPreviewImagesThatAreNot(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/html-image", ogPage("A", "a", "", "/fake.png"))
	site.file("/fake.png", "image/png", []byte("<html><script>alert(1)</script></html>"))
	site.html("/svg-image", ogPage("B", "b", "", "/pic.svg"))
	site.file("/pic.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	site.html("/big-image", ogPage("C", "c", "", "/big.png"))
	big := append(pngImage(t, 8, 8), make([]byte, 5_000_001)...)
	site.file("/big.png", "image/png", big)
	site.html("/missing-image", ogPage("D", "d", "", "/none.png"))
	site.html("/bmp-image", ogPage("E", "e", "", "/pic.bmp"))
	site.file("/pic.bmp", "image/bmp", append([]byte("BM"), make([]byte, 60)...))
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, path := range []string{"/html-image", "/svg-image", "/big-image", "/missing-image", "/bmp-image"} {
		got := previewsOf(t, owner, ch, site.URL+path)
		if len(got) != 1 || got[0].GetImageUrl() != "" {
			t.Errorf("%s: got %v", path, got)
		}
	}
	if keys := previewKeys(t, s); len(keys) != 0 {
		t.Fatalf("stored %v", keys)
	}
}

func TestLinkPreviewNeedsToSeeTheMessage(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/a", "<title>A</title>")
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	bob := s.Join("bob")
	private := mustChannel(t, owner, "private", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: private.GetId(), Text: site.URL + "/a"})
	_, err := bob.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: m.GetId()}))
	wantCode(t, "a member outside the channel", err, connect.CodePermissionDenied, "you cannot see this message")
	_, err = bob.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: "0190a0a0-0000-7000-8000-000000000000"}))
	wantCode(t, "an unknown message", err, connect.CodeNotFound, "does not exist")
	_, err = bob.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{}))
	wantCode(t, "no message_id", err, connect.CodeInvalidArgument, "message_id is required")
	_, err = bob.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: strings.Repeat("x", 65)}))
	wantCode(t, "a long message_id", err, connect.CodeInvalidArgument, "message_id is 65 bytes; the limit is 64")
	anon := s.Client("")
	_, err = anon.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: m.GetId()}))
	wantCode(t, "no token", err, connect.CodeUnauthenticated)
	if n := site.total(); n != 0 {
		t.Fatalf("the page was fetched %d times for callers who cannot see it", n)
	}
	if got := mustPreviews(t, owner, m.GetId()); len(got) != 1 || site.total() != 1 {
		t.Fatalf("the owner: %v, %d fetches", got, site.total())
	}
}

func TestLinkPreviewCacheLifetimes(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	png := pngImage(t, 4, 4)
	site.html("/good", ogPage("Good", "good", "", "/g.png"))
	site.file("/g.png", "image/png", png)
	site.html("/later", "<title>Later</title>")
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate(), webtest.WithClock(clock), webtest.WithManualJobs())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	good := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: site.URL + "/good"})
	later := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: site.URL + "/later-page " + site.URL + "/later"})
	site.handle("/later-page", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })

	first := mustPreviews(t, owner, good.GetId())
	if got := mustPreviews(t, owner, later.GetId()); len(got) != 1 {
		t.Fatalf("got %v", got)
	}
	imageURL := first[0].GetImageUrl()
	// A failure is kept an hour: the page that comes to exist is not fetched again before.
	site.html("/later-page", "<title>Now here</title>")
	clock.Advance(59 * time.Minute)
	if got := mustPreviews(t, owner, later.GetId()); len(got) != 1 || site.hitsOf("/later-page") != 1 {
		t.Fatalf("within the hour: %v, %d fetches", got, site.hitsOf("/later-page"))
	}
	clock.Advance(2 * time.Minute)
	if got := mustPreviews(t, owner, later.GetId()); len(got) != 2 || got[0].GetTitle() != "Now here" || site.hitsOf("/later-page") != 2 {
		t.Fatalf("after the hour: %v, %d fetches", got, site.hitsOf("/later-page"))
	}
	// A preview is kept a day.
	clock.Advance(22 * time.Hour)
	mustPreviews(t, owner, good.GetId())
	if n := site.hitsOf("/good"); n != 1 {
		t.Fatalf("fetched %d times within the day", n)
	}
	if err := s.Engine.ExpirePreviews(); err != nil {
		t.Fatal(err)
	}
	if f := fetch(t, s, http.MethodGet, imageURL); f.status != http.StatusOK {
		t.Fatalf("the image within the day: %d", f.status)
	}
	// Past the day: the image is no longer served, the cleanup deletes it, and the next call
	// fetches the page again, with a new image.
	clock.Advance(2 * time.Hour)
	if status, _ := fetchError(t, s, imageURL); status != http.StatusNotFound {
		t.Fatalf("the expired image: %d", status)
	}
	if n := len(previewKeys(t, s)); n != 1 {
		t.Fatalf("%d images stored before the cleanup", n)
	}
	if err := s.Engine.ExpirePreviews(); err != nil {
		t.Fatal(err)
	}
	if keys := previewKeys(t, s); len(keys) != 0 {
		t.Fatalf("after the cleanup: %v", keys)
	}
	again := mustPreviews(t, owner, good.GetId())
	if len(again) != 1 || again[0].GetImageUrl() == imageURL || site.hitsOf("/good") != 2 {
		t.Fatalf("after the day: %v, %d fetches", again, site.hitsOf("/good"))
	}
	if f := fetch(t, s, http.MethodGet, again[0].GetImageUrl()); f.status != http.StatusOK || !bytes.Equal(f.body, png) {
		t.Fatalf("the new image: %d", f.status)
	}
}

// Requests for one URL at once share one fetch.
func TestLinkPreviewConcurrentRequestsShareOneFetch(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	release := make(chan struct{})
	site.handle("/wait", func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>Worth the wait</title>")
	})
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	var clients []*webtest.Client
	var messages []string
	for i := range 5 {
		c := owner
		if i > 0 {
			c = s.Join(fmt.Sprintf("member%d", i))
		}
		clients = append(clients, c)
		// The same URL, written differently.
		m := mustSend(t, c, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprintf("%s/wait#%d", site.URL, i)})
		messages = append(messages, m.GetId())
	}
	var wg sync.WaitGroup
	results := make([][]*svcv1.LinkPreview, 5)
	for i, c := range clients {
		wg.Go(func() { results[i] = mustPreviews(t, c, messages[i]) })
	}
	within(t, "five requests waiting for one fetch", func() bool { return s.Engine.PreviewWaiters() == 5 })
	close(release)
	wg.Wait()
	for i, r := range results {
		if len(r) != 1 || r[0].GetTitle() != "Worth the wait" || r[0].GetUrl() != fmt.Sprintf("%s/wait#%d", site.URL, i) {
			t.Fatalf("request %d: %v", i, r)
		}
	}
	if n := site.hitsOf("/wait"); n != 1 {
		t.Fatalf("fetched %d times", n)
	}
}

// 60 new fetches a minute per member: cached links do not count, other members have their own.
func TestLinkPreviewFetchRate(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate(), webtest.WithClock(clock))
	owner := s.Join("owner")
	bob := s.Join("bob")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	// Fourteen messages of five links each, sent first (at the rate people may send).
	var messages []string
	for i := range 14 {
		var links []string
		for j := range 5 {
			links = append(links, fmt.Sprintf("%s/r/%d", site.URL, i*5+j))
		}
		messages = append(messages, mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: strings.Join(links, " ")}).GetId())
		clock.Advance(time.Second)
	}
	for _, id := range messages[:12] {
		mustPreviews(t, owner, id)
	}
	first, over := messages[0], messages[12]
	_, err := owner.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: over}))
	wantCode(t, "the 61st to 65th fetch", err, connect.CodeResourceExhausted, "fetching link previews: rate limit reached")
	if n := site.total(); n != 60 {
		t.Fatalf("%d fetches", n)
	}
	mustPreviews(t, owner, first) // cached
	mustPreviews(t, bob, over)    // bob's own limit
	clock.Advance(5 * time.Second)
	if _, err := owner.Chat.GetLinkPreviews(ctx, req(&svcv1.GetLinkPreviewsRequest{MessageId: messages[13]})); err != nil {
		t.Fatalf("after 5 s: %v", err)
	}
}

// A relative image URL is resolved against the page's final URL, after its redirects.
func TestLinkPreviewImageAfterRedirects(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	png := pngImage(t, 3, 3)
	site.handle("/short", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/blog/2026/post", http.StatusMovedPermanently)
	})
	site.html("/blog/2026/post", ogPage("Post", "A post", "Blog", "img/header.png"))
	site.file("/blog/2026/img/header.png", "image/png", png)
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	got := previewsOf(t, owner, ch, site.URL+"/short")
	if len(got) != 1 || got[0].GetUrl() != site.URL+"/short" || got[0].GetImageUrl() == "" {
		t.Fatalf("got %v", got)
	}
	if f := fetch(t, s, http.MethodGet, got[0].GetImageUrl()); f.status != http.StatusOK || !bytes.Equal(f.body, png) {
		t.Fatalf("the image: %d", f.status)
	}
}

// An object under previews/ without a row (a crash between storing an image and committing its
// row) is swept; a preview's image is not.
func TestLinkPreviewOrphansAreSwept(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/article", ogPage("Title", "Description", "Site", "/cover.png"))
	site.file("/cover.png", "image/png", pngImage(t, 8, 8))
	// A negative age makes every object old enough.
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate(), func(o *engine.Options) { o.OrphanAge = -time.Hour })
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	got := previewsOf(t, owner, ch, site.URL+"/article")
	if len(got) != 1 || got[0].GetImageUrl() == "" {
		t.Fatalf("got %v, want a preview with its image", got)
	}
	orphan := blob.PreviewKey(strings.Repeat("ab", 16))
	if _, err := s.Bucket().Put(ctx, orphan, bytes.NewReader(pngImage(t, 8, 8)), "image/png"); err != nil {
		t.Fatal(err)
	}
	n, err := s.Engine.SweepPreviewOrphans(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	if keys := previewKeys(t, s); len(keys) != 1 || "/"+keys[0] != got[0].GetImageUrl() {
		t.Errorf("left %v, want the object of %s", keys, got[0].GetImageUrl())
	}
}
