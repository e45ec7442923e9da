package outbound

import (
	"net/netip"
)

// The address rule. A public address is one that the IANA special-purpose address
// registries (IPv4 and IPv6) do not mark as anything but globally reachable unicast: no
// loopback, private (RFC 1918), shared (CGNAT, 100.64/10), link-local, documentation,
// benchmarking, reserved, multicast, broadcast or unspecified address, and no IPv6 address
// that stands for one of those IPv4 addresses (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
// A few blocks the registries call global but that no web page lives in (IETF protocol
// assignments as a whole, the deprecated 6to4 relay anycast) are refused too: erring on the
// side of refusing costs a preview, erring the other way reaches an internal service.

// notPublic4 lists the IPv4 blocks that are not public, with what each is.
var notPublic4 = []named{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// notPublic6 lists the IPv6 blocks that are not public, inside global unicast (2000::/3)
// or beside it; everything outside 2000::/3 that is not listed is refused as "not global
// unicast".
var notPublic6 = []named{
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

type named struct {
	prefix netip.Prefix
	what   string
}

// Classify says what kind of non-public address a is ("loopback", "private", ...), or ""
// when a is public: one the previews fetcher may connect to.
func Classify(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid"
	}
	if a.Zone() != "" {
		return "scoped (has a zone)"
	}
	if a.Is4In6() {
		// ::ffff:a.b.c.d is a.b.c.d on a dual-stack socket.
		if what := classify4(a.Unmap()); what != "" {
			return "IPv4-mapped " + what
		}
		return ""
	}
	if a.Is4() {
		return classify4(a)
	}
	for _, n := range notPublic6 {
		if n.prefix.Contains(a) {
			return n.what
		}
	}
	// NAT64 and 6to4 carry an IPv4 address that a gateway connects to for us.
	b := a.As16()
	switch {
	case nat64.Contains(a):
		if what := classify4(netip.AddrFrom4([4]byte(b[12:16]))); what != "" {
			return "NAT64 of " + what
		}
		return ""
	case sixToFour.Contains(a):
		if what := classify4(netip.AddrFrom4([4]byte(b[2:6]))); what != "" {
			return "6to4 of " + what
		}
		return ""
	case !globalUnicast6.Contains(a):
		return "not global unicast"
	}
	return ""
}

func classify4(a netip.Addr) string {
	for _, n := range notPublic4 {
		if n.prefix.Contains(a) {
			return n.what
		}
	}
	return ""
}

// neverDialled reports the addresses no policy lets a client connect to: no web server
// answers on them, and connecting to the unspecified address reaches this very machine.
func neverDialled(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return ""
}
