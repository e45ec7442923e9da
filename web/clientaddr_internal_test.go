package web

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientAddrOf(t *testing.T) {
	t.Parallel()
	trusted := proxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name    string
		proxies proxies
		peer    string
		header  map[string][]string
		want    string
	}{
		{"the peer, no proxies", nil, "192.0.2.1:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "192.0.2.1"},
		{"an untrusted peer's header is ignored", trusted, "192.0.2.1:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "192.0.2.1"},
		{"a trusted peer without a header", trusted, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"one proxy", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "203.0.113.1"},
		{"a forged entry left of the real one", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"198.51.100.1, 203.0.113.1"}}, "203.0.113.1"},
		{"two trusted proxies", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1, 10.9.9.9"}}, "203.0.113.1"},
		{"several header lines", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"198.51.100.1", "203.0.113.1"}}, "203.0.113.1"},
		{"only trusted hops", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"10.0.0.1, 10.0.0.2"}}, "10.0.0.1"},
		{"a garbled hop stops at the proxy that reported it", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1, nonsense"}}, "10.1.2.3"},
		{"an entry with a port", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1:443"}}, "203.0.113.1"},
		{"Forwarded with a quoted IPv6 and port", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {`for="[2001:db8::1]:4711";proto=https`}}, "2001:db8::1"},
		{"Forwarded and X-Forwarded-For disagreeing: the proxy", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {"for=203.0.113.5"}, "X-Forwarded-For": {"203.0.113.6"}}, "10.1.2.3"},
		{"Forwarded and X-Forwarded-For agreeing", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {`for="203.0.113.5:80"`}, "X-Forwarded-For": {"198.51.100.1, 203.0.113.5"}}, "203.0.113.5"},
		{"a garbled Forwarded beside X-Forwarded-For: the proxy", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {"for=_hidden"}, "X-Forwarded-For": {"203.0.113.6"}}, "10.1.2.3"},
		{"Forwarded for=unknown", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {"for=unknown"}}, "10.1.2.3"},
		{"Forwarded with two elements", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {"for=198.51.100.1, for=203.0.113.1;by=10.1.2.3"}}, "203.0.113.1"},
		{"an IPv6 proxy", trusted, "[fd00::5]:5000", map[string][]string{"X-Forwarded-For": {"2001:db8::7"}}, "2001:db8::7"},
		{"an IPv4-mapped peer", trusted, "[::ffff:10.1.2.3]:5000", map[string][]string{"X-Forwarded-For": {"::ffff:203.0.113.1"}}, "203.0.113.1"},
	} {
		r := &http.Request{RemoteAddr: tc.peer, Header: http.Header(tc.header)}
		if got := tc.proxies.clientAddrOf(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
