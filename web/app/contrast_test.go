package app_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
)

// lowContrastJS lists the texts on screen whose colour is below 4.5:1 against what is behind
// them (WCAG's minimum for text; 3:1 for large text, 24 px, or 18.7 px bold), the opacity of
// the element and its ancestors included. The background is the first opaque one found going
// up the tree (translucent ones are blended over it).
const lowContrastJS = `(() => {
  const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const blend = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = parse(getComputedStyle(document.documentElement).backgroundColor) || [255, 255, 255, 1];
    if (bg[3] < 1) bg = [255, 255, 255, 1];
    for (const l of layers.reverse()) bg = blend(l, bg);
    return bg;
  };
  const out = [];
  // With a modal dialog open, what is behind it is inert and dimmed: the dialog is what is read.
  const walker = document.createTreeWalker(document.querySelector("dialog[open]") ?? document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest(".visually-hidden, noscript")) continue;
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (s.visibility !== "visible" || r.width === 0 || r.height === 0 || el.closest("[inert]")) continue;
    // Text in an emoji font has its own colours.
    if (/^[\p{Extended_Pictographic}\uFE0F\u200D\s]+$/u.test(n.textContent)) continue;
    let fg = parse(s.color);
    const bg = background(el);
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    fg = blend([fg[0], fg[1], fg[2], fg[3] * opacity], bg);
    const a = lum(fg), b = lum(bg);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) out.push(JSON.stringify(n.textContent.trim().slice(0, 30)) + " in " + el.tagName.toLowerCase() + "." + el.className + ": " + ratio.toFixed(2) + " (" + s.color + " on rgb(" + bg.slice(0, 3).map(Math.round).join(",") + "))");
  }
  return out.join("\n");
})()`

// TestBrowserTextContrast: every text of the chat screen (the sidebar with its unread and
// mention badges, a channel with messages, a mention, reactions, a thread link, the composer)
// reads at 4.5:1 or better against its background, in the light and the dark theme.
func TestBrowserTextContrast(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	g := &garden{t: t, owner: owner}
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	aliceID := alice.state(srv, "alice").GetMe().GetId()
	root := g.say(owner, ids["general"], "Welcome <@"+aliceID+">, see https://example.org and `some code`", "")
	g.say(owner, ids["general"], "a reply", root.GetId())
	if _, err := owner.Chat.React(context.Background(), connect.NewRequest(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: "🌱"})); err != nil {
		t.Fatal(err)
	}
	g.say(owner, ids["random"], "<@"+aliceID+"> over here", "")
	alice.openChannel("general")
	alice.waitFor("the message, its reaction and thread link", messageJS(".channel-view", "Welcome")+`?.querySelector(".thread-link") && document.querySelector(".channel-view .reaction")`)
	alice.waitFor("the mention badge on #random", `!!document.querySelector(".side-link .badge-mention")`)
	check := func(where string) { alice.contrastInBothThemes(where, "") }
	check("the channel")
	alice.clickJS("olivia's card", messageJS(".channel-view", "Welcome")+`.querySelector(".author")`)
	alice.waitFor("the card", `!!document.querySelector("dialog[open]")`)
	check("a member's card")
	alice.closeDialog()
	alice.click(".me-button")
	alice.waitFor("the profile", `!!document.querySelector("dialog[open]")`)
	check("the profile")
	alice.closeDialog()
	alice.click(".search-button")
	alice.waitFor("the search", `!!document.querySelector("dialog[open]")`)
	alice.run(chromedp.KeyEvent("welcome"))
	alice.waitFor("a result", `!!document.querySelector("dialog[open] .search-result mark")`)
	check("the search")
	alice.closeDialog()
	alice.noErrors(srv.URL)
}

// contrastInBothThemes fails the test for each text on screen below 4.5:1 (lowContrastJS), in
// the light theme and in the dark one, but those whose report names skip (when not "").
func (p *page) contrastInBothThemes(where, skip string) {
	p.t.Helper()
	for _, theme := range []string{"light", "dark"} {
		dark(p.t, p, theme == "dark")
		p.waitFor("the "+theme+" theme", `matchMedia("(prefers-color-scheme: dark)").matches === `+map[string]string{"light": "false", "dark": "true"}[theme])
		var low []string
		for _, l := range strings.Split(eval[string](p, lowContrastJS), "\n") {
			if l != "" && (skip == "" || !strings.Contains(l, skip)) {
				low = append(low, l)
			}
		}
		if len(low) > 0 {
			p.t.Errorf("%s, %s theme: text below 4.5:1:\n%s", where, theme, strings.Join(low, "\n"))
		}
	}
}
