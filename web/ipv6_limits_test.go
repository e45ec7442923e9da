package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The per-address limits count an IPv6 address by its /64: a host is usually given a whole
// /64 and may send from any address in it, so counting each address let one host join, try
// passwords or hold requests without end. IPv4 addresses count one by one as before, and an
// IPv4-mapped IPv6 address as its IPv4 address. (TestInFlightBeforeAuthenticationIsCappedPerAddress
// and TestAuthorizationRequestsAreBoundedPerAddress hold the other two limits' tests.)

// TestJoinLimitCountsAnIPv6Slash64AsOneHost: Join's 10 a minute per address.
func TestJoinLimitCountsAnIPv6Slash64AsOneHost(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SetTrustedProxies("127.0.0.1/32")
	s.Join("owner")
	join := func(sub, from string) error {
		c := s.Client(s.Token(sub), withHeader("X-Forwarded-For", from))
		_, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{}))
		return err
	}
	for i := range 10 {
		wantOK(t, "a join from the /64", join(fmt.Sprint("a", i), fmt.Sprintf("2001:db8:7:7:%x::%x", i, i+1)))
	}
	wantCode(t, "the 11th join from the /64, from an address of its own", join("b", "2001:db8:7:7:ffff:ffff:ffff:ffff"), connect.CodeResourceExhausted, "joining: rate limit reached")
	wantOK(t, "a join from the next /64", join("c", "2001:db8:7:8::1"))

	for i := range 10 {
		wantOK(t, "a join from an IPv4 address", join(fmt.Sprint("d", i), []string{"203.0.113.1", "::ffff:203.0.113.1"}[i%2]))
	}
	wantCode(t, "the 11th join from the IPv4 address", join("e", "::ffff:203.0.113.1"), connect.CodeResourceExhausted, "joining: rate limit reached")
	wantOK(t, "a join from the next IPv4 address", join("f", "203.0.113.2"))
}

// TestSignInLimitCountsAnIPv6Slash64AsOneHost: the sign-in attempts' 10 a minute per address,
// which a sign-up counts toward.
func TestSignInLimitCountsAnIPv6Slash64AsOneHost(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SetTrustedProxies("127.0.0.1/32")
	o := s.OAuth()
	id := o.Start(t, nil)
	from := func(addr string) { o.Header = http.Header{"X-Forwarded-For": {addr}} }
	attempt := func(user string) webtest.Response {
		return o.Submit(t, id, url.Values{"action": {"signin"}, "username": {user}, "password": {"wrong password"}})
	}
	// 30 failures per address in 15 minutes: every address of one /64 counts as one.
	for i := range 30 {
		from(fmt.Sprintf("2001:db8:5:5:%x::%x", i, i+1))
		wantPage(t, attempt([]string{"ivan", "judy", "kim", "lee"}[i%4]), http.StatusUnauthorized, "Wrong username or password.")
	}
	from("2001:db8:5:5:ffff:ffff:ffff:ffff")
	wantPage(t, attempt("mo"), http.StatusTooManyRequests, "Too many sign-in attempts.")
	from("2001:db8:5:6::1")
	wantPage(t, attempt("mo"), http.StatusUnauthorized, "Wrong username or password.")
}
