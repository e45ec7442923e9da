package outbound

import (
	"net/netip"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr, want string
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "link-local"},
		{"100.64.0.1", "shared address space (CGNAT)"},
		{"100.127.255.254", "shared address space (CGNAT)"},
		{"0.0.0.0", "this network"},
		{"224.0.0.1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},
		{"192.0.2.7", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"::ffff:10.1.2.3", "IPv4-mapped private"},
		{"::ffff:169.254.169.254", "IPv4-mapped link-local"},
		{"::127.0.0.1", "IPv4-compatible"},
		{"::", "unspecified"},
		{"fc00::1", "unique local"},
		{"fd12:3456::1", "unique local"},
		{"fe80::1", "link-local"},
		{"ff02::1", "multicast"},
		{"2001:db8::1", "documentation"},
		{"64:ff9b::a00:1", "NAT64 of private"},
		{"64:ff9b:1::1", "local-use NAT64"},
		{"2002:7f00:1::1", "6to4 of loopback"},
		{"2001::1", "IETF protocol assignments"},
		{"1234::1", "not global unicast"},
		// Public.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"100.63.255.255", ""},
		{"172.32.0.1", ""},
		{"::ffff:8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
	}
	for _, tt := range tests {
		if got := Classify(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Classify(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
	if got := Classify(netip.MustParseAddr("fe80::1%eth0")); got != "scoped (has a zone)" {
		t.Errorf("a zoned address: %q", got)
	}
}

func TestPolicyCheck(t *testing.T) {
	ap := netip.MustParseAddrPort
	tests := []struct {
		name   string
		policy Policy
		addr   string
		ok     bool
	}{
		{"public on 443", Public, "8.8.8.8:443", true},
		{"public on 80", Public, "[2606:4700:4700::1111]:80", true},
		{"public on another port", Public, "8.8.8.8:8080", false},
		{"loopback", Public, "127.0.0.1:80", false},
		{"private allowed", Policy{AllowPrivate: true}, "10.0.0.1:80", true},
		{"private allowed, port still checked", Policy{AllowPrivate: true}, "10.0.0.1:8080", false},
		{"operator", Operator, "127.0.0.1:8443", true},
		{"operator, unspecified", Operator, "0.0.0.0:80", false},
		{"operator, mapped unspecified", Operator, "[::ffff:0.0.0.0]:80", false},
		{"operator, multicast", Operator, "[ff02::1]:80", false},
		{"operator, broadcast", Operator, "255.255.255.255:80", false},
		{"exception", Policy{Exceptions: []netip.AddrPort{ap("127.0.0.1:9999")}}, "127.0.0.1:9999", true},
		{"exception, other port", Policy{Exceptions: []netip.AddrPort{ap("127.0.0.1:9999")}}, "127.0.0.1:9998", false},
	}
	for _, tt := range tests {
		err := tt.policy.check(ap(tt.addr))
		if (err == nil) != tt.ok {
			t.Errorf("%s: check(%s) = %v, want ok=%v", tt.name, tt.addr, err, tt.ok)
		}
	}
}
