package outbound_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"testing"

	"hearth/engine/outbound"
)

// The outbound audit's attacks that the client already stood up to, kept as tests.

// A gzip bomb: a small compressed body that inflates to 64 MiB. The transport inflates it
// (it asked for gzip), and the limits count the inflated bytes.
func TestGzipBombIsCutAtTheLimitInflated(t *testing.T) {
	var zipped bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		zw.Write(zeros)
	}
	zw.Close()
	var asked string
	bomb := serve(t, func(w http.ResponseWriter, r *http.Request) {
		asked = r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(zipped.Bytes())
	})
	c := outbound.New(outbound.Options{Policy: publicAt(bomb), MaxBody: 2_000_000})
	res, err := c.Get(context.Background(), bomb.URL, "", 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if asked != "gzip" || len(res.Body) != 1_000_000 || !res.Truncated || res.Body[0] != 0 {
		t.Fatalf("Accept-Encoding %q; read %d bytes, truncated %v", asked, len(res.Body), res.Truncated)
	}
	r, err := c.HTTPClient().Get(bomb.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	n, err := io.Copy(io.Discard, r.Body)
	if !errors.Is(err, outbound.ErrTooLarge) || n != 2_000_000 {
		t.Fatalf("read %d inflated bytes, then %v", n, err)
	}
}

// HTTP_PROXY in the environment is never used: the policy must see, and the request must
// go to, the real destination. The page is named (not 127.0.0.1, which Go never proxies).
func TestProxyFromTheEnvironmentIsNotUsed(t *testing.T) {
	proxy := serve(t, hello)
	site := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	c := outbound.New(outbound.Options{Policy: publicAt(site), Resolver: fakeDNS(t, netip.MustParseAddr("127.0.0.1"))})
	res, err := c.Get(context.Background(), "http://site.example:"+site.port()+"/", "", 100)
	if err != nil || string(res.Body) != "direct" {
		t.Fatalf("got %v, %v", res, err)
	}
	if n := proxy.hits.Load(); n != 0 {
		t.Fatalf("the proxy got %d requests", n)
	}
}

// Other spellings of loopback: in the URL, through a redirect, and as names that a resolver
// (glibc reads 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 as 127.0.0.1; the fake one
// here answers 127.0.0.1 to every name) turns into loopback. Each is refused, the
// server is never reached, whatever the port policy.
func TestOtherSpellingsOfLoopbackAreRefused(t *testing.T) {
	p := serve(t, hello)
	port := p.port()
	var redirect string
	hop := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, redirect, http.StatusFound) })
	pol := publicAt(hop)
	pol.AnyPort = true
	c := outbound.New(outbound.Options{Policy: pol, Resolver: fakeDNS(t, netip.MustParseAddr("127.0.0.1"))})
	// Names first: Go's own resolver may find no such host rather than ask, which is a
	// failure as good as a refusal; the IPv6 forms are refused from the URL.
	names := []string{"2130706433", "0x7f000001", "0177.0.0.1", "127.1", "localhost."}
	addrs := []string{"[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[::1%25lo]", "[fe80::1%25lo]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]"}
	for i, host := range append(names, addrs...) {
		u := "http://" + host + ":" + port + "/"
		redirect = u
		for _, start := range []string{u, hop.URL} {
			_, err := c.Get(context.Background(), start, "", 100)
			if i < len(names) && err != nil && !errors.Is(err, outbound.ErrRefused) {
				continue // no such host
			}
			wantRefused(t, err, "is not public")
		}
	}
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// A name resolving to the unspecified address (which reaches this machine) is refused
	// even by the operator's policy.
	c = outbound.New(outbound.Options{Policy: outbound.Operator, Resolver: fakeDNS(t, netip.MustParseAddr("0.0.0.0"))})
	_, err := c.Get(context.Background(), "http://zero.example:"+port+"/", "", 100)
	wantRefused(t, err, "0.0.0.0 is unspecified")
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
}
