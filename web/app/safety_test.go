package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// seedTimeout times c out until then, as TimeoutMember would (the server restarts: seed before
// opening pages).
func seedTimeout(t *testing.T, srv *webtest.Server, c *webtest.Client, until time.Time) {
	t.Helper()
	srv.Seed(func(b *store.Batch) error {
		var rec *storepb.MemberRecord
		if err := b.Members(func(m *storepb.MemberRecord) error {
			if m.GetMember().GetId() == c.Member.GetId() {
				rec = m
			}
			return nil
		}); err != nil {
			return err
		}
		if rec == nil {
			return fmt.Errorf("member %s not found", c.Member.GetId())
		}
		rec.Member.TimedOutUntilMs = until.UnixMilli()
		return b.PutMember(rec)
	})
}

// readable fails the test for any text in scope (a CSS selector) below 4.5:1, in the light
// and the dark theme; disabled controls are left out, as WCAG leaves them.
func readable(t *testing.T, p *page, scope, where string) {
	t.Helper()
	check := strings.Replace(lowContrastJS, `document.querySelector("dialog[open]") ?? document.body`, `document.querySelector(`+js(scope)+`)`, 1)
	check = strings.Replace(check, `el.closest(".visually-hidden, noscript")`, `el.closest(".visually-hidden, noscript, :disabled")`, 1)
	if check == lowContrastJS {
		t.Fatal("lowContrastJS changed: readable cannot scope it")
	}
	for _, on := range []bool{false, true} {
		dark(t, p, on)
		p.waitFor("the theme", fmt.Sprintf(`matchMedia("(prefers-color-scheme: dark)").matches === %t`, on))
		if low := eval[string](p, check); low != "" {
			t.Errorf("%s (dark %t): text below 4.5:1:\n%s", where, on, low)
		}
	}
	dark(t, p, false)
}

// composerJS is the channel's message box.
const composerJS = `document.querySelector(".channel-view .composer .composer-input")`

// holdJS is what the channel's composer says while the person cannot send.
const holdJS = `document.querySelector(".channel-view .composer .hold-note")`

// timedOutNoteJS is the note a timed-out member's composer shows, with the time as the page
// says it (a time today, or a day and a time).
func timedOutNoteJS(until int64) string {
	return fmt.Sprintf(`(() => {
		const at = %d, now = new Date();
		const time = new Date(at).toDateString() === now.toDateString()
			? new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" }).format(at)
			: new Intl.DateTimeFormat(undefined, { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" }).format(at);
		return "You are timed out until " + time + ": you can read, but not send, react or report until then.";
	})()`, until)
}

// auditJS lists the audit log's entries as their first lines read.
const auditJS = `[...document.querySelectorAll("dialog[open] .audit-entry .audit-line")].map(e => e.textContent)`

// openAudit opens the moderation screen's audit log.
func (p *page) openAudit() {
	p.t.Helper()
	p.openTool("Moderation")
	p.clickJS("the Audit log tab", `[...document.querySelectorAll('dialog[open] [role="tab"]')].find(t => t.textContent === "Audit log")`)
	p.waitFor("the audit log", `document.querySelector("dialog[open] .audit-filters") && !document.querySelector('dialog[open] [role="status"]')?.textContent.startsWith("Loading")`)
}

// TestBrowserTimeoutFromTheCard: a moderator times a member out from the member's card, for a
// length picked from the card's choices and with a reason; the member's composer says at once
// until when they are timed out and takes nothing, and reacting and reporting are gone. The
// moderator finds the timeout with its reason in the audit log, filtered by action and by
// person, and sees new entries come live. End timeout gives the member their composer back at
// once, and a timeout that runs out does so by itself.
func TestBrowserTimeoutFromTheCard(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	mia, bob, carol := moderationCast(t, srv, owner)
	// Carol's timeout runs out while the test goes on: late enough that three people sign in and
	// open the channel before it, on a loaded machine too (15 s was once not enough in CI's run).
	carolUntil := time.Now().Add(30 * time.Second)
	seedTimeout(t, srv, carol, carolUntil)
	miaPage := openPage(t, browser, "mia", 1280, 800)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	carolPage := openPage(t, browser, "carol", 1280, 800)
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.signIn(srv, p.name)
	}
	miaPage.sendAPI(t, bob, ids["general"], "check out my new site")
	miaPage.sendAPI(t, mia, ids["general"], "welcome, everyone")
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.openChannel("general")
		p.seesOnce("welcome, everyone")
	}

	t.Log("carol, timed out already: the composer says until when and takes nothing")
	carolPage.waitFor("carol's composer disabled, with the time", `(() => {
		const box = `+composerJS+`, send = document.querySelector(".channel-view .send-button");
		return box.disabled && send.disabled && `+holdJS+`?.textContent === `+timedOutNoteJS(carolUntil.UnixMilli())+`;
	})()`)
	readable(t, carolPage, ".channel-view .composer", "a timed-out member's channel")
	mias := messageJS(".channel-view", "welcome, everyone")
	if eval[bool](carolPage, mias+`.querySelector('[aria-label="Add reaction"], [aria-label="Report message"]') !== null`) {
		t.Error("a timed-out member is offered reacting or reporting")
	}

	t.Log("mia times bob out from his card, for an hour, with a reason")
	miaPage.openCard("Bob")
	miaPage.clickJS("Time out", buttonJS("dialog[open] .mod-actions", "Time out"))
	miaPage.waitFor("the lengths", `[...document.querySelectorAll("dialog[open] .timeout-length")].map(l => l.textContent).join() === "60 seconds,5 minutes,10 minutes,1 hour,1 day,1 week"`)
	miaPage.allNamed("the timeout choices")
	readable(t, miaPage, "dialog[open]", "the timeout choices")
	miaPage.clickJS("1 hour", `[...document.querySelectorAll("dialog[open] .timeout-length")].find(l => l.textContent === "1 hour").querySelector("input")`)
	miaPage.setText(`document.querySelector("dialog[open] .reason-field input")`, "Spamming links in #general")
	miaPage.clickJS("Time out for 1 hour", buttonJS("dialog[open] .reason-confirm", "Time out for 1 hour"))
	miaPage.waitFor("the card saying until when", `document.querySelector("dialog[open] .timeout-status")?.textContent.startsWith("⏳ Timed out until ") && !!`+buttonJS("dialog[open] .mod-actions", "End timeout"))
	me, err := bob.Server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	bobUntil := me.Msg.GetMember().GetTimedOutUntilMs()
	if left := time.Until(time.UnixMilli(bobUntil)); left < 59*time.Minute || left > time.Hour {
		t.Fatalf("bob is timed out for %s, want an hour", left)
	}
	bobPage.waitFor("bob's composer disabled live, with the time", `(() => {
		const box = `+composerJS+`;
		return box.disabled && document.querySelector(".channel-view .send-button").disabled && `+holdJS+`?.textContent === `+timedOutNoteJS(bobUntil)+`;
	})()`)
	if eval[bool](bobPage, mias+`.querySelector('[aria-label="Add reaction"], [aria-label="Report message"]') !== null`) {
		t.Error("bob, timed out, is offered reacting or reporting")
	}
	miaPage.closeDialog()

	t.Log("the audit log: the timeout with its reason, by action and by person")
	miaPage.openAudit()
	miaPage.allNamed("the audit log")
	readable(t, miaPage, "dialog[open]", "the audit log")
	timeout := fmt.Sprintf("Mia timed out Bob · until %s (1h0m0s)", time.UnixMilli(bobUntil).UTC().Format("2006-01-02 15:04:05 UTC"))
	miaPage.waitFor("the timeout on top, with its reason", fmt.Sprintf(`%s[0] === %s && document.querySelector("dialog[open] .audit-entry .audit-reason")?.textContent === "Reason: Spamming links in #general"`, auditJS, js(timeout)))
	if got := eval[[]string](miaPage, auditJS); len(got) < 2 || got[1] != "olivia changed the rank of Mia · rank MEMBER -> MODERATOR" {
		t.Errorf("the audit log: %q, want the timeout then the rank mia was given", got)
	}
	action := `document.querySelector("dialog[open] .audit-filters select")`
	miaPage.eval0(action + `.value = String([...` + action + `.options].find(o => o.textContent === "Timeouts").value), ` + action + `.dispatchEvent(new Event("change", {bubbles: true}))`)
	miaPage.waitFor("only the timeout", fmt.Sprintf(`JSON.stringify(%s) === %s`, auditJS, js(`["`+timeout+`"]`)))
	miaPage.eval0(action + `.value = "0", ` + action + `.dispatchEvent(new Event("change", {bubbles: true}))`)
	person := `document.querySelector('dialog[open] .audit-filters input[type="search"]')`
	filterBy := func(who string) {
		miaPage.eval0(person + `.value = ` + js(who) + `, ` + person + `.dispatchEvent(new Event("change", {bubbles: true}))`)
	}
	filterBy("@bob")
	miaPage.waitFor("bob's entries: the timeout", fmt.Sprintf(`JSON.stringify(%s) === %s`, auditJS, js(`["`+timeout+`"]`)))
	filterBy("Mia")
	miaPage.waitFor("mia's entries: the timeout she gave and the rank she got", fmt.Sprintf(`JSON.stringify(%s) === %s`, auditJS, js(`["`+timeout+`","olivia changed the rank of Mia · rank MEMBER -> MODERATOR"]`)))
	filterBy("@nobody")
	miaPage.waitFor("a name nobody has, said, and every entry", `document.querySelector("dialog[open] .error-row")?.textContent === "Nobody here is called @nobody." && `+auditJS+`.length > 2`)
	filterBy("@bob")
	miaPage.waitFor("bob's entries again", fmt.Sprintf(`JSON.stringify(%s) === %s && !document.querySelector("dialog[open] .error-row")`, auditJS, js(`["`+timeout+`"]`)))
	miaPage.clickJS("Show all", buttonJS("dialog[open] .mod-toolbar", "Show all"))
	miaPage.waitFor("every entry again", auditJS+`.length >= 2 && `+person+`.value === ""`)

	t.Log("an entry comes live")
	inv, err := owner.Server.CreateInvite(ctx, connect.NewRequest(&svcv1.CreateInviteRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	miaPage.waitFor("the invite on top, live", fmt.Sprintf(`%s[0] === %s`, auditJS, js("olivia made an invite · invite "+inv.Msg.GetInvite().GetCode())))
	miaPage.closeDialog()

	t.Log("End timeout: bob's composer comes back at once")
	miaPage.openCard("Bob")
	miaPage.clickJS("End timeout", buttonJS("dialog[open] .mod-actions", "End timeout"))
	miaPage.waitFor("the card without the timeout", `!document.querySelector("dialog[open] .timeout-status") && !!`+buttonJS("dialog[open] .mod-actions", "Time out"))
	miaPage.closeDialog()
	bobPage.waitFor("bob's composer back", `!`+composerJS+`.disabled && !`+holdJS)
	bobPage.send("sorry about the links")
	bobPage.seesOnce("sorry about the links")

	t.Log("carol's timeout runs out by itself")
	time.Sleep(time.Until(carolUntil))
	carolPage.waitFor("carol's composer back", `!`+composerJS+`.disabled && !`+holdJS+` && !!`+mias+`.querySelector('[aria-label="Report message"]')`)
	carolPage.send("back again")
	carolPage.seesOnce("back again")
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserSlowmodeCountdown: an admin sets a channel's slowmode in its settings; after each
// message a member's composer counts down until they may send again (Send waits, the text
// stays), and a moderator is not slowed. A send refused for slowmode (the member sent from
// another device) counts down from the server's Retry-After and goes when it may.
func TestBrowserSlowmodeCountdown(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	_, bob, _ := moderationCast(t, srv, owner)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	olivia.signIn(srv, "olivia")
	bobPage.signIn(srv, "bob")
	for _, p := range []*page{olivia, bobPage} {
		p.openChannel("general")
	}

	t.Log("the owner sets a slowmode of 5 seconds in #general's settings")
	olivia.click(`.channel-settings-button`)
	sel := `document.querySelector('dialog[open] [aria-labelledby="slowmode-title"] select')`
	olivia.waitFor("the slowmode choices", fmt.Sprintf(`[...%s.options].map(o => o.textContent).join() === %s`, sel, js("As often as they like (off),One message every 5 seconds,One message every 10 seconds,One message every 30 seconds,One message every 60 seconds,One message every 5 minutes,One message every 15 minutes,One message every 1 hour,One message every 6 hours")))
	olivia.eval0(sel + `.value = "5", ` + sel + `.dispatchEvent(new Event("change", {bubbles: true}))`)
	olivia.clickJS("Save", buttonJS(`dialog[open] [aria-labelledby="slowmode-title"]`, "Save"))
	olivia.waitFor("saved", `document.querySelector('dialog[open] [aria-labelledby="slowmode-title"] .ok-row')?.textContent === "Saved."`)
	olivia.closeDialog()
	res, err := owner.Chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Msg.GetChannels() {
		if c.GetId() == ids["general"] && c.GetSlowmodeS() != 5 {
			t.Fatalf("#general's slowmode is %d, want 5", c.GetSlowmodeS())
		}
	}

	t.Log("bob sends: the composer counts down, Send waits, what he types stays")
	bobPage.send("first")
	bobPage.waitFor("the countdown", `/^Slowmode: you can send again in 0:0[1-5]$/.test(`+holdJS+`?.textContent) && document.querySelector(".channel-view .send-button").disabled`)
	readable(t, bobPage, ".channel-view .composer", "a slowmode countdown")
	bobPage.typeInto(".channel-view .composer .composer-input", "second")
	bobPage.run(enter())
	if got := eval[string](bobPage, composerJS+`.value`); got != "second" {
		t.Errorf("the box holds %q during the wait, want the text kept", got)
	}
	bobPage.waitFor("the countdown over, Send back", `!`+holdJS+` && !document.querySelector(".channel-view .send-button").disabled`)
	bobPage.run(enter())
	bobPage.seesOnce("second")
	bobPage.waitFor("the countdown again", `!!`+holdJS)

	t.Log("the owner is not slowed")
	olivia.send("one")
	olivia.send("two")
	olivia.seesOnce("two")
	if eval[bool](olivia, `!!`+holdJS) {
		t.Error("the owner's composer counts down in slowmode")
	}

	t.Log("a send refused for slowmode waits as long as the server says, then goes")
	bobPage.waitFor("the countdown over", `!`+holdJS)
	bobPage.sendAPI(t, bob, ids["general"], "from my phone")
	bobPage.seesOnce("from my phone")
	bobPage.send("from the browser")
	bobPage.waitFor("the countdown from Retry-After", `/^Slowmode: you can send again in 0:0[1-5]$/.test(`+holdJS+`?.textContent)`)
	bobPage.seesOnce("from the browser")
	if n := eval[int](bobPage, countJS(".channel-view article.msg", "from the browser")); n != 1 {
		t.Errorf("the message shows %d times, want once", n)
	}
	for _, p := range []*page{olivia, bobPage} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserLockdownAndFilters: the owner turns lockdown on at the top of the moderation screen;
// a new person's join page says the community is closed, and Join is refused in the server's
// words, until it is turned off. The owner sets the filters (blocked words, mentions, two-step
// sign-in), which a moderator sees but cannot change; a member's message with a blocked word is
// refused, the refusal told and the text kept in the composer, and nothing is stored.
func TestBrowserLockdownAndFilters(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	moderationCast(t, srv, owner)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	miaPage := openPage(t, browser, "mia", 1280, 800)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	for _, p := range []*page{olivia, miaPage, bobPage} {
		p.signIn(srv, p.name)
		p.openChannel("general")
	}

	t.Log("lockdown on, from the top of the moderation screen")
	olivia.openTool("Moderation")
	olivia.allNamed("the moderation screen")
	olivia.waitFor("lockdown off", `document.querySelector("dialog[open] .lockdown strong")?.textContent === "Lockdown is off"`)
	olivia.click(`dialog[open] .lockdown input[role="switch"]`)
	olivia.waitFor("lockdown on", `document.querySelector("dialog[open] .lockdown-on strong")?.textContent === "Lockdown is on" && document.querySelector('dialog[open] .lockdown input[role="switch"]').checked`)
	miaPage.openTool("Moderation")
	miaPage.waitFor("the moderator sees it on, and cannot turn it off", `document.querySelector("dialog[open] .lockdown-on strong")?.textContent === "Lockdown is on" && document.querySelector('dialog[open] .lockdown input[role="switch"]').disabled`)
	readable(t, miaPage, "dialog[open]", "the moderation screen in lockdown")

	dave := openPage(t, browser, "dave", 1280, 800)
	dave.signIn(srv, "dave")
	dave.waitFor("the join page saying it is closed", `!!document.querySelector("#join-title") && [...document.querySelectorAll(".welcome-box p")].some(p => p.textContent.startsWith("This community is closed to new members for now"))`)
	dave.click(`.welcome-box button[type="submit"]`)
	dave.waitFor("Join refused in the server's words", `document.querySelector(".welcome-box form .error-row")?.textContent === "this community is closed to new members for now (lockdown); try again later"`)
	olivia.click(`dialog[open] .lockdown input[role="switch"]`)
	olivia.waitFor("lockdown off", `document.querySelector("dialog[open] .lockdown strong")?.textContent === "Lockdown is off"`)
	dave.click(`.welcome-box button[type="submit"]`)
	dave.waitFor("the chat", `!!document.querySelector(".chat")`)

	t.Log("the filters, set by the owner")
	olivia.clickJS("the Filters tab", `[...document.querySelectorAll('dialog[open] [role="tab"]')].find(t => t.textContent === "Filters")`)
	words := `document.querySelector("dialog[open] .filters textarea")`
	olivia.waitFor("the filters", `!!`+words)
	olivia.setText(words, "free nitro\nsc*am")
	olivia.waitFor("a misplaced * said, Save disabled", `document.querySelector("dialog[open] .filters .limit-over")?.textContent === "“sc*am”: a * can only end a word (it matches any ending)." && `+buttonJS("dialog[open] .filters", "Save filters")+`.disabled`)
	olivia.setText(words, "free nitro\nscam*")
	olivia.setText(`document.querySelector('dialog[open] .filters input[type="number"]')`, "3")
	two := `document.querySelector("dialog[open] .filters select")`
	olivia.eval0(two + `.value = "2", ` + two + `.dispatchEvent(new Event("change", {bubbles: true}))`)
	readable(t, olivia, "dialog[open]", "the filters")
	olivia.clickJS("Save filters", buttonJS("dialog[open] .filters", "Save filters"))
	olivia.waitFor("saved", `document.querySelector("dialog[open] .filters .ok-row")?.textContent === "Saved."`)
	got, err := owner.Server.GetModerationSettings(ctx, connect.NewRequest(&svcv1.GetModerationSettingsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Msg.GetSettings(); fmt.Sprint(s.GetBlockedWords()) != "[free nitro scam*]" || s.GetMaxMentions() != 3 || s.GetRequire_2FaRank() != svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		t.Errorf("the settings saved: %v", s)
	}
	olivia.closeDialog()
	miaPage.clickJS("the Filters tab", `[...document.querySelectorAll('dialog[open] [role="tab"]')].find(t => t.textContent === "Filters")`)
	miaPage.waitFor("the moderator reads them, and cannot change them", `document.querySelector("dialog[open] .filters textarea")?.value === "free nitro\nscam*" && document.querySelector("dialog[open] .filters fieldset").disabled && !`+buttonJS("dialog[open] .filters", "Save filters"))
	miaPage.closeDialog()

	t.Log("a member's message with a blocked word is refused, and stays in the composer")
	bobPage.typeInto(".channel-view .composer .composer-input", "Scammers everywhere today")
	bobPage.run(enter())
	bobPage.waitFor("the refusal told, the text back in the box", `[...document.querySelectorAll(".notice-error .notice-text")].some(n => n.textContent.includes("Your message was not sent:") && n.textContent.includes("blocked")) && `+composerJS+`.value === "Scammers everywhere today" && !document.querySelector(".channel-view .msg-pending")`)
	list, err := owner.Chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: ids["general"]}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.GetMessages()); n != 0 {
		t.Errorf("#general holds %d messages, want none", n)
	}
	for _, p := range []*page{olivia, miaPage, bobPage, dave} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserReportsBadge: a moderator's Moderation entry counts the open reports as they come
// (one filed again counts once), from the state after a reload too; #/reports opens the queue,
// whose tab counts them; one resolved there and one resolved by another moderator take the
// count down, live.
func TestBrowserReportsBadge(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	mia, bob, carol := moderationCast(t, srv, owner)
	miaPage := openPage(t, browser, "mia", 1280, 800)
	miaPage.signIn(srv, "mia")
	miaPage.openChannel("random")
	say := func(c *webtest.Client, text string) string {
		res, err := c.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: text}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetMessage().GetId()
	}
	report := func(c *webtest.Client, id, note string) {
		if _, err := c.Server.ReportMessage(ctx, connect.NewRequest(&svcv1.ReportMessageRequest{MessageId: id, Note: note})); err != nil {
			t.Fatal(err)
		}
	}
	spam := say(carol, "buy cheap watches")
	rude := say(bob, "you are all idiots")
	badge := func(n int) string {
		if n == 0 {
			return `!document.querySelector(".tool-link .badge") && ` + toolJS("Moderation") + `.getAttribute("aria-label") === null`
		}
		what := "open reports"
		if n == 1 {
			what = "open report"
		}
		return fmt.Sprintf(`%s.querySelector(".badge")?.textContent === "%d" && %s.getAttribute("aria-label") === "Moderation, %d %s"`, toolJS("Moderation"), n, toolJS("Moderation"), n, what)
	}
	miaPage.waitFor("no badge", badge(0))

	t.Log("reports arrive: the badge rises, once per report")
	report(bob, spam, "spam")
	miaPage.waitFor("1 open report", badge(1))
	report(carol, rude, "rude")
	miaPage.waitFor("2 open reports", badge(2))
	report(bob, spam, "spam, and again")
	report(owner, spam, "")
	miaPage.waitFor("3 open reports", badge(3))
	if eval[bool](miaPage, badge(4)) {
		t.Fatal("a report filed again is counted twice")
	}
	miaPage.run(chromedp.Reload())
	miaPage.waitFor("3 open reports after a reload", badge(3))

	t.Log("#/reports opens the queue; resolving takes the count down")
	miaPage.run(chromedp.Navigate(srv.URL + "/app/#/reports"))
	miaPage.waitFor("the queue, its tab counting", `document.querySelector("dialog[open]")?.getAttribute("aria-label") === "Moderation" && document.querySelector('dialog[open] [role="tab"][aria-selected="true"]')?.textContent === "Reports 3 open" && document.querySelectorAll("dialog[open] .report").length === 3 && location.hash.startsWith("#/c/")`)
	miaPage.clickJS("Resolve the spam", `[...document.querySelectorAll("dialog[open] .report")].find(r => r.querySelector(".report-text").textContent === "buy cheap watches").querySelector(".button-primary")`)
	miaPage.waitFor("the spam's reports resolved", `document.querySelectorAll("dialog[open] .report").length === 1 && document.querySelector('dialog[open] [role="tab"][aria-selected="true"]')?.textContent === "Reports 1 open" && `+badge(1))
	list, err := owner.Server.ListReports(ctx, connect.NewRequest(&svcv1.ListReportsRequest{}))
	if err != nil || len(list.Msg.GetReports()) != 1 {
		t.Fatalf("ListReports: %v %v, want the other report", list, err)
	}
	if _, err := owner.Server.ResolveReport(ctx, connect.NewRequest(&svcv1.ResolveReportRequest{ReportId: list.Msg.GetReports()[0].GetId()})); err != nil {
		t.Fatal(err)
	}
	miaPage.waitFor("resolved by the owner: no count, an empty queue", `document.querySelector('dialog[open] [role="tab"][aria-selected="true"]')?.textContent === "Reports" && !document.querySelector("dialog[open] .report") && `+badge(0))
	if n := eval[int](miaPage, `document.querySelectorAll("dialog[open] .report").length`); n != 0 {
		t.Errorf("%d reports left in the queue", n)
	}
	_ = mia
	miaPage.noErrors(srv.URL)
}

// safetyUnits adds reports and audit entries to the units page.
const safetyUnits = unitEntry + `
import { AuditEntrySchema, ReportSchema } from "./src/gen/svc/v1/types_pb";
globalThis.units.report = (id, messageId) => create(ReportSchema, { id, message: create(MessageSchema, { id: messageId }) });
globalThis.units.audit = (init) => create(AuditEntrySchema, init);
`

// TestUnitsReportsCount: the open reports count from GetState, then rises for each report filed
// and not for one filed again, also while the list (loaded at once to know which are open) is
// on its way; the list's answer keeps what came meanwhile; a resolution takes off that message's
// reports once, whether it comes as the call's answer, as the audit entry, or both.
func TestUnitsReportsCount(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, safetyUnits)
	got := unitRun(t, p, `
		const s = units.newSession();
		let answer, lists = 0;
		s.api = { server: { listReports: () => (lists++, new Promise((r) => (answer = r))) } };
		const counts = [];
		const count = () => counts.push(s.state.openReports);
		s.dispatch({ case: "loaded", value: units.state({ me: units.member({ id: "me", role: 2 }), openReports: 2 }) });
		count();
		const ev = (seq, kind) => s.apply(units.event({ seq, kind }));
		ev(1n, { case: "reportFiled", value: units.report("r3", "m3") });
		count();
		ev(2n, { case: "reportFiled", value: units.report("r3", "m3") });
		count();
		answer({ reports: [units.report("r1", "m1"), units.report("r2", "m1")] });
		await tick();
		count();
		ev(3n, { case: "auditAppended", value: units.audit({ id: "a1", action: 28, messageId: "m1" }) });
		count();
		s.dispatch({ case: "reportResolved", value: "m1" });
		count();
		ev(4n, { case: "reportFiled", value: units.report("r4", "m4") });
		count();
		return lists + " list; " + counts.join(" ") + "; open " + [...s.state.reports.keys()].sort().join(" ") + "; audit " + s.state.audit.map((e) => e.id).join(" ");`)
	if want := "1 list; 2 3 3 3 1 1 2; open r3 r4; audit a1"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestUnitsSlowmodeAndTimeoutEnd: a send the server took starts the channel's slowmode wait for a
// member (not for a moderator, nor where there is none), a refusal's Retry-After sets it too,
// and each ends on time; the person's own timeout ends by itself at its time.
func TestUnitsSlowmodeAndTimeoutEnd(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, safetyUnits)
	got := unitRun(t, p, `
		const s = units.newSession();
		const until = BigInt(Date.now() + 300);
		s.dispatch({ case: "loaded", value: units.state({
			me: units.member({ id: "me", role: 1, timedOutUntilMs: until }),
			channels: [units.channel({ id: "slow", slowmodeS: 1 }), units.channel({ id: "fast" })],
		}) });
		const out = [];
		const hold = (c) => units.select.sendHold(s.state, c)?.kind ?? "none";
		out.push(hold("fast"));
		await new Promise((r) => setTimeout(r, 400));
		out.push(hold("fast") + " " + s.state.me.timedOutUntilMs + " " + s.state.members.get("me").timedOutUntilMs);
		s.dispatch({ case: "sent", value: units.message({ id: "x", channelId: "slow" }) });
		s.dispatch({ case: "sent", value: units.message({ id: "y", channelId: "fast" }) });
		out.push(hold("slow") + " " + hold("fast"));
		await new Promise((r) => setTimeout(r, 1100));
		out.push(hold("slow"));
		s.dispatch({ case: "slowmodeWait", value: { channelId: "slow", ms: 300 } });
		out.push(hold("slow"));
		await new Promise((r) => setTimeout(r, 400));
		out.push(hold("slow") + " " + s.state.slowmode.size);
		s.dispatch({ case: "memberSaved", value: units.member({ id: "me", role: 2 }) });
		s.dispatch({ case: "sent", value: units.message({ id: "z", channelId: "slow" }) });
		out.push(hold("slow"));
		return out.join(", ");`)
	if want := "timeout, none 0 0, slowmode none, none, slowmode, none 0, none"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestSafetyScreenshots writes the screenshots of the community safety screens (docs/screenshots/
// safety-*.png: the timeout choices on a member's card, a timed-out member's composer, the audit
// log, the moderation screen's lockdown and filters, the reports badge, a slowmode countdown),
// on a desktop and a phone, light and dark, when HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestSafetyScreenshots
func TestSafetyScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t)
	ctx := context.Background()
	g := newTroubledGarden(t, srv)
	owner, general, tomatoes, seeds := g.owner, g.general, g.tomatoes, g.seeds
	sam, lee, rex, tom := g.sam, g.lee, g.rex, g.tom
	say := func(c *webtest.Client, channelID, text string) *svcv1.Message { return g.say(c, channelID, text, "") }
	say(owner, general, "Good morning everyone! The **spring planting day** is this Saturday at 9.")
	say(sam, general, "I'll bring the seedlings from the greenhouse. Anyone need *basil*?")
	say(lee, tomatoes, "My Sungold tomatoes are finally ripening")
	say(sam, seeds, "Swapping tomato seeds: Black Krim for any paste variety")
	spam := say(rex, general, "CHEAP GARDEN TOOLS!!! write to me for the best deal on rakes")
	rude := say(tom, general, "Nobody wants your seedlings, Sam")
	for _, r := range []struct {
		c    *webtest.Client
		m    *svcv1.Message
		note string
	}{{sam, spam, "Spam: he posts this in every channel."}, {lee, rude, "Rude to Sam again, third time this week."}} {
		if _, err := r.c.Server.ReportMessage(ctx, connect.NewRequest(&svcv1.ReportMessageRequest{MessageId: r.m.GetId(), Note: r.note})); err != nil {
			t.Fatal(err)
		}
	}
	words, mentions := []string{"free nitro", "crypto*", "cheap garden tools"}, int32(5)
	if _, err := owner.Server.UpdateModerationSettings(ctx, connect.NewRequest(&svcv1.UpdateModerationSettingsRequest{BlockedWords: words, SetBlockedWords: true, MaxMentions: &mentions})); err != nil {
		t.Fatal(err)
	}
	if _, err := rex.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: seeds, Text: "Crypto giveaway for gardeners, DM me"})); err == nil {
		t.Fatal("a blocked word went through")
	}

	// each shoots what set up shows, light then dark.
	each := func(p *page, name string) {
		shoot(t, p, filepath.Join(dir, name+".png"))
		dark(t, p, true)
		shoot(t, p, filepath.Join(dir, name+"-dark.png"))
		dark(t, p, false)
	}
	open := func(sub string) (*page, *page) {
		desk := openPage(t, browser, sub, 1280, 800)
		desk.signIn(srv, sub)
		desk.openChannel("general")
		desk.seesOnce("Nobody wants your seedlings, Sam")
		phone := openTab(t, desk, sub+" on a phone", 390, 844)
		phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
		phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length >= 4`)
		return desk, phone
	}
	inesDesk, inesPhone := open("ines")

	t.Log("the reports badge")
	inesDesk.waitFor("the badge", toolJS("Moderation")+`?.querySelector(".badge")?.textContent === "2"`)
	each(inesDesk, "safety-reports-badge")
	inesPhone.click(`.channel-view button.menu-button`)
	inesPhone.waitFor("the drawer", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible" && `+toolJS("Moderation")+`?.querySelector(".badge")?.textContent === "2"`)
	inesPhone.eval0(toolJS("Moderation") + `.scrollIntoView({block: "center"})`)
	each(inesPhone, "safety-reports-badge-phone")
	inesPhone.run(press("Escape", 27, "", 0))
	inesPhone.waitFor("the drawer closed", `getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)

	t.Log("the timeout choices on a member's card")
	timeoutMenu := func(p *page, who string) {
		p.clickJS(who+"'s name", fmt.Sprintf(`[...document.querySelectorAll(".channel-view .author")].find(b => b.textContent === %s)`, js(who)))
		p.waitFor(who+"'s card", `!!document.querySelector("dialog[open] .member-card")`)
		p.clickJS("Time out", buttonJS("dialog[open] .mod-actions", "Time out"))
		p.clickJS("1 day", `[...document.querySelectorAll("dialog[open] .timeout-length")].find(l => l.textContent === "1 day").querySelector("input")`)
		p.setText(`document.querySelector("dialog[open] .reason-field input")`, "Insulting other members, after a warning")
		p.eval0(`document.activeElement.blur()`)
	}
	timeoutMenu(inesDesk, "Tom Vale")
	each(inesDesk, "safety-timeout-menu")
	timeoutMenu(inesPhone, "Tom Vale")
	each(inesPhone, "safety-timeout-menu-phone")
	inesPhone.closeDialog()
	inesDesk.clickJS("Time out for 1 day", buttonJS("dialog[open] .reason-confirm", "Time out for 1 day"))
	inesDesk.waitFor("the card saying until when", `!!document.querySelector("dialog[open] .timeout-status")`)
	inesDesk.closeDialog()

	t.Log("the timed-out member's composer")
	tomDesk, tomPhone := open("tom")
	for _, p := range []*page{tomDesk, tomPhone} {
		p.waitFor("the composer timed out", `document.querySelector(".channel-view .composer-input")?.disabled && !!`+holdJS)
	}
	each(tomDesk, "safety-timed-out")
	each(tomPhone, "safety-timed-out-phone")

	t.Log("the moderation screen: lockdown and filters")
	mayaDesk, mayaPhone := open("maya")
	two := svcv1.MemberRole_MEMBER_ROLE_MODERATOR
	if _, err := owner.Server.UpdateModerationSettings(ctx, connect.NewRequest(&svcv1.UpdateModerationSettingsRequest{Require_2FaRank: &two})); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*page{mayaDesk, mayaPhone} {
		p.openTool("Moderation")
		p.clickJS("the Filters tab", `[...document.querySelectorAll('dialog[open] [role="tab"]')].find(t => t.textContent === "Filters")`)
		p.waitFor("the filters", `document.querySelector("dialog[open] .filters textarea")?.value.startsWith("free nitro")`)
	}
	mayaDesk.click(`dialog[open] .lockdown input[role="switch"]`)
	for _, p := range []*page{mayaDesk, mayaPhone} {
		p.waitFor("lockdown on", `!!document.querySelector("dialog[open] .lockdown-on")`)
		p.eval0(`document.activeElement?.blur()`)
	}
	each(mayaDesk, "safety-settings")
	each(mayaPhone, "safety-settings-phone")

	t.Log("the audit log")
	if _, err := owner.Server.KickMember(ctx, connect.NewRequest(&svcv1.KickMemberRequest{MemberId: rex.Member.GetId(), Reason: "Selling tools in every channel"})); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*page{inesDesk, inesPhone} {
		p.openAudit()
		p.waitFor("the entries", `document.querySelectorAll("dialog[open] .audit-entry").length >= 8`)
		p.eval0(`document.activeElement?.blur()`)
	}
	each(inesDesk, "safety-audit-log")
	each(inesPhone, "safety-audit-log-phone")

	t.Log("a slowmode countdown")
	slow := int32(30)
	if _, err := owner.Chat.UpdateChannel(ctx, connect.NewRequest(&svcv1.UpdateChannelRequest{ChannelId: general, SlowmodeS: &slow})); err != nil {
		t.Fatal(err)
	}
	samDesk := openPage(t, browser, "sam", 1280, 800)
	samDesk.signIn(srv, "sam")
	samDesk.openChannel("general")
	samDesk.send("Saturday it is, I'll bring coffee too")
	samDesk.typeInto(".channel-view .composer .composer-input", "And the folding tables")
	samDesk.waitFor("the countdown", `!!`+holdJS)
	shoot(t, samDesk, filepath.Join(dir, "safety-slowmode.png"))
}
