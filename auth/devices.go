package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Devices: every sign-in that reaches the client begins a refresh token family, and the
// account page lists each as a device (named from the browser's user agent, when it signed in,
// when it last refreshed) that can be signed out alone. The device cookie is something else: a
// random token the issuer sets in a browser that completed a sign-in, naming the accounts that
// did; a password typed in such a browser is held only by the per-account-and-address limit,
// so that failures from elsewhere cannot lock its person out (EXTENSIONS.md, section 8).

const (
	deviceCookie = "hearth_device"
	// deviceCookieTTL is how long a browser stays known without signing in again.
	deviceCookieTTL = 365 * 24 * time.Hour
	// deviceCookieAccounts bounds the accounts one browser is known for (the newest kept).
	deviceCookieAccounts = 20
)

// deviceName names a browser for a person from its User-Agent: "Firefox on Linux". It is a
// label, never a decision: a browser may send anything.
func deviceName(ua string) string {
	browser := "Unknown browser"
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
		{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"}, {"CriOS/", "Chrome"},
		{"Chromium/", "Chromium"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, s := range []struct{ token, name string }{
		{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Macintosh", "macOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, s.token) {
			system = s.name
			break
		}
	}
	if system == "" {
		return browser
	}
	return browser + " on " + system
}

// deviceCookieHash is the store's key of the request's device cookie, or nil.
func deviceCookieHash(r *http.Request) []byte {
	c, err := r.Cookie(deviceCookie)
	if err != nil || len(c.Value) < 20 || len(c.Value) > 100 {
		return nil
	}
	return hashToken(c.Value)
}

// knownDevice tells whether the request's browser completed a sign-in to subject before.
func (p *Provider) knownDevice(r *http.Request, subject string) bool {
	h := deviceCookieHash(r)
	if h == nil {
		return false
	}
	t, err := p.security.Token(r.Context(), DeviceCookieToken, h, false)
	return err == nil && p.now().Before(t.Expires) && slices.Contains(t.Subjects, subject)
}

// rememberDevice marks the browser as one that completed a sign-in to subject, setting its
// device cookie when it has none, and returns the cookie's hash (hex) for the devices row.
func (p *Provider) rememberDevice(w http.ResponseWriter, r *http.Request, subject string) string {
	ctx := context.WithoutCancel(r.Context())
	now := p.now()
	h := deviceCookieHash(r)
	var t AccountToken
	if h != nil {
		var err error
		if t, err = p.security.Token(ctx, DeviceCookieToken, h, false); err != nil || !now.Before(t.Expires) {
			h, t = nil, AccountToken{}
		}
	}
	token := ""
	if h == nil {
		token = "hd_" + rand.Text() + rand.Text()
		h = hashToken(token)
		t = AccountToken{Created: now}
	}
	t.Subjects = append(slices.DeleteFunc(t.Subjects, func(s string) bool { return s == subject }), subject)
	if len(t.Subjects) > deviceCookieAccounts {
		t.Subjects = t.Subjects[len(t.Subjects)-deviceCookieAccounts:]
	}
	t.Expires = now.Add(deviceCookieTTL)
	if err := p.security.PutToken(ctx, DeviceCookieToken, h, t); err != nil {
		p.log.Error("remember a device", "err", err)
		return ""
	}
	if token != "" {
		p.setCookie(w, deviceCookie, token, deviceCookieTTL)
	}
	return hex.EncodeToString(h)
}

// setCookie sets one of the issuer's cookies: only for its own pages (/oauth/), never sent
// with a request from another site, unreadable by scripts, and only over https when the
// server is on https. ttl 0 deletes it.
func (p *Provider) setCookie(w http.ResponseWriter, name, value string, ttl time.Duration) {
	c := &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     p.cookiePath,
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
		Secure:   strings.HasPrefix(p.issuer.URL(), "https://"),
		MaxAge:   int(ttl / time.Second),
	}
	if ttl <= 0 {
		c.MaxAge, c.Value = -1, ""
	}
	http.SetCookie(w, c)
}

// recordDevice keeps the device of a new refresh token family.
func (p *Provider) recordDevice(ctx context.Context, a *authRequest, t RefreshToken) {
	p.storage.mu.Lock()
	ua, cookie := a.userAgent, a.device
	p.storage.mu.Unlock()
	d := Device{
		Family: t.Family, Name: deviceName(ua), Created: t.IssuedAt, LastUsed: t.IssuedAt,
		Epoch: t.Epoch, Expires: t.Expires, Cookie: cookie,
	}
	if err := p.security.PutDevice(ctx, t.Subject, d); err != nil {
		p.log.Error("record a signed-in device", "err", err)
	}
}

// devices lists the account's signed-in devices, newest use first: those of its current token
// epoch (a sign-out everywhere or a password change signs out the others) not expired.
func (p *Provider) devices(ctx context.Context, acc Account) ([]Device, error) {
	all, err := p.security.Devices(ctx, acc.Subject)
	if err != nil {
		return nil, err
	}
	now := p.now()
	out := all[:0]
	for _, d := range all {
		if d.Epoch == acc.TokenEpoch && now.Before(d.Expires) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Device) int { return b.LastUsed.Compare(a.LastUsed) })
	return out, nil
}

// signOutDevice revokes one family's refresh tokens and forgets its device.
func (p *Provider) signOutDevice(ctx context.Context, subject, family string) error {
	if err := p.accounts.RevokeFamily(ctx, family, p.now().Add(refreshTokenTTL)); err != nil {
		return err
	}
	return p.security.DeleteDevices(ctx, subject, family)
}

// signOutEverywhere revokes every refresh token of the account and forgets its devices.
func (p *Provider) signOutEverywhere(ctx context.Context, subject string) error {
	if err := p.accounts.RevokeRefreshTokens(ctx, subject); err != nil {
		return err
	}
	return p.security.DeleteDevices(ctx, subject)
}
