package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"hearth/engine/outbound"
)

// page is a loopback server that counts its requests.
type page struct {
	*httptest.Server
	hits atomic.Int64
}

func serve(t *testing.T, h http.HandlerFunc) *page {
	t.Helper()
	p := &page{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *page) addr() netip.AddrPort {
	return netip.MustParseAddrPort(p.Listener.Addr().String())
}

func (p *page) port() string { return fmt.Sprint(p.addr().Port()) }

func hello(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }

// publicAt is the public policy, with p's address let through as if it were a public
// server: everything else on loopback stays refused.
func publicAt(p ...*page) outbound.Policy {
	var pol outbound.Policy
	for _, s := range p {
		pol.Exceptions = append(pol.Exceptions, s.addr())
	}
	return pol
}

func wantRefused(t *testing.T, err error, says string) {
	t.Helper()
	if !errors.Is(err, outbound.ErrRefused) {
		t.Fatalf("got %v, want a refusal", err)
	}
	if !strings.Contains(err.Error(), says) {
		t.Fatalf("error %q does not say %q", err, says)
	}
}

func TestGetFetchesAndNamesItself(t *testing.T) {
	var ua, accept string
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		ua, accept = r.Header.Get("User-Agent"), r.Header.Get("Accept")
		io.WriteString(w, "hello")
	})
	c := outbound.New(outbound.Options{Policy: publicAt(p), UserAgent: outbound.UserAgent("1.2.3")})
	res, err := c.Get(context.Background(), p.URL+"/x", "text/html", 100)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != "hello" || res.Truncated || res.StatusCode != 200 || res.URL.Path != "/x" {
		t.Fatalf("got %+v", res)
	}
	if ua != "Hearth/1.2.3 (self-hosted community chat server)" || accept != "text/html" {
		t.Fatalf("User-Agent %q, Accept %q", ua, accept)
	}
}

// The SSRF refusals: each names what it refused, and the server is never reached.
func TestRefusesWhatIsNotPublic(t *testing.T) {
	p := serve(t, hello)
	// Any port, so that the address rule is what refuses.
	c := outbound.New(outbound.Options{Policy: outbound.Policy{AnyPort: true}})
	tests := []struct{ url, says string }{
		{"http://127.0.0.1:" + p.port() + "/", "127.0.0.1 is not public (loopback)"},
		{"http://[::1]:" + p.port() + "/", "::1 is not public (loopback)"},
		{"http://[::ffff:127.0.0.1]:" + p.port() + "/", "is not public (IPv4-mapped loopback)"},
		{"http://localhost:" + p.port() + "/", "is not public (loopback)"},
		// Refused from the URL alone, before any dial: nothing is sent to these.
		{"http://10.0.0.1/", "10.0.0.1 is not public (private)"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is not public (link-local)"},
		{"http://100.64.0.1/", "(shared address space (CGNAT))"},
		{"http://[fd00::1]/", "fd00::1 is not public (unique local)"},
		{"http://0.0.0.0:" + p.port() + "/", "0.0.0.0 is unspecified"},
	}
	for _, tt := range tests {
		_, err := c.Get(context.Background(), tt.url, "", 100)
		wantRefused(t, err, tt.says)
	}
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
}

func TestRefusesPortsSchemesCredentialsAndMethods(t *testing.T) {
	p := serve(t, hello)
	c := outbound.New(outbound.Options{Policy: outbound.Policy{AllowPrivate: true}})
	_, err := c.Get(context.Background(), p.URL, "", 100)
	wantRefused(t, err, "only ports 80 and 443 are allowed")
	for _, u := range []string{"ftp://example.com/", "file:///etc/passwd", "gopher://example.com/"} {
		_, err := c.Get(context.Background(), u, "", 100)
		wantRefused(t, err, "only http and https URLs are fetched")
	}
	open := outbound.New(outbound.Options{Policy: outbound.Operator})
	_, err = open.Get(context.Background(), "http://user:secret@127.0.0.1:"+p.port()+"/", "", 100)
	wantRefused(t, err, "URLs with a user name or password are not fetched")
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("the error shows the password: %v", err)
	}
	_, err = open.HTTPClient().Post(p.URL, "text/plain", strings.NewReader("x"))
	wantRefused(t, err, "only GET requests")
	req, _ := http.NewRequest(http.MethodDelete, p.URL, nil)
	_, err = open.HTTPClient().Do(req)
	wantRefused(t, err, "only GET requests are made, not DELETE")
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// The operator's policy reaches loopback on any port.
	res, err := open.Get(context.Background(), p.URL, "", 100)
	if err != nil || string(res.Body) != "hello" {
		t.Fatalf("operator policy: %v", err)
	}
}

func TestRedirectsAreCheckedAgain(t *testing.T) {
	inner := serve(t, hello)
	toLoopback := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	})
	toLocalhost := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+inner.port()+"/secret", http.StatusMovedPermanently)
	})
	toFile := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	c := outbound.New(outbound.Options{Policy: publicAt(toLoopback, toLocalhost, toFile)})
	_, err := c.Get(context.Background(), toLoopback.URL, "", 100)
	wantRefused(t, err, "")
	_, err = c.Get(context.Background(), toLocalhost.URL, "", 100)
	wantRefused(t, err, "")
	_, err = c.Get(context.Background(), toFile.URL, "", 100)
	if err == nil {
		t.Fatal("a redirect to file:// was followed")
	}
	if n := inner.hits.Load(); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

func TestRedirectLimit(t *testing.T) {
	var loop *page
	loop = serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+r.URL.Path+"x", http.StatusFound)
	})
	c := outbound.New(outbound.Options{Policy: publicAt(loop), MaxRedirects: 3})
	_, err := c.Get(context.Background(), loop.URL+"/", "", 100)
	wantRefused(t, err, "stopped after 3 redirects")
	if n := loop.hits.Load(); n != 4 {
		t.Fatalf("%d requests, want the first and 3 redirects", n)
	}
	// A chain within the limit is followed to its end.
	hops := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Path) < 4 {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
			return
		}
		io.WriteString(w, "end")
	})
	c = outbound.New(outbound.Options{Policy: publicAt(hops), MaxRedirects: 3})
	res, err := c.Get(context.Background(), hops.URL+"/", "", 100)
	if err != nil || string(res.Body) != "end" || res.URL.Path != "/xxx" {
		t.Fatalf("got %v, %v", res, err)
	}
}

func TestTimeoutCoversTheWholeRequest(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slowBody := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := outbound.New(outbound.Options{Policy: publicAt(slowBody), Timeout: 200 * time.Millisecond})
	_, err := c.Get(context.Background(), slowBody.URL, "", 1000)
	var te interface{ Timeout() bool }
	if !errors.As(err, &te) || !te.Timeout() {
		t.Fatalf("got %v, want a timeout", err)
	}
	// A server that never answers at all is timed out the same way.
	silent := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c = outbound.New(outbound.Options{Policy: publicAt(silent), Timeout: 200 * time.Millisecond})
	_, err = c.Get(context.Background(), silent.URL, "", 1000)
	var ue *url.Error
	if !errors.As(err, &ue) || !ue.Timeout() {
		t.Fatalf("got %v, want a timeout", err)
	}
}

func TestBodyLimits(t *testing.T) {
	const size = 50_000_000
	huge := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("a", 64<<10))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := outbound.New(outbound.Options{Policy: publicAt(huge), MaxBody: 2_000_000})
	res, err := c.Get(context.Background(), huge.URL, "", 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Body) != 1_000_000 || !res.Truncated {
		t.Fatalf("read %d bytes, truncated %v", len(res.Body), res.Truncated)
	}
	// A limit over MaxBody is MaxBody.
	res, err = c.Get(context.Background(), huge.URL, "", 10_000_000)
	if err != nil || len(res.Body) != 2_000_000 || !res.Truncated {
		t.Fatalf("read %d bytes, truncated %v, %v", len(res.Body), res.Truncated, err)
	}
	// Through the plain client a read past MaxBody fails.
	r, err := c.HTTPClient().Get(huge.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	n, err := io.Copy(io.Discard, r.Body)
	if !errors.Is(err, outbound.ErrTooLarge) || n != 2_000_000 {
		t.Fatalf("read %d bytes, then %v", n, err)
	}
	// A body of exactly the limit is whole.
	exact := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "12345") })
	c = outbound.New(outbound.Options{Policy: publicAt(exact), MaxBody: 5})
	res, err = c.Get(context.Background(), exact.URL, "", 5)
	if err != nil || string(res.Body) != "12345" || res.Truncated {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// A name that resolves to loopback is refused at the dial, whatever the name looks like:
// this is DNS rebinding, where a name that once resolved to a public address now resolves
// to an internal one.
func TestNameResolvingToLoopback(t *testing.T) {
	p := serve(t, hello)
	dns := fakeDNS(t, netip.MustParseAddr("127.0.0.1"))
	c := outbound.New(outbound.Options{Policy: outbound.Policy{AnyPort: true}, Resolver: dns})
	_, err := c.Get(context.Background(), "http://rebind.example:"+p.port()+"/", "", 100)
	wantRefused(t, err, "127.0.0.1 is not public (loopback)")
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// The same name, allowed to reach private addresses, gets through: the refusal was the
	// address rule's, not a failed lookup.
	c = outbound.New(outbound.Options{Policy: outbound.Operator, Resolver: dns})
	res, err := c.Get(context.Background(), "http://rebind.example:"+p.port()+"/", "", 100)
	if err != nil || string(res.Body) != "hello" {
		t.Fatalf("got %v", err)
	}
}

// fakeDNS is a resolver whose DNS server, on loopback, answers every A question with addr
// and every other question with no answer.
func fakeDNS(t *testing.T, addr netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out, err := answer(buf[:n], addr); err == nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", pc.LocalAddr().String())
		},
	}
}

func answer(query []byte, addr netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	if q.Type == dnsmessage.TypeA {
		rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
		if err := b.AResource(rh, dnsmessage.AResource{A: addr.As4()}); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
