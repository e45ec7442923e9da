package ratelimit

import "net/netip"

// AddrKey is what every per-address limit counts a client address by (Join's, the sign-in
// attempts', the requests in flight before authentication, the pending authorization
// requests): an IPv4 address as it is, an IPv4-mapped IPv6 address as its IPv4 address, and an
// IPv6 address by its /64 ("2001:db8:1:2::/64"). A host is usually given a whole /64 and may
// use any address in it (privacy addresses change on their own), so a limit per IPv6 address
// would give one host 2^64 buckets. What is not an address (a Unix socket's peer, "") is its
// own key.
func AddrKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	switch {
	case err != nil:
		return addr
	case a.Is4():
		return addr // as it came: ParseAddr takes only the canonical form
	case a.Is4In6():
		return a.Unmap().String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
