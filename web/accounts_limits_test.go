package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"hearth/web/webtest"
)

// The sign-in limits of EXTENSIONS.md 8, each tested against the attack it must hold off.

// limitedCommunity is an open community whose sign-in runs on a clock the test moves, behind
// a proxy the test plays (X-Forwarded-For names the client address).
func limitedCommunity(t *testing.T) (*webtest.Server, *webtest.Clock) {
	t.Helper()
	s, _ := newOpenCommunity(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SetTrustedProxies("127.0.0.1/32")
	return s, clock
}

func from(o *webtest.OAuth, addr string) *webtest.OAuth {
	o.Header = http.Header{"X-Forwarded-For": {addr}}
	return o
}

func signIn(t *testing.T, o *webtest.OAuth, user, password string) webtest.Response {
	t.Helper()
	return o.Submit(t, o.Start(t, nil), url.Values{"action": {"signin"}, "username": {user}, "password": {password}})
}

// TestWrongPasswordsFromManyAddressesDoNotLockOutTheOwner: wrong passwords for a username from
// many addresses (more than the account's 100 an hour) hold off every browser that never signed
// in to it, but not the person's own browser, which completed a sign-in before (its device
// cookie): that one is held only by its own address's limit.
func TestWrongPasswordsFromManyAddressesDoNotLockOutTheOwner(t *testing.T) {
	t.Parallel()
	s, _ := limitedCommunity(t)
	mine := from(s.OAuth(), "198.51.100.7")
	mine.Finish(t, mine.Submit(t, mine.Start(t, nil), signUpForm("ada", pw, nil)))

	attacker := s.OAuth()
	limited := 0
	for i := range 15 {
		from(attacker, fmt.Sprintf("203.0.113.%d", i+1))
		id := attacker.Start(t, nil)
		for range 10 {
			res := attacker.Submit(t, id, url.Values{"action": {"signin"}, "username": {"ada"}, "password": {"guess"}})
			if res.Status == http.StatusTooManyRequests {
				limited++
			}
		}
	}
	if limited != 50 {
		t.Fatalf("%d of 150 guesses were held off, want 50 (100 an hour per account)", limited)
	}
	// A browser that never signed in to ada is held off, even with the right password and from
	// ada's own address.
	stranger := from(s.OAuth(), "198.51.100.7")
	wantPage(t, signIn(t, stranger, "ada", pw), http.StatusTooManyRequests, "Too many sign-in attempts.")
	// Ada's browser signs in.
	tok := mine.Finish(t, signIn(t, mine, "ada", pw))
	me(t, s, tok)
	// Its failures count toward its own address only: 10, then the wait.
	for range 10 {
		wantPage(t, signIn(t, mine, "ada", "typo password"), http.StatusUnauthorized, "Wrong username or password.")
	}
	wantPage(t, signIn(t, mine, "ada", pw), http.StatusTooManyRequests, "Too many sign-in attempts.")
}

// TestLockedOutAnswerIsTheSameForUnknownUsernames: past the account's limit, a username with
// an account and one without get the same answer and the same wait, so the limit tells nobody
// which usernames exist.
func TestLockedOutAnswerIsTheSameForUnknownUsernames(t *testing.T) {
	t.Parallel()
	s, _ := limitedCommunity(t)
	s.SignUp(t, "bea", pw, nil)
	o := s.OAuth()
	var known, unknown webtest.Response
	for i := range 101 {
		from(o, fmt.Sprintf("203.0.113.%d", i/10+1))
		id := o.Start(t, nil)
		known = o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"bea"}, "password": {"guess"}})
		unknown = o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"nobody"}, "password": {"guess"}})
		if i < 100 && (known.Status != http.StatusUnauthorized || unknown.Status != http.StatusUnauthorized) {
			t.Fatalf("guess %d: %d and %d", i, known.Status, unknown.Status)
		}
	}
	wantPage(t, known, http.StatusTooManyRequests, "Too many sign-in attempts. Try again in 1 minute.")
	wantPage(t, unknown, http.StatusTooManyRequests, "Too many sign-in attempts. Try again in 1 minute.")
	if known.Header.Get("Retry-After") != unknown.Header.Get("Retry-After") || known.Header.Get("Retry-After") != "36" {
		t.Fatalf("Retry-After %q and %q, want 36 both", known.Header.Get("Retry-After"), unknown.Header.Get("Retry-After"))
	}
}

// TestOneAddressCannotGuessManyAccounts: one address gets 30 wrong passwords in 15 minutes,
// whatever the usernames, and then waits.
func TestOneAddressCannotGuessManyAccounts(t *testing.T) {
	t.Parallel()
	s, clock := limitedCommunity(t)
	o := from(s.OAuth(), "203.0.113.50")
	id := o.Start(t, nil)
	for i := range 30 {
		res := o.Submit(t, id, url.Values{"action": {"signin"}, "username": {fmt.Sprintf("user%d", i)}, "password": {"guess"}})
		wantPage(t, res, http.StatusUnauthorized, "Wrong username or password.")
	}
	res := o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"user99"}, "password": {"guess"}})
	wantPage(t, res, http.StatusTooManyRequests, "Too many sign-in attempts. Try again in 1 minute.")
	clock.Advance(30 * time.Second)
	res = o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"user99"}, "password": {"guess"}})
	wantPage(t, res, http.StatusUnauthorized, "Wrong username or password.")
}

// TestAuthorizeFloodFromOneIPv6PrefixDoesNotExpireOthersSignIns: 120 addresses of one IPv6 /56
// looping over the authorize endpoint neither fill the store of pending sign-ins (the endpoint
// is limited per address and per /48) nor push out the sign-in page another person is filling
// in.
func TestAuthorizeFloodFromOneIPv6PrefixDoesNotExpireOthersSignIns(t *testing.T) {
	t.Parallel()
	s, _ := limitedCommunity(t)
	s.SignUp(t, "cat", pw, nil)
	person := from(s.OAuth(), "198.51.100.9")
	id := person.Start(t, nil)

	flood := s.OAuth()
	refused := 0
	for i := range 120 {
		from(flood, fmt.Sprintf("2001:db8:aa:bb%02x::1", i))
		for range 10 {
			res := flood.Get(t, "/oauth/authorize?"+flood.AuthorizeQuery(nil).Encode())
			switch res.Status {
			case http.StatusFound:
			case http.StatusTooManyRequests:
				refused++
				if res.Header.Get("Retry-After") == "" {
					t.Fatal("a refused authorization request without Retry-After")
				}
			default:
				t.Fatalf("authorize: %d %s", res.Status, res.Body)
			}
		}
	}
	if refused != 1200-120 {
		t.Fatalf("%d of the flood's 1,200 requests were refused, want 1,080 (120 per /48)", refused)
	}
	// The person's page still works, and another network's is not held up.
	person.Code(t, person.Submit(t, id, url.Values{"action": {"signin"}, "username": {"cat"}, "password": {pw}}))
	other := from(s.OAuth(), "2001:db8:cc::1")
	other.Start(t, nil)
}

// TestAuthorizeIsLimitedPerAddress: one address starts 30 sign-ins, then one every 2 seconds.
func TestAuthorizeIsLimitedPerAddress(t *testing.T) {
	t.Parallel()
	s, clock := limitedCommunity(t)
	o := from(s.OAuth(), "203.0.113.60")
	for range 30 {
		o.Start(t, nil)
	}
	res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(nil).Encode())
	wantPage(t, res, http.StatusTooManyRequests, "Too many sign-ins were started from your network.")
	clock.Advance(2 * time.Second)
	o.Start(t, nil)
	// Another address is not held up.
	from(s.OAuth(), "203.0.113.61").Start(t, nil)
}
