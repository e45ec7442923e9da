package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The chat's flow: where a channel opens, what a person sees of new messages and of their own,
// and the ways back to the newest.

const channelScroller = `document.querySelector(".channel-view .message-scroller")`

// atBottomJS: the list is scrolled to its end.
func atBottomJS(scroller string) string {
	return fmt.Sprintf(`(() => { const s = %s; return !!s && s.scrollHeight - s.scrollTop - s.clientHeight < 2; })()`, scroller)
}

// wholeInSightJS: the element is entirely inside the scroller's box.
func wholeInSightJS(scroller, el string) string {
	return fmt.Sprintf(`(() => { const s = %s, e = %s; if (!s || !e) return false; const b = s.getBoundingClientRect(), r = e.getBoundingClientRect(); return r.top >= b.top - 1 && r.bottom <= b.bottom + 1; })()`, scroller, el)
}

func (p *page) search(words string) {
	p.t.Helper()
	p.click(".search-button")
	p.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	p.run(chromedp.KeyEvent(words))
}

// TestBrowserBackToAChannelAfterASearchShowsTheLatest is the regression test of issue 46's
// first bug: after opening a search result, the channel opened again from the sidebar shows its
// newest messages (not the old highlighted one), a new message arrives in sight, and a window
// away from the newest has its way back ("Jump to latest"). Both for a long channel (the
// result's window is not the newest) and a short one (it is, but scrolled to the result).
func TestBrowserBackToAChannelAfterASearchShowsTheLatest(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	bot := srv.CreateBot(owner, "archivist")
	send := func(c *webtest.Client, channel, text string) {
		if _, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: channel, Text: text})); err != nil {
			t.Fatal(err)
		}
	}
	send(owner, ids["general"], "photos from the beach trip")
	fillChannel(t, bot, ids["general"], 150)
	send(owner, ids["random"], "the beach volleyball net is torn")
	for i := range 30 {
		send(bot, ids["random"], fmt.Sprintf("random chatter %02d", i))
	}
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	alice.openChannel("random")

	for _, tc := range []struct{ channel, other, found, newest string }{
		{"general", "random", "photos from the beach trip", "message 00150"},
		{"random", "general", "the beach volleyball net is torn", "random chatter 29"},
	} {
		t.Log("search, open the result in #" + tc.channel)
		alice.search("beach")
		alice.clickJS("the result", fmt.Sprintf(`[...document.querySelectorAll("dialog[open] .search-result")].find(r => r.querySelector(".search-text").textContent === %s)`, js(tc.found)))
		alice.waitFor("the result highlighted", `document.querySelector(".channel-view .msg-target .msg-text")?.textContent === `+js(tc.found))
		alice.waitFor("the way back to the latest", `!!document.querySelector(".channel-view .jump-present")`)

		t.Log("another channel, then #" + tc.channel + " again from the sidebar")
		alice.openChannel(tc.other)
		alice.openChannel(tc.channel)
		alice.waitFor("the newest message, at the bottom", fmt.Sprintf(`%s && %s`,
			wholeInSightJS(channelScroller, messageJS(".channel-view", tc.newest)), atBottomJS(channelScroller)))
		if eval[bool](alice, `!!document.querySelector(".channel-view .msg-target")`) {
			t.Errorf("#%s opened from the sidebar still highlights the search result", tc.channel)
		}
		if eval[bool](alice, `!!document.querySelector(".channel-view .jump-present")`) {
			t.Errorf("#%s at its newest message offers to jump to the latest", tc.channel)
		}
		text := "news in #" + tc.channel
		send(owner, ids[tc.channel], text)
		alice.seesOnce(text)
		alice.waitFor("the new message in sight", wholeInSightJS(channelScroller, messageJS(".channel-view", text))+" && "+atBottomJS(channelScroller))
	}
	alice.noErrors(srv.URL)
}

// TestBrowserSenderSeesTheirOwnMessage is the regression test of the second bug: the message a
// person sends is in sight, whole, after the message box had grown to many lines, and when they
// had scrolled up (the list goes back to the end).
func TestBrowserSenderSeesTheirOwnMessage(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	bot := srv.CreateBot(owner, "archivist")
	fillChannel(t, bot, ids["general"], 120)
	for _, size := range [][2]int{{1280, 800}, {390, 844}} {
		t.Logf("a window of %dx%d", size[0], size[1])
		alice := openPage(t, browser, "alice", size[0], size[1])
		alice.signIn(srv, "alice")
		if size[0] == 1280 {
			alice.join("Alice")
		}
		alice.openChannel("general")
		alice.seesOnce("message 00120")
		box := ".channel-view .composer .composer-input"

		t.Log("twelve lines with Shift+Enter, then Enter")
		w := size[0]
		alice.typeInto(box, fmt.Sprintf("%d: line 1", w))
		for i := 2; i <= 12; i++ {
			alice.run(press("Enter", 13, "\r", 8), chromedp.KeyEvent(fmt.Sprintf("line %d", i)))
		}
		alice.run(enter())
		mine := fmt.Sprintf(`[...document.querySelectorAll(".channel-view .message-list > article.msg:not(.msg-pending)")].find(e => e.querySelector(".msg-text")?.innerText.startsWith("%d: line 1\nline 2") && e.querySelector(".msg-text").innerText.includes("line 12"))`, w)
		alice.waitFor("the whole message in sight, the list at its end", wholeInSightJS(channelScroller, mine)+" && "+atBottomJS(channelScroller))

		t.Log("scrolled up, then a message")
		alice.eval0(channelScroller + `.scrollTop = 0`)
		alice.waitFor("older messages loaded above", `!document.querySelector(".message-list[aria-busy=true]") && `+channelScroller+`.scrollTop > 0`)
		alice.eval0(channelScroller + `.scrollTop = 0`)
		text := fmt.Sprintf("sent from up there (%d)", size[0])
		alice.send(text)
		alice.seesOnce(text)
		alice.waitFor("the message in sight at the end", wholeInSightJS(channelScroller, messageJS(".channel-view", text))+" && "+atBottomJS(channelScroller))
		alice.noErrors(srv.URL)
	}
}

// TestBrowserNewMessagesDividerAndJumps: a channel with more new messages than a screen opens
// on the "New messages" divider, unread until the person reaches the end; "Jump to latest"
// takes them there, and counts what another person writes while they read above; "Jump to
// first unread" leads back to the divider, and, when the new part starts before the messages
// loaded, loads the page where it does.
func TestBrowserNewMessagesDividerAndJumps(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	bot := srv.CreateBot(owner, "archivist")
	fillChannel(t, bot, ids["general"], 20)
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bob := joinedPage(t, browser, srv, "bob", "Bob")
	bob.openChannel("general")
	alice.openChannel("general")
	alice.seesOnce("message 00020")
	if eval[bool](alice, `!!document.querySelector(".new-divider")`) {
		t.Error("a newcomer's first look at #general shows its history as new")
	}
	alice.openChannel("random")

	t.Log("forty new messages while alice is elsewhere: #general opens on the divider")
	news := fillChannelWith(t, bot, ids["general"], 40, "news %02d")
	alice.waitFor("#general unread", `document.querySelector('.side-link[aria-label="#general, 40 unread"]') !== null`)
	alice.openChannel("general")
	divider := `document.querySelector(".channel-view .new-divider")`
	firstNew := messageJS(".channel-view", news[0].GetText())
	alice.waitFor("the divider before the first new message, near the top", fmt.Sprintf(`%s?.nextElementSibling === %s && (() => { const b = %s.getBoundingClientRect(), r = %s.getBoundingClientRect(); return r.top >= b.top && r.top < b.top + 40; })()`, divider, firstNew, channelScroller, divider))
	alice.allNamed("the divider")
	if eval[string](alice, divider+`.getAttribute("aria-label")`) != "New messages" {
		t.Errorf("the divider's name: %q", eval[string](alice, divider+`.getAttribute("aria-label")`))
	}
	alice.waitFor("the way to the latest, with what is new below", `document.querySelector(".channel-view .jump-present")?.textContent === "40 new messages · Jump to latest ↓"`)
	if label := alice.sideLabel("general"); label != "#general, 40 unread" {
		t.Errorf("#general before alice reached its end: %q, want still unread", label)
	}

	t.Log("reading on: the divider above, the way back to it")
	alice.eval0(channelScroller + `.scrollTop += 300`)
	alice.waitFor("Jump to first unread", `document.querySelector(".channel-view .jump-new")?.textContent === "40 new messages · Jump to first unread ↑"`)
	alice.readable("the divider and both jumps", ".main")
	alice.click(".channel-view .jump-new")
	alice.waitFor("the divider in sight", wholeInSightJS(channelScroller, divider)+` && !document.querySelector(".channel-view .jump-new")`)

	t.Log("bob writes while alice reads above: counted on the way to the latest")
	bob.send("are you reading all that?")
	alice.waitFor("bob's message counted", `document.querySelector(".channel-view .jump-present")?.textContent === "41 new messages · Jump to latest ↓"`)
	alice.click(".channel-view .jump-present")
	alice.waitFor("bob's message in sight, the list at its end", wholeInSightJS(channelScroller, messageJS(".channel-view", "are you reading all that?"))+" && "+atBottomJS(channelScroller))
	alice.waitFor("#general read, no jump left", `document.querySelector('.side-link[aria-label="#general"]') !== null && !document.querySelector(".channel-view .jump-present") && !document.querySelector(".channel-view .jump-new")`)
	if !eval[bool](alice, `!!`+divider) {
		t.Error("the divider went when alice reached the end; it stays while the channel is open")
	}

	t.Log("while alice looks at the end, what comes is read at once: no divider before it")
	bob.send("good, then")
	alice.seesOnce("good, then")
	alice.waitFor("still read", `document.querySelector('.side-link[aria-label="#general"]') !== null`)
	if eval[bool](alice, divider+`?.nextElementSibling === `+messageJS(".channel-view", "good, then")) {
		t.Error("a message alice saw arrive is after a divider of its own")
	}

	t.Log("three hundred new messages: the new part starts before the page loaded")
	alice.openChannel("random")
	many := fillChannelWith(t, bot, ids["general"], 300, "later %03d")
	alice.waitFor("#general unread", `document.querySelector('.side-link[aria-label="#general, 300 unread"]') !== null`)
	alice.openChannel("general")
	firstLater := fmt.Sprintf(`%s?.nextElementSibling === %s && %s`, divider, messageJS(".channel-view", many[0].GetText()), wholeInSightJS(channelScroller, divider))
	alice.waitFor("the page where the new part starts, on the divider", firstLater+` && !!document.querySelector(".channel-view .jump-present")`)
	if label := alice.sideLabel("general"); label != "#general, 300 unread" {
		t.Errorf("#general before alice reached its end: %q, want still unread", label)
	}
	alice.run(press("PageDown", 34, "", 8)) // Shift+PageDown
	alice.waitFor("at the newest", wholeInSightJS(channelScroller, messageJS(".channel-view", many[299].GetText()))+" && "+atBottomJS(channelScroller))
	alice.waitFor("#general read", `document.querySelector('.side-link[aria-label="#general"]') !== null`)
	alice.run(press("PageUp", 33, "", 8)) // Shift+PageUp
	alice.waitFor("back on the divider", firstLater)
	alice.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserBlockedMemberIsNotToldOfTheBlock is the regression test of the block's wording:
// the member who blocked sees that they did, in the composer's place; the member blocked, whose
// message cannot go, reads only that they cannot send messages in this DM: nothing on their page
// speaks of a block (they were promised not to be told), nor says both blocked each other.
func TestBrowserBlockedMemberIsNotToldOfTheBlock(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	_, bob, carol := moderationCast(t, srv, owner)
	dm, err := carol.Chat.OpenDM(context.Background(), connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{bob.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*webtest.Client{carol, bob} {
		if _, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: dm.Msg.GetChannel().GetId(), Text: "hi from " + c.Member.GetDisplayName()})); err != nil {
			t.Fatal(err)
		}
	}
	bobPage := openPage(t, browser, "bob", 1280, 800)
	carolPage := openPage(t, browser, "carol", 1280, 800)
	for _, p := range []*page{bobPage, carolPage} {
		p.signIn(srv, p.name)
	}
	bobPage.openChannel("Carol")
	bobPage.openCard("Carol")
	bobPage.clickJS("Block", buttonJS("dialog[open] .dialog-actions", "Block"))
	bobPage.waitFor("the block's effect said", `document.querySelector("dialog[open] .effects")?.textContent.includes("They are not told.")`)
	bobPage.closeDialog()
	bobPage.waitFor("bob told he blocked, in the composer's place", `document.querySelector(".channel-view .dm-block-notice")?.textContent.startsWith("You blocked Carol: messages cannot be sent in this conversation") && !document.querySelector(".channel-view .composer")`)

	carolPage.openChannel("Bob")
	carolPage.typeInto(".channel-view .composer .composer-input", "are you there?")
	carolPage.run(enter())
	failed := `document.querySelector(".channel-view .msg-failed .pending-error span")`
	carolPage.waitFor("the message not sent, and why in neutral words", failed+`?.textContent === "You cannot send messages in this DM."`)
	if text := eval[string](carolPage, `document.body.innerText`); strings.Contains(strings.ToLower(text), "block") {
		t.Errorf("carol's page speaks of a block:\n%s", text)
	}
	t.Log("opening the DM again from bob's card says the same")
	carolPage.openCard("Bob")
	carolPage.clickJS("Message", buttonJS("dialog[open] .dialog-actions", "Message"))
	carolPage.waitFor("the refusal", `[...document.querySelectorAll(".notice-error .notice-text")].some(n => n.textContent.includes("Could not open the conversation: you cannot send messages in this DM"))`)
	// (The card offers carol a Block button of her own, which is not about bob's.)
	if text := eval[string](carolPage, `document.querySelector(".channel-view").innerText + document.querySelector(".notices").innerText`); strings.Contains(strings.ToLower(text), "block") {
		t.Errorf("carol's page speaks of a block:\n%s", text)
	}
	for _, p := range []*page{bobPage, carolPage} {
		p.noErrors(srv.URL)
	}
}

// pointAt is the middle of the element the expression finds, in the window's coordinates.
func (p *page) pointAt(find string) (float64, float64) {
	p.t.Helper()
	p.waitFor("the element to point at", "!!("+find+")")
	// The middle of its first line of text, where a person points at words (a block's middle may
	// be empty space, under a message's toolbar on a narrow screen); else of its box.
	xy := eval[[]float64](p, `(() => { const el = (`+find+`); const range = document.createRange(); range.selectNodeContents(el); const r = [...range.getClientRects()].find(r => r.width > 0) ?? el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	return xy[0], xy[1]
}

// mouse moves the mouse over the element the expression finds, and presses and releases its
// button there when click is set (a person's click: the focus moves as it does for them).
func (p *page) mouse(find string, click bool) {
	p.t.Helper()
	x, y := p.pointAt(find)
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		events := []input.DispatchMouseEventParams{{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y}}
		if click {
			events = append(events,
				input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
				input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1})
		}
		for _, ev := range events {
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, ev); err != nil {
				return err
			}
		}
		return nil
	}))
}

// tap touches the element the expression finds (with touch emulation on).
func (p *page) tap(find string) {
	p.t.Helper()
	x, y := p.pointAt(find)
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchTouchEventType{input.DispatchTouchEventTypeTouchStart, input.DispatchTouchEventTypeTouchEnd} {
			points := []*input.TouchPoint{{X: x, Y: y}}
			if typ == input.DispatchTouchEventTypeTouchEnd {
				points = []*input.TouchPoint{}
			}
			if _, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: points}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// touchScreen makes the page a touch screen's: a coarse pointer, no hover.
func (p *page) touchScreen() {
	p.t.Helper()
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5})
		return err
	}))
	p.waitFor("a coarse pointer", `matchMedia("(pointer: coarse)").matches`)
}

// toolbarsJS is the text of each message's actions shown, by the message's text.
const toolbarsJS = `[...document.querySelectorAll(".msg")].filter(m => { const a = m.querySelector(":scope > .msg-actions"); return a && getComputedStyle(a).display !== "none"; }).map(m => m.querySelector(".msg-text")?.textContent).join("|")`

// TestBrowserOneMessageToolbarAtATime is the regression test of two message toolbars shown at
// once: a message clicked, then another under the pointer; a message the keyboard moved to with
// the pointer over another; on a touch screen, a message tapped and another where the hover
// stayed. Each time one toolbar shows, of the message the person is on.
func TestBrowserOneMessageToolbarAtATime(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	for _, text := range []string{"apples", "bananas", "cherries", "dates", "elderberries"} {
		if _, err := owner.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: text})); err != nil {
			t.Fatal(err)
		}
	}
	msg := func(text string) string { return messageJS(".channel-view", text) }
	for _, size := range [][2]int{{1280, 800}, {390, 844}} {
		t.Logf("a window of %dx%d", size[0], size[1])
		p := openPage(t, browser, "alice", size[0], size[1])
		p.signIn(srv, "alice")
		if size[0] == 1280 {
			p.join("Alice")
		}
		p.openChannel("general")
		p.seesOnce("elderberries")

		t.Log("a message clicked, another under the pointer")
		p.mouse(msg("bananas")+`.querySelector(".msg-text")`, true)
		p.waitFor("bananas focused, its toolbar", `document.activeElement === `+msg("bananas")+` && (`+toolbarsJS+`) === "bananas"`)
		p.mouse(msg("dates")+`.querySelector(".msg-text")`, false)
		p.waitFor("one toolbar, of the message under the pointer", `(`+toolbarsJS+`) === "dates"`)

		t.Log("the keyboard moves on, the pointer stays")
		p.run(press("ArrowUp", 38, "", 0))
		p.waitFor("one toolbar, of the message the keyboard is on", `document.activeElement === `+msg("apples")+` && (`+toolbarsJS+`) === "apples"`)

		if size[0] < 800 {
			t.Log("a touch screen: a message tapped, the hover left on another")
			p.touchScreen()
			p.tap(msg("cherries") + `.querySelector(".msg-text")`)
			p.waitFor("cherries focused", `document.activeElement === `+msg("cherries"))
			p.mouse(msg("elderberries")+`.querySelector(".msg-text")`, false)
			p.waitFor("one toolbar, of the message tapped", `(`+toolbarsJS+`) === "cherries"`)
		}
		p.noErrors(srv.URL)
	}
}

// TestBrowserPhoneProfileHasNoGap is the regression test of the phone's profile: "Status
// emoji" and "Status", stacked, follow each other without a gap (the emoji field's width basis
// became its height).
func TestBrowserPhoneProfileHasNoGap(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	p := openPage(t, browser, "alice", 390, 844)
	p.signIn(srv, "alice")
	p.join("Alice")
	p.openChannel("general")
	p.click(`.channel-view button.menu-button`)
	p.waitFor("the drawer", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible"`)
	p.clickJS("your profile", `document.querySelector(".me-button")`)
	label := func(text string) string {
		return fmt.Sprintf(`[...document.querySelectorAll("dialog[open] .field")].find(f => f.querySelector("span")?.textContent === %s)`, js(text))
	}
	p.waitFor("the profile", "!!("+label("Status")+")")
	gap := eval[float64](p, `(() => { const a = (`+label("Status emoji")+`).getBoundingClientRect(), b = (`+label("Status")+`).getBoundingClientRect(); return b.top - a.bottom; })()`)
	// The form's gap between fields, as between the others.
	want := eval[float64](p, `(() => { const a = (`+label("Display name")+`).getBoundingClientRect(), b = (`+label("Username")+`).getBoundingClientRect(); return b.top - a.bottom; })()`)
	if gap < 0 || gap > want+1 {
		t.Errorf("between Status emoji and Status: %.0f px, want the form's %.0f", gap, want)
	}
	if w := eval[float64](p, `(`+label("Status emoji")+`).querySelector("input").getBoundingClientRect().width`); w < 200 {
		t.Errorf("the status emoji field is %.0f px wide on a phone, want the form's width", w)
	}
	p.noErrors(srv.URL)
}

// presenceOfJS is the accessible name of the presence dot of the DM with name in the sidebar.
func presenceOfJS(name string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".side-link")].find(a => a.querySelector(".side-name").textContent === %s)?.querySelector(".presence")?.getAttribute("aria-label")`, js(name))
}

// TestBrowserOutageShowsABannerAndUnknownPresence is the regression test of the outage: while the
// connection is lost, a banner across the top of the chat says so (the community's name keeps
// its room), everyone's presence shows as unknown rather than as it last was, and once the
// connection is back (sooner with "Try now") the banner goes and presence is as it is now,
// changes made meanwhile included.
func TestBrowserOutageShowsABannerAndUnknownPresence(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	bob := srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	rename(t, owner, "Olivia Quintero-Lindqvist of the Garden", "", "")
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bobPage := openPage(t, browser, "bob", 1280, 800)
	bobPage.signIn(srv, "bob")
	bobPage.openChannel("general")
	me, err := srv.Client(srv.Token("alice")).Server.GetMe(context.Background(), connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	dm, err := bob.Chat.OpenDM(context.Background(), connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{me.Msg.GetMember().GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	alice.sendAPI(t, bob, dm.Msg.GetChannel().GetId(), "hi alice")
	alice.openChannel("Bob")
	alice.waitFor("bob online", presenceOfJS("Bob")+` === "online"`)
	nameWidth := eval[float64](alice, `document.querySelector(".server-name").getBoundingClientRect().width`)

	t.Log("the connection lost: the stream cannot open again")
	alice.cutStream(srv, true)
	srv.Restart()
	alice.waitFor("the banner", `document.querySelector(".main > .outage[role=alert] .outage-text")?.textContent.startsWith("No connection to the server. Reconnecting…")`)
	alice.allNamed("the banner")
	alice.readable("the banner", ".main")
	alice.waitFor("everyone's presence unknown", presenceOfJS("Bob")+` === "unknown" && [...document.querySelectorAll(".presence")].every(p => p.getAttribute("aria-label") === "unknown")`)
	if w := eval[float64](alice, `document.querySelector(".server-name").getBoundingClientRect().width`); w < nameWidth-1 {
		t.Errorf("the community's name is %.0f px wide during the outage, %.0f before", w, nameWidth)
	}
	alice.waitFor("the channel still whole under the banner", wholeInSightJS(`document.querySelector(".main")`, `document.querySelector(".channel-view .composer")`))
	if _, err := bob.Chat.SetPresence(context.Background(), connect.NewRequest(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY})); err != nil {
		t.Fatal(err)
	}

	t.Log("the connection back, at once with Try now")
	alice.cutStream(srv, false)
	// Found and clicked in one step: on a loaded machine the client's own next try may come
	// between a wait for the button and a click, and leave nothing to click.
	if !eval[bool](alice, `(() => { const b = document.querySelector(".outage .outage-retry"); b?.click(); return !!b; })()`) {
		t.Log("the client's own next try came before Try now could be clicked")
	}
	alice.waitFor("the banner gone, bob's presence as it is now", `!document.querySelector(".outage") && `+presenceOfJS("Bob")+` === "away"`)
	alice.noErrors(srv.URL)
	bobPage.noErrors(srv.URL)
}

// TestBrowserRevokedInviteIsSaidAtOnce is the regression test of an invite that looked valid
// until the whole sign-up form was filled in: the issuer's sign-up page an invite link opens says
// at once that the invite was revoked, with the invite's field to change. And a member kicked
// comes back with an invite the moderator gives them, which their return does not use up.
func TestBrowserRevokedInviteIsSaidAtOnce(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	ctx := context.Background()
	inviteOnly := true
	if _, err := owner.Server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{InviteOnly: &inviteOnly})); err != nil {
		t.Fatal(err)
	}
	invite := func(uses int32) string {
		res, err := owner.Server.CreateInvite(ctx, connect.NewRequest(&svcv1.CreateInviteRequest{MaxUses: uses}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetInvite().GetCode()
	}
	revoked := invite(0)
	if _, err := owner.Server.RevokeInvite(ctx, connect.NewRequest(&svcv1.RevokeInviteRequest{Code: revoked})); err != nil {
		t.Fatal(err)
	}
	dana := openPage(t, browser, "dana", 1280, 800)
	dana.run(chromedp.Navigate(srv.URL + "/invite/" + revoked))
	dana.clickJS("the built-in issuer's button", `[...document.querySelectorAll(".issuer-button")].find(b => b.textContent === "Create an account or sign in")`)
	dana.waitFor("the sign-up page saying the invite was revoked, before anything is typed", fmt.Sprintf(`location.pathname.startsWith("/oauth/") && document.querySelector("#form-error")?.textContent === %s && document.activeElement === document.querySelector("#invite") && document.querySelector("#username").value === ""`,
		js(`The invite code "`+revoked+`" has been revoked. Ask whoever invited you for a new invite.`)))

	t.Log("with a good invite: in; kicked; back with another one-use invite, still there for a newcomer")
	good := invite(1)
	dana.setText(`document.querySelector("#invite")`, good)
	dana.setText(`document.querySelector("#username")`, "dana")
	dana.setText(`document.querySelector("#password")`, "a long enough password")
	dana.setText(`document.querySelector("#password2")`, "a long enough password")
	dana.clickJS("Create account and join", `[...document.querySelectorAll("button[type=submit]")].find(b => b.textContent.startsWith("Create account"))`)
	dana.waitFor("the chat", `!!document.querySelector(".chat")`)
	members, err := owner.Server.ListMembers(ctx, connect.NewRequest(&svcv1.ListMembersRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members.Msg.GetMembers() {
		if m.GetUsername() == "dana" {
			if _, err := owner.Server.KickMember(ctx, connect.NewRequest(&svcv1.KickMemberRequest{MemberId: m.GetId()})); err != nil {
				t.Fatal(err)
			}
		}
	}
	dana.waitFor("dana told she is out, and how to come back", `document.querySelector(".welcome-box .error-row")?.textContent.startsWith("You are no longer a member") && document.querySelector(".welcome-box .field-hint")?.textContent.startsWith("Coming back, any invite that is still valid lets you in")`)
	back := invite(1)
	// (The box holds the code dana first came with, which is used up.)
	dana.setText(`document.querySelector('.welcome-box input[autocomplete="off"]')`, back)
	dana.click(`.welcome-box button[type="submit"]`)
	dana.waitFor("the chat again", `!!document.querySelector(".chat")`)
	list, err := owner.Server.ListInvites(ctx, connect.NewRequest(&svcv1.ListInvitesRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range list.Msg.GetInvites() {
		if inv.GetCode() == back && inv.GetUses() != 0 {
			t.Errorf("dana's return used the invite: %d uses", inv.GetUses())
		}
	}
	dana.noErrors(srv.URL)
}

// TestBrowserDraftsSurviveAReload: what a person typed in a channel's box and in a thread's, and
// a file they uploaded there, are back after a reload, each in its box; a draft sent is gone for
// good (not back after the next reload), and a sign-out forgets the others.
func TestBrowserDraftsSurviveAReload(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	root, err := owner.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "plans for saturday?"}))
	if err != nil {
		t.Fatal(err)
	}
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signUp(srv, "", "alice", "Alice")
	alice.openChannel("general")
	box := ".channel-view .composer .composer-input"
	threadBox := ".thread-panel .composer .composer-input"
	alice.typeInto(box, "half a thought about")
	alice.run(press("Enter", 13, "\r", 8), chromedp.KeyEvent("the picnic"))
	alice.clickJS("Reply in thread", messageJS(".channel-view", "plans for saturday?")+`?.querySelector('[aria-label="Reply in thread"]')`)
	alice.typeInto(threadBox, "a reply in progress")
	alice.openChannel("random")
	alice.typeInto(box, "with a picture")
	alice.attach(".channel-view", writePNG(t, "map.png", 40, 30))
	alice.waitFor("the picture uploaded", uploadRowJS(".channel-view", "map.png")+`?.querySelector(".upload-status")?.textContent.endsWith("B")`)

	t.Log("a reload")
	alice.run(chromedp.Reload())
	alice.openChannel("random")
	alice.waitFor("#random's draft, its picture too", `document.querySelector(`+js(box)+`)?.value === "with a picture" && !!`+uploadRowJS(".channel-view", "map.png")+`?.querySelector(".upload-status")`)
	alice.openChannel("general")
	alice.waitFor("#general's draft", `document.querySelector(`+js(box)+`)?.value === "half a thought about\nthe picnic"`)
	alice.run(chromedp.Navigate(srv.URL + "/app/#/c/" + ids["general"] + "/t/" + root.Msg.GetMessage().GetId()))
	alice.waitFor("the thread's draft", `document.querySelector(`+js(threadBox)+`)?.value === "a reply in progress"`)

	t.Log("sent, gone for good")
	alice.typeInto(box, "")
	alice.run(enter())
	alice.waitFor("the message sent", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .msg-pending")`)
	if m := latest(t, owner, ids["general"]); m.GetText() != "half a thought about\nthe picnic" {
		t.Fatalf("the server has %q, want the draft sent", m.GetText())
	}
	alice.run(chromedp.Reload())
	alice.waitFor("the thread's draft after another reload", `document.querySelector(`+js(threadBox)+`)?.value === "a reply in progress"`)
	alice.waitFor("#general's box empty", `document.querySelector(`+js(box)+`)?.value === ""`)

	t.Log("a sign-out forgets them")
	alice.click(".me-button")
	alice.clickJS("Sign out", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent.startsWith("Sign out"))`)
	alice.waitFor("the sign-in page", `!!document.querySelector("#signin-title")`)
	if kept := eval[string](alice, `Object.keys(localStorage).filter(k => k.startsWith("hearth.drafts.")).join()`); kept != "" {
		t.Errorf("drafts kept after the sign-out: %s", kept)
	}
	alice.noErrors(srv.URL)
}

// TestBrowserUpEditsTheLastOwnMessage: Up in an empty message box opens the edit box of the
// person's own newest message (not another's newer one), Enter saves it, and the focus comes
// back to the message box; the same in a thread. With text in the box, Up moves in the text.
func TestBrowserUpEditsTheLastOwnMessage(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	alice.openChannel("general")
	box := ".channel-view .composer .composer-input"
	alice.send("my first try")
	alice.send("my second try")
	alice.sendAPI(t, owner, ids["general"], "the owner's word")
	alice.seesOnce("the owner's word")
	alice.focusIs("the message box", `document.querySelector(`+js(box)+`)`)
	alice.run(press("ArrowUp", 38, "", 0))
	edit := `document.querySelector('textarea[aria-label="Edit message"]')`
	alice.focusIs("the edit box of alice's newest", edit)
	if got := eval[string](alice, edit+`.value`); got != "my second try" {
		t.Errorf("Up opened the edit of %q, want alice's newest", got)
	}
	alice.run(chromedp.KeyEvent(", fixed"))
	alice.run(enter())
	alice.waitFor("the edit saved", messageJS(".channel-view", "my second try, fixed")+`?.querySelector(".edited") != null`)
	alice.focusIs("the message box again", `document.querySelector(`+js(box)+`)`)

	t.Log("with text in the box, Up stays in the text")
	alice.typeInto(box, "line one")
	alice.run(press("ArrowUp", 38, "", 0))
	if eval[bool](alice, `!!`+edit) {
		t.Error("Up in a box with text opened an edit")
	}
	alice.setText(`document.querySelector(`+js(box)+`)`, "")

	t.Log("in a thread")
	alice.clickJS("Reply in thread", messageJS(".channel-view", "the owner's word")+`?.querySelector('[aria-label="Reply in thread"]')`)
	alice.send("a reply", ".thread-panel")
	alice.waitFor("the reply", countJS(".thread-panel .message-list > article.msg:not(.msg-pending)", "a reply")+" === 1")
	alice.run(press("ArrowUp", 38, "", 0))
	alice.focusIs("the reply's edit box", `document.querySelector('.thread-panel textarea[aria-label="Edit message"]')`)
	alice.run(press("Escape", 27, "", 0))
	alice.focusIs("the thread's message box again", `document.querySelector(".thread-panel .composer .composer-input")`)

	t.Log("Up the moment a reply shows, before the page has painted it: the reply's edit")
	// The keydown comes from a mutation observer, which runs once the reply's element is in
	// the page and before the browser paints: a listener that comes after the paint misses it.
	alice.eval0(`(() => {
		const list = document.querySelector(".thread-panel .message-list");
		const seen = new Set([...list.querySelectorAll("article.msg[data-id]")].map((a) => a.dataset.id));
		const watch = new MutationObserver(() => {
			if (![...list.querySelectorAll("article.msg[data-mine]")].some((a) => !seen.has(a.dataset.id))) return;
			watch.disconnect();
			document.querySelector(".thread-panel .composer .composer-input").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true, cancelable: true }));
		});
		watch.observe(list, { childList: true, subtree: true });
	})()`)
	alice.send("another reply", ".thread-panel")
	threadEdit := `document.querySelector('.thread-panel textarea[aria-label="Edit message"]')`
	alice.focusIs("the new reply's edit box", threadEdit)
	if got := eval[string](alice, threadEdit+`.value`); got != "another reply" {
		t.Errorf("Up opened the edit of %q, want the new reply", got)
	}
	alice.noErrors(srv.URL)
}

// TestBrowserCopyLinkToMessage: "Copy link to message" puts a link on the clipboard that opens
// the message where it is, for another person too: a channel's message highlighted in its
// channel, a thread's reply in its thread.
func TestBrowserCopyLinkToMessage(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	bot := srv.CreateBot(owner, "archivist")
	root, err := owner.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "the minutes of the meeting"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], ThreadRootId: root.Msg.GetMessage().GetId(), Text: "a correction to item 3"})); err != nil {
		t.Fatal(err)
	}
	fillChannel(t, bot, ids["general"], 120)
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bob := joinedPage(t, browser, srv, "bob", "Bob")
	// The page's clipboard, as the test reads it.
	alice.eval0(`navigator.clipboard.writeText = (text) => { window.copied = text; return Promise.resolve(); }`)
	alice.openChannel("general")
	alice.search("minutes")
	alice.clickJS("the result", `document.querySelector("dialog[open] .search-result")`)
	msg := messageJS(".channel-view", "the minutes of the meeting")
	alice.clickJS("Copy link to message", msg+`?.querySelector('[aria-label="Copy link to message"]')`)
	alice.waitFor("said so", `[...document.querySelectorAll(".notice-info .notice-text")].some(n => n.textContent === "Link to the message copied.")`)
	link := eval[string](alice, `window.copied`)
	if want := srv.URL + "/app/#/c/" + ids["general"] + "/m/" + root.Msg.GetMessage().GetId(); link != want {
		t.Fatalf("the link copied: %q, want %q", link, want)
	}
	bob.run(chromedp.Navigate(link))
	bob.waitFor("the message highlighted in its channel, in sight", `document.querySelector(".channel-view .msg-target .msg-text")?.textContent === "the minutes of the meeting" && `+wholeInSightJS(channelScroller, `document.querySelector(".channel-view .msg-target")`))

	t.Log("a reply's link opens its thread on it")
	alice.clickJS("the thread", msg+`?.querySelector(".thread-link")`)
	reply := messageJS(".thread-panel", "a correction to item 3")
	alice.clickJS("Copy link to the reply", reply+`?.querySelector('[aria-label="Copy link to message"]')`)
	alice.waitFor("the reply's link", `window.copied?.includes("/t/")`)
	link = eval[string](alice, `window.copied`)
	bob.run(chromedp.Navigate(link))
	bob.waitFor("the reply highlighted in its thread", `document.querySelector(".thread-panel .msg-target .msg-text")?.textContent === "a correction to item 3" && document.querySelector(".thread-panel .thread-root .msg-text")?.textContent === "the minutes of the meeting"`)
	alice.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserShortcutsList: `?` outside a text box, and Ctrl+/ anywhere, open the list of the
// keyboard shortcuts; in the message box `?` is typed; Escape closes the list.
func TestBrowserShortcutsList(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	alice.openChannel("general")
	box := ".channel-view .composer .composer-input"
	alice.typeInto(box, "really?")
	if got := eval[string](alice, `document.querySelector(`+js(box)+`).value`); got != "really?" || eval[bool](alice, `!!document.querySelector("dialog[open]")`) {
		t.Fatalf("? in the message box: the box holds %q, a dialog open: %v", got, eval[bool](alice, `!!document.querySelector("dialog[open]")`))
	}
	alice.run(press("/", 191, "", 2)) // Ctrl+/
	rows := `[...document.querySelectorAll('dialog[open][aria-label="Keyboard shortcuts"] .shortcuts tr')]`
	alice.waitFor("the list", rows+`.length > 8`)
	alice.allNamed("the shortcuts")
	alice.readable("the shortcuts", "dialog[open]")
	for _, want := range []string{"Ctrl+K|Search messages", "Shift+Page Up|Jump to the first unread message", "Shift+Page Down|Jump to the latest messages", "↑|In an empty message box: edit your last message", "? or Ctrl+/|This list"} {
		if !eval[bool](alice, rows+`.some(r => r.querySelector("th").textContent + "|" + r.querySelector("td").textContent === `+js(want)+`)`) {
			t.Errorf("the list lacks %q:\n%s", want, eval[string](alice, rows+`.map(r => r.querySelector("th").textContent + "|" + r.querySelector("td").textContent).join("\n")`))
		}
	}
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("closed", `!document.querySelector("dialog")`)
	alice.eval0(`document.querySelector(".channel-view .message-list").focus()`)
	alice.run(press("?", 191, "?", 8))
	alice.waitFor("the list again", rows+`.length > 8`)
	alice.closeDialog()
	alice.noErrors(srv.URL)
}

// peopleJS is the member list's groups and names: "Online: Alice, Bob | Offline: ...".
const peopleJS = `[...document.querySelectorAll(".people-panel .people-group")].map(g => g.querySelector(".people-title").textContent.split(" — ")[0] + ": " + [...g.querySelectorAll(".people-name")].map(n => n.firstChild.textContent).join(", ")).join(" | ")`

// TestBrowserMemberList: the member list beside a channel shows who is in it, online first, and
// follows presence live (another person leaving goes to Offline); a private channel lists its
// members only; the list stays shown across a reload; a name opens the member's card; on a
// phone it covers the channel and its ✕ closes it.
func TestBrowserMemberList(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.PresenceGrace = 500 * time.Millisecond })
	carol := srv.Join("carol")
	rename(t, carol, "Carol", "🌻", "gardening")
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bob := joinedPage(t, browser, srv, "bob", "Bob")
	bob.openChannel("general")
	alice.openChannel("general")
	alice.waitFor("no member list yet", `!document.querySelector(".people-panel") && document.querySelector(".channel-view .members-toggle")?.getAttribute("aria-label") === "Members (4)"`)
	alice.click(".channel-view .members-toggle")
	alice.waitFor("online first", peopleJS+` === "Online: Alice, Bob | Offline: Carol, olivia"`)
	alice.allNamed("the member list")
	alice.readable("the member list", ".people-panel")
	alice.readable("the channel's header", ".channel-head")
	if status := eval[string](alice, `[...document.querySelectorAll(".people-row")].find(r => r.querySelector(".people-name").textContent === "Carol").querySelector(".people-status").textContent`); status != "🌻 gardening" {
		t.Errorf("carol's status in the list: %q", status)
	}

	t.Log("bob leaves: offline, live")
	bob.noErrors(srv.URL)
	if err := chromedp.Cancel(bob.ctx); err != nil { // the window closed
		t.Fatal(err)
	}
	alice.waitFor("bob offline", peopleJS+` === "Online: Alice | Offline: Bob, Carol, olivia"`)

	t.Log("a private channel lists its members only")
	res, err := owner.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: "secret", Kind: svcv1.ChannelKind_CHANNEL_KIND_PRIVATE}))
	if err != nil {
		t.Fatal(err)
	}
	me, err := srv.Client(srv.Token("alice")).Server.GetMe(context.Background(), connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.AddChannelMembers(context.Background(), connect.NewRequest(&svcv1.AddChannelMembersRequest{ChannelId: res.Msg.GetChannel().GetId(), MemberIds: []string{me.Msg.GetMember().GetId()}})); err != nil {
		t.Fatal(err)
	}
	alice.openChannel("secret")
	alice.waitFor("the private channel's members", peopleJS+` === "Online: Alice | Offline: olivia"`)

	t.Log("still shown after a reload; a name opens the card")
	alice.run(chromedp.Reload())
	alice.openChannel("general")
	alice.waitFor("the list", peopleJS+` === "Online: Alice | Offline: Bob, Carol, olivia"`)
	alice.clickJS("Carol in the list", `[...document.querySelectorAll(".people-row")].find(r => r.querySelector(".people-name").textContent === "Carol")`)
	alice.waitFor("carol's card", `document.querySelector("dialog[open] .member-card-name")?.textContent.startsWith("Carol")`)
	alice.closeDialog()
	alice.click(".channel-view .members-toggle")
	alice.waitFor("hidden", `!document.querySelector(".people-panel") && document.querySelector(".channel-view .members-toggle").getAttribute("aria-pressed") === "false"`)
	alice.click(".channel-view .members-toggle")
	alice.waitFor("shown again", `!!document.querySelector(".people-panel")`)

	t.Log("the pins take the list's place, and the list takes it back")
	alice.clickJS("the pins", `document.querySelector('.channel-view button[aria-label^="Pinned messages"]')`)
	alice.waitFor("the pins, no list", `!!document.querySelector(".pins-panel") && !document.querySelector(".people-panel")`)
	alice.click(".channel-view .members-toggle")
	alice.waitFor("the list, the pins closed", `!document.querySelector(".pins-panel") && !!document.querySelector(".people-panel")`)

	t.Log("on a phone: over the channel, closed by its ✕")
	phone := openTab(t, alice, "alice's phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + ids["general"]))
	phone.waitFor("#general, no list over it", `document.querySelector(".channel-title")?.textContent.endsWith("general") && !document.querySelector(".people-panel")`)
	phone.click(".channel-view .members-toggle")
	phone.waitFor("the list over the channel, focused", `(() => { const p = document.querySelector(".people-panel"); if (!p) return false; const r = p.getBoundingClientRect(); return r.left === 0 && r.width === 390 && p.contains(document.activeElement); })()`)
	phone.click(`.people-panel button[aria-label="Close the member list"]`)
	phone.waitFor("closed, the focus on its button", `!document.querySelector(".people-panel") && document.activeElement === document.querySelector(".channel-view .members-toggle")`)
	alice.noErrors(srv.URL)
	phone.noErrors(srv.URL)
}

// inboxJS is the thread inbox's rows: "root text / last reply text / new" (new when marked).
const inboxJS = `[...document.querySelectorAll(".thread-inbox .thread-row")].map(r => r.querySelector(".thread-row-text").textContent + " / " + r.querySelector(".thread-row-reply").textContent + (r.classList.contains("thread-row-new") ? " / " + r.querySelector(".thread-row-badge").textContent : "")).join(" | ")`

// TestBrowserThreadInbox: the threads a person is in (they started it or replied), the newest
// reply first, those with replies they have not read marked; another person's reply, live,
// brings its thread to the top, marked; opening it opens the thread beside its channel, and it
// is no longer marked. A thread they are not in is not there.
func TestBrowserThreadInbox(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	carol := srv.Join("carol")
	rename(t, carol, "Carol", "", "")
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bob := joinedPage(t, browser, srv, "bob", "Bob")
	me := func(sub string) *webtest.Client { return srv.Client(srv.Token(sub)) }
	say := func(c *webtest.Client, ch, text, root string) *svcv1.Message {
		res, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ch, Text: text, ThreadRootId: root}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetMessage()
	}
	// Alice looks at her threads (none yet) while the others write.
	alice.clickJS("Threads", `document.querySelector(".sidebar .threads-link")`)
	alice.waitFor("no threads yet", `document.querySelector(".thread-inbox-empty")?.textContent.startsWith("No threads yet.")`)
	picnic := say(me("alice"), ids["general"], "who brings the blanket?", "")
	say(me("bob"), ids["general"], "I will", picnic.GetId())
	route := say(me("bob"), ids["random"], "which way to the lake?", "")
	say(me("alice"), ids["random"], "left at the mill", route.GetId())
	other := say(owner, ids["general"], "the owner's own question", "")
	say(carol, ids["general"], "carol's answer", other.GetId())
	say(carol, ids["random"], "or right, it is shorter", route.GetId())

	alice.waitFor("alice's threads, the newest reply first, the unread marked", inboxJS+` === "which way to the lake? / Carol: or right, it is shorter / 1 new | who brings the blanket? / Bob: I will / 1 new"`)
	alice.allNamed("the thread inbox")
	alice.readable("the thread inbox", ".main")
	if title := eval[string](alice, `document.title`); title != "(1) Threads · Hearth" {
		t.Errorf("the tab's title: %q", title)
	}

	t.Log("bob replies in alice's thread, live")
	bob.openChannel("general")
	bob.clickJS("the thread", messageJS(".channel-view", "who brings the blanket?")+`?.querySelector(".thread-link")`)
	bob.send("and the lemonade", ".thread-panel")
	alice.waitFor("that thread first, with two new", inboxJS+` === "who brings the blanket? / Bob: and the lemonade / 2 new | which way to the lake? / Carol: or right, it is shorter / 1 new"`)

	t.Log("opened: the thread beside its channel, then read")
	alice.clickJS("the first thread", `document.querySelector(".thread-inbox .thread-row")`)
	alice.waitFor("the thread beside #general", `document.querySelector(".channel-title")?.textContent.endsWith("general") && document.querySelector(".thread-panel .thread-root .msg-text")?.textContent === "who brings the blanket?" && `+countJS(".thread-panel .message-list > article.msg", "and the lemonade")+` === 1`)
	alice.clickJS("Threads", `document.querySelector(".sidebar .threads-link")`)
	alice.waitFor("no longer marked", inboxJS+` === "who brings the blanket? / Bob: and the lemonade | which way to the lake? / Carol: or right, it is shorter / 1 new"`)
	alice.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserLinkPreviewKeepsItsPlace: while a link's preview is on its way, the message keeps
// its place (a placeholder the size of a preview card, so nothing below moves when it comes);
// the preview then takes it; a link with no preview ends with nothing in its place.
func TestBrowserLinkPreviewKeepsItsPlace(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t, webtest.WithPreviewAllowPrivate())
	picture, err := os.ReadFile(writePNG(t, "lake.png", 120, 90))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/lake.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(picture)
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Second):
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><meta property="og:title" content="The lake"><meta property="og:description" content="Cold in May."><meta property="og:image" content="http://%s/lake.png"></head></html>`, r.Host)
		default:
			http.NotFound(w, r)
		}
	}))
	defer pages.Close()
	alice := joinedPage(t, browser, srv, "alice", "Alice")
	bob := joinedPage(t, browser, srv, "bob", "Bob")
	for _, p := range []*page{alice, bob} {
		p.openChannel("general")
	}
	alice.send("the lake: " + pages.URL + "/slow")
	msg := messageJS(".channel-view", "the lake: ")
	bob.waitFor("the preview's place kept while it comes", msg+`?.querySelector(".preview-loading")?.getBoundingClientRect().height === 90`)
	close(release)
	bob.waitFor("the preview in its place, as tall", msg+`?.querySelector(".preview .preview-title")?.textContent === "The lake" && !`+msg+`.querySelector(".preview-loading") && `+msg+`.querySelector(".preview").getBoundingClientRect().height === 90`)

	t.Log("a link without a preview: nothing in its place once the answer came")
	alice.send("gone: " + pages.URL + "/missing")
	gone := messageJS(".channel-view", "gone: ")
	bob.waitFor("the message", `!!`+gone)
	bob.waitFor("no preview and no place kept", `!`+gone+`.querySelector(".previews")`)
	alice.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// joinedPage opens a desktop window for sub, signed in and joined as name.
func joinedPage(t *testing.T, browser context.Context, srv *webtest.Server, sub, name string) *page {
	t.Helper()
	p := openPage(t, browser, sub, 1280, 800)
	p.signIn(srv, sub)
	p.join(name)
	return p
}

// readable fails the test for every text under scope (a CSS selector; an open dialog's when
// one is open) below 4.5:1 against its background, in the light theme and the dark
// (lowContrastJS); where names the page's state.
func (p *page) readable(where, scope string) {
	p.t.Helper()
	check := strings.Replace(lowContrastJS, `document.querySelector("dialog[open]") ?? document.body`, `document.querySelector("dialog[open]") ?? document.querySelector(`+js(scope)+`)`, 1)
	if check == lowContrastJS {
		p.t.Fatal("lowContrastJS no longer starts from the open dialog or the body")
	}
	for _, on := range []bool{false, true} {
		dark(p.t, p, on)
		p.waitFor("the theme", fmt.Sprintf(`matchMedia("(prefers-color-scheme: dark)").matches === %v`, on))
		if low := eval[string](p, check); low != "" {
			p.t.Errorf("%s, dark %v: text below 4.5:1:\n%s", where, on, strings.TrimSpace(low))
		}
	}
	dark(p.t, p, false)
}
