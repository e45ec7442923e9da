package ratelimit

import "testing"

func TestAddrKey(t *testing.T) {
	for addr, want := range map[string]string{
		"203.0.113.7":                "203.0.113.7",
		"::ffff:203.0.113.7":         "203.0.113.7",
		"2001:db8:1:2::1":            "2001:db8:1:2::/64",
		"2001:db8:1:2:aaaa:bbbb:c:d": "2001:db8:1:2::/64",
		"2001:DB8:1:2::ffff":         "2001:db8:1:2::/64",
		"2001:db8:1:3::1":            "2001:db8:1:3::/64",
		"fe80::1%eth0":               "fe80::/64",
		"::1":                        "::/64",
		"":                           "",
		"@":                          "@",
		"not an address":             "not an address",
	} {
		if got := AddrKey(addr); got != want {
			t.Errorf("AddrKey(%q) = %q, want %q", addr, got, want)
		}
	}
}
