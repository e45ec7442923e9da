package auth

import (
	"time"

	"golang.org/x/time/rate"

	"hearth/engine/ratelimit"
)

// Sign-in attempts (DECISIONS.md): 10 a minute per client address, 10 an hour per account.
// The account is named by the username typed, whether or not an account has it, so that the
// limit tells nobody which usernames exist. The buckets are engine/ratelimit's, on the
// issuer's clock.
var (
	addrAttempts    = ratelimit.Limit{Every: rate.Every(6 * time.Second), Burst: 10}
	accountAttempts = ratelimit.Limit{Every: rate.Every(6 * time.Minute), Burst: 10}
)
