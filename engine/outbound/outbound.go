// Package outbound is the one way Hearth makes HTTP requests to other servers: the keys of
// trusted token issuers, link previews, the update feed, Web Push. A Client makes GET requests
// only (and POST where AllowPost says so: pushes), within an overall time limit, reads bounded
// bodies, follows a bounded number of redirects and names itself in its User-Agent. Its Policy decides which addresses and ports it may
// connect to; the address is checked on the socket about to connect (net.Dialer.Control),
// after name resolution, so that neither a name resolving to an internal address (DNS
// rebinding included) nor a redirect to one gets through.
//
// The package imports nothing of Hearth: auth, engine and cmd all use it.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Policy says which servers a Client may reach.
type Policy struct {
	// AllowPrivate lets the client connect to addresses that are not public: loopback,
	// private, link-local and the rest (see Classify). For servers named by the operator
	// (trusted issuers, the update feed), for tests, and for link previews on a closed
	// network (-preview-allow-private). Unspecified, multicast and broadcast addresses stay
	// refused.
	AllowPrivate bool
	// AnyPort lets URLs name any port; otherwise only 80 (http) and 443 (https).
	AnyPort bool
	// Exceptions are addresses (with their port) that the client may connect to whatever
	// the rules above say. For tests, which serve "public" pages from loopback and check that
	// everything else on loopback is refused.
	Exceptions []netip.AddrPort
}

// Public is the policy for URLs that anyone can write, such as links in messages: public
// addresses on ports 80 and 443 only.
var Public = Policy{}

// Operator is the policy for URLs the operator configured (trusted issuers, the update
// feed): any address, any port, since an issuer on the local network is a normal setup.
var Operator = Policy{AllowPrivate: true, AnyPort: true}

// Options configure a Client. Zero values take the defaults noted.
type Options struct {
	Policy Policy
	// Timeout bounds a whole request: connecting, redirects, and reading the body (default
	// 10 s).
	Timeout time.Duration
	// MaxRedirects is how many redirects a request follows (default 5; negative: none).
	MaxRedirects int
	// MaxBody bounds every response body read through the client; a read past it fails
	// with ErrTooLarge (default 10 MiB). Get takes a lower limit per request.
	MaxBody int64
	// UserAgent names the server in every request (default UserAgent("dev")).
	UserAgent string
	// Resolver looks names up (default net.DefaultResolver). The address rule applies to
	// whatever it answers.
	Resolver *net.Resolver
	// AllowPost lets the client make POST requests with a body (Web Push); otherwise only GET
	// requests without one are made.
	AllowPost bool
}

// UserAgent is the User-Agent of a Hearth server of the given version.
func UserAgent(version string) string {
	return "Hearth/" + version + " (self-hosted community chat server)"
}

// ErrRefused is wrapped by the error of every request the policy refused: a scheme, port or
// address it does not allow, a method other than GET, credentials in the URL, a redirect
// too many or from https to http.
var ErrRefused = errors.New("refused")

// ErrTooLarge is wrapped by the error of a body read past the client's MaxBody.
var ErrTooLarge = errors.New("response body too large")

// refusal is a request the policy refused, and why.
type refusal struct{ why string }

func (r *refusal) Error() string { return r.why }
func (r *refusal) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// Client makes outbound requests under one Policy. It is safe for concurrent use.
type Client struct {
	opts Options
	hc   *http.Client
}

// New returns a Client.
func New(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 5
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 10 << 20
	}
	if o.UserAgent == "" {
		o.UserAgent = UserAgent("dev")
	}
	p := o.Policy
	dialer := &net.Dialer{
		Timeout:   o.Timeout,
		KeepAlive: 30 * time.Second,
		Resolver:  o.Resolver,
		// Called for every address the dialer tries, after resolution and before connect:
		// the one place that sees the address actually dialled.
		Control: func(network, address string, _ syscall.RawConn) error {
			return p.checkDial(network, address)
		},
	}
	tr := &http.Transport{
		// Never a proxy from the environment: the policy must see the real destination.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c := &Client{opts: o}
	c.hc = &http.Client{
		Transport: &guard{next: tr, c: c},
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects || o.MaxRedirects < 0 {
				return refuse("stopped after %d redirects", len(via)-1)
			}
			if prev := via[len(via)-1].URL; prev.Scheme == "https" && req.URL.Scheme == "http" {
				return refuse("redirect from https to http %s", req.URL.Redacted())
			}
			return nil
		},
	}
	return c
}

// HTTPClient is an *http.Client with all of the Client's rules, for code that takes one (a
// JWKS library, Web Push). Requests other than GET fail, unless AllowPost lets POST through.
func (c *Client) HTTPClient() *http.Client { return c.hc }

// Response is a fetched page.
type Response struct {
	// URL is where the response came from, after redirects.
	URL        *url.URL
	StatusCode int
	Header     http.Header
	// Body is the body's first bytes, up to the limit Get was given.
	Body []byte
	// Truncated reports a body longer than the limit; the rest was not read.
	Truncated bool
}

// Get fetches rawURL and reads up to limit bytes of its body (Response.Truncated says
// whether there was more). Any status is a Response; only a refused or failed exchange is
// an error. accept, when set, is the Accept header.
func (c *Client) Get(ctx context.Context, rawURL, accept string, limit int64) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", rawURL, err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	limit = min(limit, c.opts.MaxBody)
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if errors.Is(err, ErrTooLarge) {
		err = nil // more than MaxBody, so more than limit: Truncated below
		body = append(body, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", res.Request.URL.Redacted(), err)
	}
	out := &Response{URL: res.Request.URL, StatusCode: res.StatusCode, Header: res.Header, Body: body}
	if int64(len(body)) > limit {
		out.Body, out.Truncated = body[:limit], true
	}
	return out, nil
}

// guard is the client's transport: it applies the request rules to every request, the
// redirects included, before the dial applies the address rule.
type guard struct {
	next http.RoundTripper
	c    *Client
}

func (g *guard) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case g.c.opts.AllowPost && r.Method == http.MethodPost:
	case r.Body != nil && r.Body != http.NoBody:
		r.Body.Close() // a RoundTripper closes the body, even when it refuses
		return nil, refuse("only GET requests without a body are made")
	case r.Method != http.MethodGet:
		return nil, refuse("only GET requests are made, not %s", r.Method)
	}
	if err := g.c.opts.Policy.checkURL(r.URL); err != nil {
		return nil, err
	}
	if r.Header.Get("User-Agent") != g.c.opts.UserAgent {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", g.c.opts.UserAgent)
	}
	res, err := g.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	res.Body = &cappedBody{rc: res.Body, left: g.c.opts.MaxBody}
	return res, nil
}

// CheckURL applies the rules that a URL alone decides (see checkURL), for a URL that is
// stored now and fetched later: the dial applies the rest.
func (p Policy) CheckURL(u *url.URL) error { return p.checkURL(u) }

// checkURL applies the rules that a URL alone decides: scheme, credentials, port, and the
// address when the host is written as one (so that such a URL fails before any dial).
func (p Policy) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse("%s: only http and https URLs are fetched", u.Redacted())
	}
	if u.User != nil {
		return refuse("%s: URLs with a user name or password are not fetched", u.Redacted())
	}
	host := u.Hostname()
	if host == "" {
		return refuse("%s: the URL has no host", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return refuse("%s: port %q is not a port number", u.Redacted(), port)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name: the dial checks what it resolves to
	}
	return p.check(netip.AddrPortFrom(ip, uint16(n)))
}

// checkDial applies the rules to an address the dialer is about to connect to.
func (p Policy) checkDial(network, address string) error {
	if network != "tcp4" && network != "tcp6" && network != "tcp" {
		return refuse("network %s is not used", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse("address %q is not an IP address and port", address)
	}
	return p.check(ap)
}

func (p Policy) check(ap netip.AddrPort) error {
	for _, e := range p.Exceptions {
		if e.Addr().Unmap() == ap.Addr().Unmap() && e.Port() == ap.Port() {
			return nil
		}
	}
	a := ap.Addr()
	if what := neverDialled(a); what != "" {
		return refuse("address %s is %s", a, what)
	}
	if !p.AnyPort && ap.Port() != 80 && ap.Port() != 443 {
		return refuse("port %d: only ports 80 and 443 are allowed", ap.Port())
	}
	if p.AllowPrivate {
		return nil
	}
	if what := Classify(a); what != "" {
		return refuse("address %s is not public (%s)", a, strings.TrimSpace(what))
	}
	return nil
}

// cappedBody fails a read past the client's MaxBody.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
