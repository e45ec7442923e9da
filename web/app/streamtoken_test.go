package app_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// creds is, in the page, the tokens the client keeps for the server it is on; setCreds(f)
// changes them with f.
const (
	creds    = `JSON.parse(localStorage.getItem("hearth.tokens"))[` + "`${location.origin}`" + `]`
	setCreds = `((f) => { const all = JSON.parse(localStorage.getItem("hearth.tokens")); f(all[location.origin]); localStorage.setItem("hearth.tokens", JSON.stringify(all)); })`
)

// expiry is a JWT's exp, read without checking the token.
func expiry(t *testing.T, tok string) time.Time {
	t.Helper()
	var claims struct {
		Exp int64 `json:"exp"`
	}
	parts := strings.Split(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[min(1, len(parts)-1)])
	if err == nil {
		err = json.Unmarshal(raw, &claims)
	}
	if err != nil || claims.Exp == 0 {
		t.Fatalf("no exp in %q: %v", tok, err)
	}
	return time.Unix(claims.Exp, 0)
}

// subscribes is how many times the page has opened its event stream: GET /events (a
// WebSocket) or a Subscribe call.
func (p *page) subscribes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.requests {
		if strings.HasSuffix(u, "/svc.v1.ChatService/Subscribe") || strings.Contains(u, "/events?after_seq=") {
			n++
		}
	}
	return n
}

// waitSubscribes waits until the page has opened its event stream at least n times.
func (p *page) waitSubscribes(n int) {
	p.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for p.subscribes() < n {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: the event stream opened %d times, want %d\n%s", p.name, p.subscribes(), n, p.describe())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBrowserStreamOutlivesItsToken: the server ends an event stream when the access token
// it was opened with expires (unauthenticated). By then the client's calls have refreshed its
// token; it subscribes again with the new one from its last seq, at once: nothing missed,
// nothing doubled, nothing shown to the person.
func TestBrowserStreamOutlivesItsToken(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	// The tokens are checked on the real clock; the stream's expiry on the engine's, which
	// starts at the real time and moves only when told.
	clock := webtest.NewClockAt(time.Now())
	srv, owner, ids := community(t, webtest.WithClock(clock), webtest.WithManualJobs())
	dana := openPage(t, browser, "dana", 1280, 800)
	dana.signUp(srv, "", "dana", "Dana")

	t.Log("the stream opens with an access token that expires in 3 minutes")
	sub := eval[string](dana, `JSON.parse(atob(`+creds+`.access.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).sub`)
	short, err := srv.Issuer.Mint(sub, "Dana", 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	dana.eval0(setCreds + `((c) => { c.access = ` + js(short) + `; c.expiresAt = Date.now() + 3600000; })`)
	dana.run(chromedp.Reload())
	dana.waitFor("the chat after the reload", `!!document.querySelector(".chat")`)
	dana.openChannel("general")
	dana.waitSubscribes(1)
	dana.sendAPI(t, owner, ids["general"], "on the first stream")
	dana.seesOnce("on the first stream")

	t.Log("a call refreshes the token, which is about to expire; the stream keeps the old one")
	dana.eval0(setCreds + `((c) => { c.expiresAt = Date.now(); })`)
	dana.send("a call with a fresh token")
	dana.seesOnce("a call with a fresh token")
	dana.waitFor("a new access token", creds+`.access !== `+js(short)+` && `+creds+`.expiresAt > Date.now() + 600000`)
	opened := dana.subscribes()

	t.Log("the stream's token expires: the server ends the stream, the client subscribes again")
	clock.Set(expiry(t, short))
	dana.sendAPI(t, owner, ids["general"], "after the first stream's end")
	dana.waitSubscribes(opened + 1)
	dana.seesOnce("after the first stream's end")
	dana.seesOnce("on the first stream")
	dana.sendAPI(t, owner, ids["general"], "on the second stream")
	dana.seesOnce("on the second stream")
	dana.waitFor("the chat, not the sign-in page", `!!document.querySelector(".chat") && !document.querySelector("#signin-title")`)
	if n := dana.subscribes(); n != opened+1 {
		t.Errorf("the event stream opened %d times after its end, want once", n-opened)
	}
	dana.noErrors(srv.URL)
}

// TestBrowserRefusedTokenIsRefreshed: an access token the server refuses while the client still
// counts on it (their clocks differ, say) is refreshed at once, not only once it comes near its
// end by the client's clock, and the person stays signed in.
func TestBrowserRefusedTokenIsRefreshed(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	dana := openPage(t, browser, "dana", 1280, 800)
	dana.signUp(srv, "", "dana", "Dana")

	t.Log("the client holds a token the server finds expired, and counts on it for an hour")
	sub := eval[string](dana, `JSON.parse(atob(`+creds+`.access.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).sub`)
	expired, err := srv.Issuer.Mint(sub, "Dana", time.Nanosecond) // exp is in whole seconds: now
	if err != nil {
		t.Fatal(err)
	}
	dana.eval0(setCreds + `((c) => { c.access = ` + js(expired) + `; c.expiresAt = Date.now() + 3600000; })`)
	dana.run(chromedp.Reload())

	t.Log("refused, it is refreshed: the chat, not the sign-in page")
	dana.waitFor("a new access token", creds+`.access !== `+js(expired))
	dana.waitFor("the chat", `!!document.querySelector(".chat") && !document.querySelector("#signin-title")`)
	dana.openChannel("general")
	dana.sendAPI(t, owner, ids["general"], "still signed in")
	dana.seesOnce("still signed in")
}
