package main

import (
	"bytes"
	"flag"
	"io"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// -trusted-proxy takes CIDRs or single addresses, repeated or as a comma list (from
// HEARTH_TRUSTED_PROXY too); anything else stops the server with one line naming the flag.
func TestTrustedProxyFlag(t *testing.T) {
	parse := func(args []string) []netip.Prefix {
		t.Helper()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var c Config
		serveFlags(fs, &c)
		if err := parseFlags(fs, args); err != nil {
			t.Fatal(err)
		}
		p, err := c.trustedProxies()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := parse(nil); len(p) != 0 {
		t.Fatalf("default: %v", p)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("2001:db8::/32")}
	if p := parse([]string{"-trusted-proxy", "10.1.2.3/8", "-trusted-proxy", "192.0.2.7,2001:db8::/32"}); !slices.Equal(p, want) {
		t.Fatalf("flags: %v, want %v", p, want)
	}
	t.Setenv("HEARTH_TRUSTED_PROXY", "10.0.0.0/8, 192.0.2.7, 2001:db8::/32")
	if p := parse(nil); !slices.Equal(p, want) {
		t.Fatalf("from the environment: %v, want %v", p, want)
	}
	t.Setenv("HEARTH_TRUSTED_PROXY", "")

	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-trusted-proxy", "10.0.0.0/33"}, `-trusted-proxy "10.0.0.0/33" must be a CIDR such as 10.0.0.0/8 or an IP address`},
		{[]string{"-trusted-proxy", "proxy.example.com"}, `-trusted-proxy "proxy.example.com"`},
		{[]string{"-name", "Eve\u202enimda"}, `-name "Eve\u202enimda": name must not contain bidirectional override or isolate characters`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"-data", t.TempDir(), "-addr", "127.0.0.1:0"}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.says) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line saying %q", tc.args, code, stderr.String(), tc.says)
		}
	}
}
