package auth

import (
	"net/http"
	"net/netip"
	"time"

	"golang.org/x/time/rate"

	"hearth/engine/ratelimit"
)

// The sign-in limits (EXTENSIONS.md, section 8). The buckets are engine/ratelimit's, on the
// issuer's clock. An account is named by the username typed, whether or not an account has
// it, so that the limits and their waits tell nobody which usernames exist.
var (
	// Failed passwords, per account and client address: 10 per 15 minutes.
	accountAddrFailures = ratelimit.Limit{Every: rate.Every(90 * time.Second), Burst: 10}
	// Failed passwords per client address, whatever the account: 30 per 15 minutes.
	addrFailures = ratelimit.Limit{Every: rate.Every(30 * time.Second), Burst: 30}
	// Failed passwords per account from all addresses: 100 per hour.
	accountFailures = ratelimit.Limit{Every: rate.Every(36 * time.Second), Burst: 100}
	// Wrong second-step codes per account (after a right password): 10, then one per 10
	// minutes. Six digits are a million; a thief who has the password gets a few hundred tries
	// a day at most.
	codeFailures = ratelimit.Limit{Every: rate.Every(10 * time.Minute), Burst: 10}
	// Sign-ups per client address: 10 a minute.
	signUpAttempts = ratelimit.Limit{Every: rate.Every(6 * time.Second), Burst: 10}
	// Authorization requests (each starts a sign-in page) per client address: 30, then one
	// every 2 seconds; per IPv6 /48 (the most one site is usually given), 120, then two a second.
	authorizePerAddr = ratelimit.Limit{Every: rate.Every(2 * time.Second), Burst: 30}
	authorizePerNet  = ratelimit.Limit{Every: rate.Every(500 * time.Millisecond), Burst: 120}
	// Password reset mails ("Forgot password"): 5 per client address per 15 minutes, and 3 an
	// hour per account (whoever asks), so that nobody floods a person's inbox.
	forgotPerAddr    = ratelimit.Limit{Every: rate.Every(3 * time.Minute), Burst: 5}
	forgotPerAccount = ratelimit.Limit{Every: rate.Every(20 * time.Minute), Burst: 3}
	// Verification mails per account: 5 an hour.
	verifyMails = ratelimit.Limit{Every: rate.Every(12 * time.Minute), Burst: 5}
	// Username checks while typing (they tell what sign-up tells): 60 a minute per address.
	usernameChecks = ratelimit.Limit{Every: rate.Every(time.Second), Burst: 60}
)

// passwordLimits are the keys and limits a password attempt on username counts toward. A
// browser that completed a sign-in to the account before (known) is held only by the first,
// so that nobody's failures from other addresses can lock its person out.
func passwordLimits(addr, username string, known bool) ([]string, []ratelimit.Limit) {
	a := ratelimit.AddrKey(addr)
	if known {
		return []string{"pw:" + username + "@" + a}, []ratelimit.Limit{accountAddrFailures}
	}
	return []string{"pw:" + username + "@" + a, "pwaddr:" + a, "pwuser:" + username},
		[]ratelimit.Limit{accountAddrFailures, addrFailures, accountFailures}
}

// netKey groups client addresses by network for the limits that must hold against one site
// with many addresses: an IPv6 address by its /48, an IPv4 address as itself.
func netKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Unmap().Is4() {
		return ratelimit.AddrKey(addr)
	}
	p, err := a.WithZone("").Prefix(48)
	if err != nil {
		return addr
	}
	return p.String()
}

// allowAuthorize counts an authorization request from r's client address: 0 or the wait.
func (p *Provider) allowAuthorize(r *http.Request) time.Duration {
	addr := p.clientAddr(r)
	return p.limits.AllowAll([]string{"authz:" + ratelimit.AddrKey(addr), "authznet:" + netKey(addr)},
		[]ratelimit.Limit{authorizePerAddr, authorizePerNet}, 1)
}
