package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
)

// watchAlerts records, in window.alerts, what a screen reader is told by the notices' alerts:
// the text of each role="alert" element added to the page, and "changed: text" for a change
// inside one already there (which would be read out again).
const watchAlerts = `(() => {
	window.alerts = [];
	new MutationObserver((records) => {
		for (const r of records) {
			const inside = (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest(".notices [role=alert]");
			if (inside) { window.alerts.push("changed: " + inside.textContent); continue; }
			for (const n of r.addedNodes) {
				if (n.nodeType !== 1) continue;
				for (const a of [n, ...n.querySelectorAll("[role=alert]")]) {
					if (a.getAttribute("role") === "alert" && a.closest(".notices")) window.alerts.push(a.textContent);
				}
			}
		}
	}).observe(document.body, { childList: true, subtree: true, characterData: true });
})()`

// TestBrowserErrorNoticesStayUntilDismissed: a refusal is told in a notice that stays until the
// person dismisses it (its ✕, or Escape), so that one who looked away still learns that what
// they did failed; it is announced once, as an alert, when it comes; the same refusal again
// shows once, counted; info (the composer's ten files) still goes by itself, and the error
// outlives it, unchanged and not announced again. With a thread open, Escape dismisses the
// notice first and closes the thread only after.
func TestBrowserErrorNoticesStayUntilDismissed(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	// A message with as many different reactions as the server takes (API.md: 50): one more is
	// refused, by the server, with its reason.
	sent, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "a full message"}))
	if err != nil {
		t.Fatal(err)
	}
	full := sent.Msg.GetMessage()
	for i := range 50 {
		if _, err := owner.Chat.React(ctx, connect.NewRequest(&svcv1.ReactRequest{MessageId: full.GetId(), Emoji: fmt.Sprintf(":r%02d:", i)})); err != nil {
			t.Fatal(err)
		}
	}

	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.seesOnce("a full message")
	alice.eval0(watchAlerts)
	message := messageJS(".channel-view", "a full message")
	reactThumbsUp := func() {
		t.Helper()
		alice.clickJS("Add reaction", message+`.querySelector('[aria-label="Add reaction"]')`)
		alice.click(`dialog[open] section[aria-label="Frequently used"] .emoji-cell`)
		alice.waitFor("the picker closed", `!document.querySelector("dialog[open]")`)
	}
	const errors = `[...document.querySelectorAll(".notices .notice-error")]`
	refusal := "Could not react: message " + full.GetId() + " already has 50 different emoji reactions; the limit is 50"

	t.Log("a refusal: one error notice, an alert, announced once")
	reactThumbsUp()
	alice.waitFor("the error notice", errors+`.length === 1 && `+errors+`[0].querySelector("[role=alert]").textContent === `+js("⚠ "+refusal))
	if got := eval[[]string](alice, `window.alerts`); len(got) != 1 || got[0] != "⚠ "+refusal {
		t.Errorf("the alerts told: %q, want the refusal once", got)
	}

	t.Log("the same refusal again: still one notice, counted, told again as a new alert")
	reactThumbsUp()
	alice.waitFor("one notice, counted twice", errors+`.length === 1 && `+errors+`[0].querySelector("[role=alert]").textContent === `+js("⚠ "+refusal+" (2 times)"))
	if got := eval[[]string](alice, `window.alerts`); len(got) != 2 || got[1] != "⚠ "+refusal+" (2 times)" {
		t.Errorf("the alerts told: %q, want the refusal, then once more with its count", got)
	}
	alice.eval0(`window.kept = document.querySelector(".notices .notice-error")`)

	t.Log("info goes by itself; the error outlives it, the same element, not told again")
	files := make([]string, 11)
	for i := range files {
		files[i] = writePNG(t, fmt.Sprintf("f%02d.png", i), 8, 8)
	}
	alice.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), files))
	const info = `document.querySelector(".notices [role=status] .notice-info")`
	alice.waitFor("the info notice, in the polite region", info+`?.textContent.startsWith("A message takes at most 10 files.")`)
	alice.waitFor("the ten files uploaded", `document.querySelectorAll(".channel-view .upload").length === 10 && !document.querySelector(".channel-view .upload-progress")`)
	alice.waitFor("the info notice gone by itself", `!`+info)
	if !eval[bool](alice, `document.querySelector(".notices .notice-error") === window.kept && window.kept.isConnected`) {
		t.Fatalf("the error notice went with the info, or was made again")
	}
	if got := eval[[]string](alice, `window.alerts`); len(got) != 2 {
		t.Errorf("the alerts told: %q, want only the two refusals", got)
	}

	t.Log("Escape in the message box dismisses the error; the box keeps the focus")
	alice.typeInto(".channel-view .composer .composer-input", "a draft")
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the error dismissed", `!document.querySelector(".notices .notice")`)
	if got := eval[string](alice, `document.activeElement.value ?? ""`); got != "a draft" {
		t.Errorf("after Escape the focus is on %q, want the message box with its draft", got)
	}

	t.Log("its ✕ dismisses it, and the focus goes back to the message box")
	reactThumbsUp()
	alice.waitFor("the error notice, counted from one again", errors+`.length === 1 && `+errors+`[0].textContent.startsWith("⚠ "+`+js(refusal)+`) && !`+errors+`[0].querySelector(".notice-count")`)
	alice.eval0(`document.querySelector(".notices .notice-error button").focus()`)
	if name := eval[string](alice, `document.activeElement.getAttribute("aria-label")`); name != "Dismiss" {
		t.Errorf("the notice's button is named %q", name)
	}
	alice.run(enter())
	alice.waitFor("the error dismissed, the focus in the message box", `!document.querySelector(".notices .notice") && document.activeElement === document.querySelector(".channel-view .composer .composer-input")`)

	t.Log("with a thread open, Escape dismisses the notice first, then closes the thread")
	alice.clickJS("Reply in thread", message+`.querySelector('[aria-label="Reply in thread"]')`)
	alice.waitFor("the thread", `!!document.querySelector(".thread-panel")`)
	alice.clickJS("Add reaction in the thread", `document.querySelector(".thread-panel article.msg [aria-label='Add reaction']")`)
	alice.click(`dialog[open] section[aria-label="Frequently used"] .emoji-cell`)
	alice.waitFor("the error notice", errors+`.length === 1`)
	alice.typeInto(".thread-panel .composer .composer-input", "x")
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the notice dismissed", `!document.querySelector(".notices .notice")`)
	if !eval[bool](alice, `!!document.querySelector(".thread-panel")`) {
		t.Fatalf("Escape closed the thread as well as the notice")
	}
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the thread closed", `!document.querySelector(".thread-panel")`)
	if got := eval[[]string](alice, `window.alerts`); len(got) != 4 || strings.Contains(strings.Join(got, "\n"), "changed:") {
		t.Errorf("the alerts told: %q, want each of the four refusals once", got)
	}
	alice.allNamed("the chat with notices")
	alice.noErrors(srv.URL)
}

// TestUnitsNoticesAreBounded: the notices shown stay few (Session.tell): the same one again
// replaces the older, counted and newest; past three, the oldest info makes room first, then
// the oldest error; a dismissed notice is gone, and dismissing it again changes nothing.
func TestUnitsNoticesAreBounded(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	p.eval0(`window.s = units.newSession()`)
	shown := func() string {
		t.Helper()
		return eval[string](p, `s.notices.map((n) => n.kind[0] + ":" + n.text + (n.count > 1 ? "x" + n.count : "")).join(" ")`)
	}
	p.eval0(`s.act.tell("one", "error"), s.act.tell("two", "error"), s.act.tell("one", "error")`)
	if got := shown(); got != "e:two e:onex2" {
		t.Errorf("after one, two, one: %q, want two, then one counted twice", got)
	}
	p.eval0(`s.act.tell("note", "info"), s.act.tell("three", "error")`)
	if got := shown(); got != "e:two e:onex2 e:three" {
		t.Errorf("past three with an info among them: %q, want the info gone first", got)
	}
	p.eval0(`s.act.tell("four", "error")`)
	if got := shown(); got != "e:onex2 e:three e:four" {
		t.Errorf("past three errors: %q, want the oldest error gone", got)
	}
	p.eval0(`s.act.tell("one", "info")`)
	if got := shown(); got != "e:onex2 e:three e:four" {
		t.Errorf("an info while three errors show: %q, want the errors kept", got)
	}
	p.eval0(`s.act.dismiss(s.notices[1].id), s.act.dismiss(12345)`)
	if got := shown(); got != "e:onex2 e:four" {
		t.Errorf("after dismissing three: %q", got)
	}
}
