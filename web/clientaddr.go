package web

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The client address of a request: the TCP peer's, unless the peer is a proxy the operator
// trusts (-trusted-proxy), in which case it is taken from the forwarding headers the proxies
// added. Per-address limits (Join's, the requests in flight before authentication) and logs
// use it; a header from anyone else is ignored, or anyone could pick their own address. The
// limits count it by ratelimit.AddrKey (an IPv6 address by its /64); the logs show it whole.

// clientAddr is the address of the client a call came from (see clientAddrOf); empty outside
// a request served by New's handler. The intake puts it in the request's state.
func clientAddr(ctx context.Context) string {
	if st := requestStateOf(ctx); st != nil && st.intake.served {
		return st.addr
	}
	return ""
}

// ClientAddr is the client address of a request served by the server's handler, for logs.
func ClientAddr(r *http.Request) string { return clientAddr(r.Context()) }

// proxies are the trusted proxies' address ranges.
type proxies []netip.Prefix

func (p proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddrOf finds the client address of r. From a trusted peer, the forwarding chain is
// read from the right (the hop nearest to us) leftwards: the first address that is not itself
// a trusted proxy is the client, since only what trusted proxies appended can be believed. A
// hop that is missing or malformed stops the walk at the proxy that reported it.
//
// Forwarded (RFC 7239) and X-Forwarded-For are both read. A proxy appends to one of them and
// passes the other on as the client sent it (nginx, Caddy and Traefik set X-Forwarded-For and
// leave a client's Forwarded alone), so when a request carries both, one of them may be all
// the client's own words: they are believed only when they name the same client; otherwise
// the client address is the peer's, the nearest proxy, which no header can choose.
func (p proxies) clientAddrOf(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return hostOf(r.RemoteAddr)
	}
	if len(p) == 0 || !p.trusted(peer) {
		return peer.Unmap().String()
	}
	fwd, xff := r.Header.Values("Forwarded"), r.Header.Values("X-Forwarded-For")
	switch {
	case len(fwd) > 0 && len(xff) > 0:
		a, b := p.walk(peer, forwardedFor(fwd)), p.walk(peer, xForwardedFor(xff))
		if a != b {
			return peer.Unmap().String()
		}
		return a.Unmap().String()
	case len(fwd) > 0:
		return p.walk(peer, forwardedFor(fwd)).Unmap().String()
	default:
		return p.walk(peer, xForwardedFor(xff)).Unmap().String()
	}
}

// walk reads chain (leftmost first) from the right, starting at the trusted peer; see
// clientAddrOf.
func (p proxies) walk(peer netip.Addr, chain []string) netip.Addr {
	client := peer
	for i := len(chain) - 1; i >= 0; i-- {
		hop := parseHop(chain[i])
		if !hop.IsValid() {
			break
		}
		client = hop
		if !p.trusted(hop) {
			break
		}
	}
	return client.Unmap()
}

// forwardedFor is the list of client addresses in Forwarded's lines, leftmost first: its for=
// parameters.
func forwardedFor(lines []string) []string {
	var out []string
	for _, line := range lines {
		for _, elem := range strings.Split(line, ",") {
			for _, pair := range strings.Split(elem, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(k, "for") {
					out = append(out, strings.Trim(v, `"`))
				}
			}
		}
	}
	return out
}

// xForwardedFor is the list of client addresses in X-Forwarded-For's lines, leftmost first.
func xForwardedFor(lines []string) []string {
	var out []string
	for _, line := range lines {
		for _, v := range strings.Split(line, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// parseHop reads one hop: an IP address, with or without a port, IPv6 with or without brackets.
// "unknown" and obfuscated names ("_hidden") are not addresses.
func parseHop(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.WithZone("")
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().WithZone("")
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return a.WithZone("")
		}
	}
	return netip.Addr{}
}

func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().WithZone("")
	}
	a, _ := netip.ParseAddr(remote)
	return a
}

func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
