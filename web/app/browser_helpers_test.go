package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// The browser tests drive Debian's Chromium (apt-get install chromium) against a real server.
// Without it they skip, except where HEARTH_REQUIRE_BROWSER is set (CI), where they fail.

// waitLimit bounds every wait for the page to reach a state; the waits end as soon as it does.
const waitLimit = 20 * time.Second

// startBrowser returns the headless Chromium the tests share: the first test that needs it
// starts it, TestMain stops it. People get their own browser contexts in it (their own
// storage, like two profiles), which end with their test; one process saves each test a
// browser's start, under the race detector and on a busy machine seconds each. A test that
// needs flags of its own (extra: voice's fake media) gets a Chromium of its own, ended with it.
func startBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	webtest.RequireChromium(t)
	if len(extra) > 0 {
		return startOwnBrowser(t, extra...)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	// A browser that has gone (crashed, or never came up) is started again for the next test.
	if shared.browser == nil || shared.browser.Err() != nil {
		shared.stop()
		if err := shared.start(); err != nil {
			t.Fatalf("start chromium: %v", err)
		}
	}
	return shared.browser
}

// startOwnBrowser starts a Chromium for the test alone, ended with it: for flags of its own, and
// for a test that uses the browser's own profile (an installed client, a service worker), where
// what earlier tests left (a worker registered for an address a server had before) would stay.
func startOwnBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	webtest.RequireChromium(t)
	own := &sharedBrowser{}
	if err := own.start(extra...); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(own.stop)
	return own.browser
}

// shared is the Chromium of startBrowser.
var shared sharedBrowser

type sharedBrowser struct {
	mu      sync.Mutex
	browser context.Context
	cancel  func()
	dir     string
}

func (b *sharedBrowser) start(extra ...chromedp.ExecAllocatorOption) error {
	// Chromium's process has once died at start in CI, before it listened, with nothing printed
	// but its usual D-Bus notices, while other tests' browsers were starting: a browser that never
	// came up is a machine's hiccup, not the client's failure, so it gets two more tries.
	var err error
	for try := 0; try < 3; try++ {
		if err = b.startOnce(extra...); err == nil || !strings.Contains(err.Error(), "chrome failed to start") {
			return err
		}
	}
	return err
}

func (b *sharedBrowser) startOnce(extra ...chromedp.ExecAllocatorOption) error {
	dir, err := os.MkdirTemp("", "hearth-chromium-")
	if err != nil {
		return err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), webtest.ChromiumOptions(dir, extra...)...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	b.browser, b.dir = browser, dir
	b.cancel = func() {
		cancelBrowser()
		cancelAlloc()
	}
	if err := chromedp.Do(browser); err != nil {
		b.stop()
		return err
	}
	return nil
}

// stop ends the browser's process and removes its profile.
func (b *sharedBrowser) stop() {
	if b.cancel != nil {
		b.cancel()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
	b.browser, b.cancel, b.dir = nil, nil, ""
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	shared.stop()
	shared.mu.Unlock()
	os.Exit(code)
}

// page is one person's browser window.
type page struct {
	t      *testing.T
	name   string
	ctx    context.Context
	mu     sync.Mutex
	errors []string
	// requests are the URLs the page asked for (each must be on the server's origin).
	requests []string
	// blocked are the URL prefixes whose requests fail at the network (block); intercepting
	// says the listener that fails them runs.
	blocked      map[string]bool
	intercepting bool
}

// openPage opens a window in a fresh browser context of its own, width x height pixels.
func openPage(t *testing.T, browser context.Context, name string, width, height int) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	p := &page{t: t, name: name, ctx: ctx}
	// The first run opens the tab, which lives as long as the context of that run: no timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("%s: open a window: %v", name, err)
	}
	p.collectErrors()
	return p
}

// collectErrors keeps every error the page logs or throws (a Content-Security-Policy violation
// included) and every URL it requests; noErrors fails the test with them.
func (p *page) collectErrors() {
	if err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{})
		return err
	})); err != nil {
		p.t.Fatalf("%s: watch the network: %v", p.name, err)
	}
	requests := chromedp.Events(p.ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.requests = append(p.requests, ev.Request.URL)
			p.mu.Unlock()
		}
	}()
	// A WebSocket's handshake is no request to the Network domain: it has events of its own.
	sockets := chromedp.Events(p.ctx, network.WebSocketCreated)
	go func() {
		for ev, err := range sockets {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.requests = append(p.requests, ev.URL)
			p.mu.Unlock()
		}
	}()
	messages := chromedp.Console(p.ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// Failed requests are the network's log (a call refused on purpose, the favicon);
			// what counts is what the page itself reports, and the security log (CSP).
			if (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException) && m.Source != "network" {
				p.note(m.String() + " " + m.URL)
			}
		}
	}()
}

// block makes the page's requests to URLs that start with prefix fail at the network, as when
// the connection drops (on), or go through again (off). It pauses only those requests, with the
// Fetch domain (Fetch.enable with their patterns, Fetch.failRequest), which every Chromium of
// the last years has, unlike Network.emulateNetworkConditionsByRule.
func (p *page) block(prefix string, on bool) {
	p.t.Helper()
	p.mu.Lock()
	if p.blocked == nil {
		p.blocked = map[string]bool{}
	}
	if on {
		p.blocked[prefix] = true
	} else {
		delete(p.blocked, prefix)
	}
	var patterns []*fetch.RequestPattern
	for u := range p.blocked {
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: fetchPatternEscaper.Replace(u) + "*"})
	}
	start := !p.intercepting
	p.intercepting = true
	p.mu.Unlock()
	if start {
		paused := chromedp.Events(p.ctx, fetch.RequestPaused)
		go func() {
			for ev, err := range paused {
				if err != nil {
					return
				}
				// A request paused under patterns that have changed since goes through.
				if p.isBlocked(ev.Request.URL) {
					chromedp.Call(p.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonInternetDisconnected})
				} else {
					chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				}
			}
		}()
	}
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if len(patterns) == 0 {
			_, err := cdp.Call(ctx, t, fetch.Disable, cdp.Empty{})
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: patterns})
		return err
	}))
}

// cutStream makes the live event stream unable to open again (on), or lets it (off): Subscribe
// fails at the page's network (block) and the server refuses the upgrade of GET /events, as a
// proxy that does not pass it would, for every page of srv (a WebSocket is not the Fetch
// domain's to pause).
func (p *page) cutStream(srv *webtest.Server, on bool) {
	p.t.Helper()
	p.block(srv.URL+"/svc.v1.ChatService/Subscribe", on)
	srv.StripUpgrades(on)
}

// fetchPatternEscaper escapes the wildcards of a Fetch domain's URL pattern.
var fetchPatternEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`)

func (p *page) isBlocked(u string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for prefix := range p.blocked {
		if strings.HasPrefix(u, prefix) {
			return true
		}
	}
	return false
}

func (p *page) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errors = append(p.errors, s)
}

// noErrors fails the test if the page threw or logged an error (a CSP violation included), or
// asked anything of another host than the server's (origin).
func (p *page) noErrors(origin string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errors {
		p.t.Errorf("%s's page: %s", p.name, e)
	}
	p.errors = nil
	wsOrigin := "ws" + strings.TrimPrefix(origin, "http") // the live events' WebSocket
	for _, u := range p.requests {
		if !strings.HasPrefix(u, origin+"/") && !strings.HasPrefix(u, wsOrigin+"/") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
			p.t.Errorf("%s's page asked another host: %s", p.name, u)
		}
	}
	if len(p.requests) == 0 {
		p.t.Errorf("%s's page made no request that the test saw", p.name)
	}
}

func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v\n%s", p.name, err, p.describe())
	}
}

// describe is what the page shows, for a failure message: its address, what has the focus,
// the message list's scroll and its text.
func (p *page) describe() string {
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const s = document.querySelector(".message-scroller"); const a = document.activeElement; return location.href + "\nfocus: " + (a ? a.tagName.toLowerCase() + (a.className ? "." + String(a.className).split(" ").join(".") : "") + (a.getAttribute("aria-label") ? " [" + a.getAttribute("aria-label") + "]" : "") : "none") + "\n" + (s ? JSON.stringify({top: s.scrollTop, height: s.scrollHeight, client: s.clientHeight, n: document.querySelectorAll("article.msg").length, busy: document.querySelector(".message-list")?.getAttribute("aria-busy")}) + "\n" : "") + (document.body?.innerText ?? "").slice(0, 3000); })()`))
	if err != nil {
		return "(page text unavailable: " + err.Error() + ")"
	}
	return "page text:\n" + text
}

// eval runs a JavaScript expression and returns its value.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("%s: %s: %v\n%s", p.name, js, err, p.describe())
	}
	return v
}

// eval0 runs a JavaScript statement for its effect.
func (p *page) eval0(js string) {
	p.t.Helper()
	eval[any](p, "("+js+", null)")
}

// waitFor waits until the JavaScript expression (a value or a promise) is true; what names it
// for the failure. An expression that throws counts as false, and so does a page in the middle
// of a navigation: the wait goes on until the state comes or waitLimit passes.
func (p *page) waitFor(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(waitLimit)
	check := `(async () => { try { return !!(await (` + expr + `)); } catch (e) { return false; } })()`
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](check, chromedp.EvalAwaitPromise))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("%s: waiting for %s: not so after %s (last error: %v)\n%s", p.name, what, waitLimit, last, p.describe())
}

// js quotes a Go string as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// signIn opens the login link for sub, as `hearth login-link` prints it.
func (p *page) signIn(srv *webtest.Server, sub string) {
	p.t.Helper()
	link := fmt.Sprintf("%s/app/#/token?url=%s&token=%s", srv.URL, url.QueryEscape(srv.URL), url.QueryEscape(srv.Token(sub)))
	p.run(chromedp.Navigate(link))
	// The token leaves the address bar at once.
	p.waitFor("the token to leave the address bar", `!location.hash.includes("token")`)
}

// signUp follows an invite link (code "" for none: the client's own page) and creates an
// account on the built-in issuer's sign-up page, which also joins the community.
func (p *page) signUp(srv *webtest.Server, code, username, displayName string) {
	p.t.Helper()
	if code != "" {
		p.run(chromedp.Navigate(srv.URL + "/invite/" + code))
	} else {
		p.run(chromedp.Navigate(srv.URL + "/app/"))
	}
	button := `[...document.querySelectorAll(".issuer-button")].find(b => b.textContent.startsWith("Create an account") || b.textContent.startsWith("Sign in or create"))`
	p.clickJS("the built-in issuer's button", button)
	// The page opens on signing in unless an invite brought the person: then on signing up.
	// Its address changes before its form is there: wait for the form, or the click on
	// "Create an account" finds nothing (once, in CI, it did, and the sign-up form never came).
	signUpLink := `[...document.querySelectorAll("a")].find(a => a.textContent === "Create an account")`
	p.waitFor("the issuer's page", `location.pathname.startsWith("/oauth/") && !!(document.querySelector("#password2") || `+signUpLink+`)`)
	p.eval0(`document.querySelector("#password2") || ` + signUpLink + `.click()`)
	p.waitFor("the sign-up form", `!!document.querySelector("#password2")`)
	p.setText(`document.querySelector("#username")`, username)
	p.setText(`document.querySelector("#display_name")`, displayName)
	p.setText(`document.querySelector("#password")`, "a long enough password")
	p.setText(`document.querySelector("#password2")`, "a long enough password")
	p.clickJS("Create account and join", `[...document.querySelectorAll("button[type=submit]")].find(b => b.textContent.startsWith("Create account"))`)
	p.waitFor("the chat, the code gone from the address bar", `!!document.querySelector(".chat") && location.search === "" && location.pathname === "/app/"`)
}

// join fills in the join page and joins.
func (p *page) join(displayName string) {
	p.t.Helper()
	p.waitFor("the join page", `!!document.querySelector("#join-title")`)
	p.typeInto(`input[autocomplete="name"]`, displayName)
	p.click(`.welcome-box button[type="submit"]`)
	p.waitFor("the chat", `!!document.querySelector(".chat")`)
}

func (p *page) click(sel string) {
	p.t.Helper()
	p.waitFor("a control "+sel, fmt.Sprintf(`!!document.querySelector(%s)`, js(sel)))
	p.run(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// clickJS clicks the element the expression finds (for controls that show on hover).
func (p *page) clickJS(what, find string) {
	p.t.Helper()
	p.waitFor(what, "!!("+find+")")
	eval[bool](p, "("+find+").click(), true")
}

func (p *page) typeInto(sel, text string) {
	p.t.Helper()
	// Focused from the page and typed to the focused element, so that no DOM node id goes stale
	// between the two while the page renders. An open modal dialog leaves the rest of the page
	// inert: the keys would go elsewhere, so the focus is checked first.
	p.waitFor("the focus in "+sel, fmt.Sprintf(`(document.querySelector(%s)?.focus(), document.activeElement === document.querySelector(%s))`, js(sel), js(sel)))
	p.run(chromedp.KeyEvent(text))
}

// closeDialog closes the open dialog with its Close button and waits until it is gone (a
// modal dialog would take the next click for its backdrop).
func (p *page) closeDialog() {
	p.t.Helper()
	p.click(`dialog[open] button[aria-label="Close"]`)
	p.waitFor("the dialog closed", `!document.querySelector("dialog")`)
}

// openChannel clicks a channel in the sidebar by its name.
func (p *page) openChannel(name string) {
	p.t.Helper()
	p.clickJS("channel "+name+" in the sidebar", fmt.Sprintf(`[...document.querySelectorAll(".side-link")].find(a => a.querySelector(".side-name").textContent === %s)`, js(name)))
	p.waitFor("channel "+name+" open", fmt.Sprintf(`document.querySelector(".channel-title")?.textContent.endsWith(%s)`, js(name)))
}

// press sends one key as a person's keyboard does: a keydown that carries the key's text (so
// that a handler's preventDefault keeps the text out, unlike chromedp's separate char event),
// then a keyup.
func press(key string, keyCode int64, text string, modifiers int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: key, Code: key, WindowsVirtualKeyCode: keyCode, Text: text, Modifiers: modifiers}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := down
		up.Type, up.Text = input.DispatchKeyEventTypeKeyUp, ""
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	})
}

// enter presses Enter in the focused element.
func enter() chromedp.Action[chromedp.Void] { return press("Enter", 13, "\r", 0) }

// send types a message into a composer (the channel's, or scope's) and presses Enter.
func (p *page) send(text string, scope ...string) {
	p.t.Helper()
	sel := ".channel-view .composer .composer-input"
	if len(scope) > 0 {
		sel = scope[0] + " .composer .composer-input"
	}
	p.typeInto(sel, text)
	p.run(enter())
	p.waitFor("the composer to empty", fmt.Sprintf(`document.querySelector(%s).value === ""`, js(sel)))
}

// countMessages is how many messages in the list matching sel show exactly text.
func countJS(sel, text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].filter(e => e.querySelector(".msg-text")?.firstChild?.textContent === %s || e.querySelector(".msg-text")?.textContent === %s).length`, js(sel), js(text), js(text))
}

// seesOnce waits until the channel shows the message text exactly once.
func (p *page) seesOnce(text string) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("%q shown once", text), countJS(".channel-view article.msg:not(.msg-pending)", text)+" === 1")
}

// sideLabel is the accessible name of a channel's sidebar link ("#general, 1 unread, 1 mention").
func (p *page) sideLabel(name string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`[...document.querySelectorAll(".side-link")].find(a => a.querySelector(".side-name").textContent === %s)?.getAttribute("aria-label") ?? ""`, js(name)))
}

// messageJS finds the channel's message whose text starts with text.
func messageJS(scope, text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s + " article.msg[data-id]")].find(e => (e.querySelector(".msg-text")?.textContent ?? "").startsWith(%s))`, js(scope), js(text))
}

// controlRoles are the roles a person operates, which need an accessible name to be found and
// told apart by a screen reader or voice control.
var controlRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "progressbar": true,
	"dialog": true, "img": true, "toolbar": true, "log": true,
}

// allNamed fails the test for every control in the page's accessibility tree without a name.
func (p *page) allNamed(where string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	tree, err := chromedp.Run(ctx, chromedp.Action[*accessibility.GetFullAXTreeResult](func(ctx context.Context, t *chromedp.Target) (*accessibility.GetFullAXTreeResult, error) {
		res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		return &res, err
	}))
	if err != nil {
		p.t.Fatalf("%s: the accessibility tree: %v", p.name, err)
	}
	checked := 0
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil {
			continue
		}
		var role, name string
		json.Unmarshal(n.Role.Value, &role)
		if !controlRoles[role] {
			continue
		}
		checked++
		if n.Name != nil {
			json.Unmarshal(n.Name.Value, &name)
		}
		if strings.TrimSpace(name) == "" {
			p.t.Errorf("%s, %s: a %s without an accessible name (DOM node %d)", p.name, where, role, n.BackendDOMNodeID)
		}
	}
	if checked == 0 {
		p.t.Errorf("%s, %s: no control in the accessibility tree", p.name, where)
	}
}
