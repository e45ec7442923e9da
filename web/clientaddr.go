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
// use it; a header from anyone else is ignored, or anyone could pick their own address.

const clientAddrKey ctxKey = 100

// clientAddr is the address of the client a call came from (see clientAddrOf); empty outside
// a request served by New's handler.
func clientAddr(ctx context.Context) string {
	addr, _ := ctx.Value(clientAddrKey).(string)
	return addr
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
// hop that is missing or malformed stops the walk at the proxy that reported it. Forwarded
// (RFC 7239) is read when present, X-Forwarded-For otherwise.
func (p proxies) clientAddrOf(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return hostOf(r.RemoteAddr)
	}
	if len(p) == 0 || !p.trusted(peer) {
		return peer.Unmap().String()
	}
	chain := forwardedFor(r.Header)
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
	return client.Unmap().String()
}

// forwardedFor is the list of client addresses the proxies reported, leftmost first: the for=
// parameters of Forwarded, or else the entries of X-Forwarded-For, across all their lines.
func forwardedFor(h http.Header) []string {
	var out []string
	if lines := h.Values("Forwarded"); len(lines) > 0 {
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
	for _, line := range h.Values("X-Forwarded-For") {
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
