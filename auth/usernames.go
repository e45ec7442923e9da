package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"hearth/engine/ratelimit"
)

// usernameCheck answers the sign-up page's check of a username as it is typed:
// GET /oauth/username?name=... -> {"ok": bool, "message": "..."}. It tells what a sign-up
// would (whether a username is taken): usernames are no secret in a community, but the checks
// are limited per address all the same.
func (p *Provider) usernameCheck(w http.ResponseWriter, r *http.Request) {
	if wait := p.limits.Allow("username:"+ratelimit.AddrKey(p.clientAddr(r)), usernameChecks, 1); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int((wait+time.Second-1)/time.Second)))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "message": ""})
		return
	}
	name := normalizeUsername(r.URL.Query().Get("name"))
	if err := checkUsername(name); err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "message": err.Error()})
		return
	}
	acc, err := p.accounts.AccountByUsername(r.Context(), name)
	switch {
	case errors.Is(err, ErrAccountNotFound) || (err == nil && acc.Pending && p.now().Sub(acc.CreatedAt) > staleSignUp):
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "message": name + " is free."})
	case err != nil:
		p.log.Error("check a username", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]any{"ok": false, "message": ""})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "message": "The username " + strings.ToLower(name) + " is taken."})
	}
}
