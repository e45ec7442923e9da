package app_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// setText replaces the value of the text box find finds as typing would (the input event
// included).
func (p *page) setText(find, text string) {
	p.t.Helper()
	p.waitFor("a text box", "!!("+find+")")
	p.eval0(fmt.Sprintf(`(() => { const el = %s; el.focus(); el.value = %s; el.dispatchEvent(new Event("input", {bubbles: true})); })()`, find, js(text)))
}

// field finds the text box of a form field by its label.
func field(label string) string {
	return fmt.Sprintf(`[...document.querySelectorAll("label.field")].find(l => l.firstElementChild?.textContent === %s)?.querySelector("input, textarea")`, js(label))
}

// TestBrowserEverydayActions: typing indicators, @ mention autocomplete from the keyboard,
// editing and deleting one's own message, a DM opened from a member's card with its badge,
// presence, a profile change and a new picture seen by the other, and channel switching with
// the keyboard.
func TestBrowserEverydayActions(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t, webtest.WithPreviewAllowPrivate())
	alice := openPage(t, browser, "alice", 1280, 800)
	bob := openPage(t, browser, "bob", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	bob.signIn(srv, "bob")
	bob.join("Bob")
	alice.openChannel("general")
	bob.openChannel("general")

	t.Log("typing, and a mention completed from the keyboard")
	bob.typeInto(".channel-view .composer .composer-input", "hey @al")
	alice.waitFor("bob typing", `document.querySelector(".channel-view .typing").textContent === "Bob is typing…"`)
	bob.waitFor("alice offered", `document.querySelector('.mention-option[aria-selected="true"] .mention-name')?.textContent === "Alice"`)
	bob.run(enter())
	bob.waitFor("the mention completed", `document.querySelector(".channel-view .composer .composer-input").value === "hey @alice "`)
	bob.send("look")
	alice.seesOnce("hey @Alice look")
	alice.waitFor("the typing line cleared by the message", `document.querySelector(".channel-view .typing").textContent === ""`)

	t.Log("edit and delete one's own messages")
	alice.send("a messge with a typo")
	bob.seesOnce("a messge with a typo")
	alice.allNamed("the channel")
	alice.clickJS("Edit message", messageJS(".channel-view", "a messge")+`?.querySelector('[aria-label="Edit message"]')`)
	alice.waitFor("the edit box, focused", `document.activeElement?.getAttribute("aria-label") === "Edit message"`)
	alice.setText(`document.querySelector('textarea[aria-label="Edit message"]')`, "a message without the typo")
	alice.run(enter())
	bob.waitFor("the edit", messageJS(".channel-view", "a message without the typo")+`?.querySelector(".edited") != null`)
	alice.send("a message to take back")
	bob.seesOnce("a message to take back")
	alice.clickJS("Delete message", messageJS(".channel-view", "a message to take back")+`?.querySelector('[aria-label="Delete message"]')`)
	alice.clickJS("the confirmation", `[...document.querySelectorAll(".msg-actions .button-danger")].find(b => b.textContent === "Delete")`)
	bob.waitFor("the deletion", `[...document.querySelectorAll(".channel-view .msg-deleted")].some(e => e.textContent === "This message was deleted.") && !`+messageJS(".channel-view", "a message to take back"))

	t.Log("the markdown subset, and markup that stays text")
	alice.send("**bold** *it* `a <b>code</b>` [docs](https://example.org/docs) [bad](javascript:alert(1)) <img src=x onerror=alert(1)> <b>no</b>")
	rich := messageJS(".channel-view", "bold it")
	bob.waitFor("the rendered message", rich+` != null`)
	for what, check := range map[string]string{
		"bold":                     `m.querySelector("strong")?.textContent === "bold"`,
		"italic":                   `m.querySelector("em")?.textContent === "it"`,
		"code, its markup as text": `m.querySelector("code.code")?.textContent === "a <b>code</b>" && !m.querySelector("code b")`,
		"the http link":            `m.querySelector('a[href="https://example.org/docs"]')?.textContent === "docs" && m.querySelector('a[href="https://example.org/docs"]').rel === "noopener noreferrer nofollow ugc"`,
		"no javascript: link":      `![...m.querySelectorAll("a")].some(a => a.href.startsWith("javascript"))`,
		"no element from markup":   `!m.querySelector(".msg-text img, .msg-text b") && m.querySelector(".msg-text").textContent.includes("<img src=x onerror=alert(1)> <b>no</b>")`,
	} {
		if !eval[bool](bob, `(() => { const m = `+rich+`; return `+check+`; })()`) {
			t.Errorf("the rendered message: %s is wrong:\n%s", what, eval[string](bob, rich+`.querySelector(".msg-text").innerHTML`))
		}
	}
	alice.setText(`document.querySelector(".channel-view .composer .composer-input")`, "```\nfirst line\n  indented <i>line</i>\n```")
	alice.run(enter())
	bob.waitFor("the code block", `[...document.querySelectorAll(".channel-view pre.code-block code")].some(c => c.textContent === "first line\n  indented <i>line</i>")`)

	t.Log("a link's preview")
	picture, err := os.ReadFile(writePNG(t, "tomato.png", 120, 90))
	if err != nil {
		t.Fatal(err)
	}
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tomato.png" {
			w.Header().Set("Content-Type", "image/png")
			w.Write(picture)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>x</title><meta property="og:title" content="Growing tomatoes"><meta property="og:site_name" content="Garden notes"><meta property="og:description" content="Water in the morning."><meta property="og:image" content="http://%s/tomato.png"></head></html>`, r.Host)
	}))
	defer pages.Close()
	alice.send("read this " + pages.URL + "/article")
	bob.waitFor("the preview", `(() => {
		const p = document.querySelector(".channel-view .preview");
		const img = p?.querySelector("img");
		return p?.querySelector(".preview-title").textContent === "Growing tomatoes" && p.querySelector(".preview-site").textContent === "Garden notes" && p.querySelector(".preview-description").textContent === "Water in the morning." && img.complete && img.naturalWidth === 120;
	})()`)

	t.Log("custom emoji: in text and as a reaction; unknown names stay text")
	addEmoji(t, srv, owner.Token, "party", writePNG(t, "party.png", 64, 64))
	alice.click(`.channel-view [aria-label="Insert emoji"]`)
	alice.waitFor("the new emoji in the picker, the search focused", `!!document.querySelector('dialog[open] button[aria-label=":party:"] img') && document.activeElement?.getAttribute("aria-label") === "Search emoji"`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the picker closed", `!document.querySelector("dialog[open]")`)
	alice.send("let's :party: :nothing:")
	party := messageJS(".channel-view", "let's")
	bob.waitFor("the custom emoji as a picture, the unknown one as text", `(() => { const m = `+party+`; const img = m?.querySelector(".msg-text img.custom-emoji"); return img?.alt === ":party:" && img.complete && img.naturalWidth === 64 && m.querySelector(".msg-text").textContent.includes(":nothing:"); })()`)
	bob.clickJS("Add reaction", party+`.querySelector('[aria-label="Add reaction"]')`)
	bob.click(`dialog[open] button[aria-label=":party:"]`)
	alice.waitFor("the custom reaction", party+`?.querySelector('.reaction[aria-label=":party:: 1"] img')?.alt === ":party:"`)

	t.Log("a DM from a member's card, its badge, and presence")
	alice.clickJS("bob's name", `[...document.querySelectorAll(".channel-view .author")].find(b => b.textContent === "Bob")`)
	alice.waitFor("bob's card", `document.querySelector("dialog[open] .member-card-name")?.textContent.startsWith("Bob")`)
	alice.allNamed("a member's card")
	alice.clickJS("Message", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent === "Message")`)
	alice.waitFor("the DM open, bob online", `document.querySelector(".channel-title")?.textContent.trim() === "Bob" && document.querySelector('.channel-title .presence')?.getAttribute("aria-label") === "online"`)
	alice.send("a private word")
	bob.waitFor("the DM's badge", `document.querySelector('.side-link[aria-label="Alice, 1 unread, 1 mention"] .badge-mention')?.textContent === "1"`)
	bob.openChannel("Alice")
	bob.seesOnce("a private word")
	alice.waitFor("bob's DM read, seen from alice's side too", `document.querySelector('.side-link[aria-label="Bob"]') !== null`)

	t.Log("a group DM")
	alice.click(`button[aria-label="New direct message"]`)
	for _, name := range []string{"Bob", "olivia"} {
		alice.clickJS("choose "+name, fmt.Sprintf(`[...document.querySelectorAll("dialog[open] .pick")].find(l => l.textContent.includes(%s))?.querySelector("input")`, js(name)))
	}
	alice.clickJS("Start a group of 3", `[...document.querySelectorAll("dialog[open] button[type=submit]")].find(b => b.textContent === "Start a group of 3")`)
	alice.waitFor("the group open", `document.querySelector(".channel-title")?.textContent.trim().split(", ").sort().join() === "Bob,olivia"`)
	alice.send("a word to you both")
	bob.waitFor("the group's badge", `[...document.querySelectorAll(".side-link")].some(a => ["Alice, olivia, 1 unread, 1 mention", "olivia, Alice, 1 unread, 1 mention"].includes(a.getAttribute("aria-label")))`)
	alice.openChannel("Bob")

	t.Log("a block: the message cannot go, and says so")
	bob.clickJS("alice's name", `[...document.querySelectorAll(".channel-view .author")].find(b => b.textContent === "Alice")`)
	bob.clickJS("Block", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent === "Block")`)
	bob.waitFor("blocked", `[...document.querySelectorAll("dialog[open] button")].some(b => b.textContent === "Unblock" && b.getAttribute("aria-pressed") === "true")`)
	alice.send("are you still there?")
	alice.waitFor("the message not sent, with the reason and the choices", `(() => {
		const p = document.querySelector(".channel-view .msg-failed");
		const buttons = [...(p?.querySelectorAll(".pending-error button") ?? [])].map(b => b.textContent).join(",");
		return p?.querySelector(".msg-text")?.textContent === "are you still there?" && p.querySelector(".pending-error span").textContent.length > 0 && buttons === "Retry,Edit,Discard";
	})()`)
	alice.clickJS("Discard", `[...document.querySelectorAll(".channel-view .msg-failed button")].find(b => b.textContent === "Discard")`)
	alice.waitFor("the message gone", `!document.querySelector(".channel-view .msg-pending")`)
	bob.clickJS("Unblock", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent === "Unblock")`)
	bob.waitFor("unblocked", `[...document.querySelectorAll("dialog[open] button")].some(b => b.textContent === "Block")`)
	bob.closeDialog()

	t.Log("a new name and picture, seen by the other")
	bob.click(`.me-button`)
	bob.allNamed("the profile")
	bob.setText(field("Display name"), "Robert")
	bob.click(`dialog[open] button[type="submit"]`)
	bob.waitFor("saved", `document.querySelector("dialog[open] .ok-row")?.textContent === "Saved."`)
	bob.run(chromedp.SetUploadFiles(chromedp.CSS(`dialog[open] input[type="file"]`), []string{writePNG(t, "me.png", 96, 96)}))
	bob.waitFor("the new picture in the dialog", `document.querySelector("dialog[open] img.avatar")?.complete`)
	bob.closeDialog()
	alice.waitFor("Robert's name on the DM", `document.querySelector(".channel-title").textContent.trim() === "Robert"`)
	alice.openChannel("general")
	alice.waitFor("Robert's name and picture on his messages", `(() => {
		const m = [...document.querySelectorAll(".channel-view article.msg")].find(e => e.querySelector(".author")?.textContent === "Robert");
		const img = m?.querySelector("img.avatar");
		return !!img && img.complete && img.naturalWidth === 96;
	})()`)

	t.Log("the keyboard moves between channels")
	alice.run(press("ArrowDown", 40, "", 1)) // Alt+Down
	alice.waitFor("#random", `document.querySelector(".channel-title")?.textContent.endsWith("random")`)
	alice.run(press("ArrowUp", 38, "", 1)) // Alt+Up
	alice.waitFor("#general", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)

	t.Log("the keyboard reaches the messages and their actions")
	alice.eval0(`document.querySelector(".channel-view .composer .composer-input").focus()`)
	alice.toNewestMessage(".channel-view")
	alice.waitFor("the newest message focused", `document.activeElement === [...document.querySelectorAll(".channel-view .message-list > article.msg")].at(-1)`)
	alice.run(press("ArrowUp", 38, "", 0))
	alice.waitFor("the one before focused, its actions shown", `document.activeElement === [...document.querySelectorAll(".channel-view .message-list > article.msg")].at(-2) && getComputedStyle(document.activeElement.querySelector(".msg-actions")).display === "flex"`)
	alice.eval0(`document.activeElement.querySelector('[aria-label="Add reaction"]').focus()`)
	alice.run(enter())
	alice.waitFor("the emoji picker, its search focused", `document.activeElement?.getAttribute("aria-label") === "Search emoji"`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the picker closed", `!document.querySelector("dialog[open]")`)
	alice.eval0(`document.querySelector(".channel-view .message-list").focus()`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("back in the composer", `document.activeElement === document.querySelector(".channel-view .composer .composer-input")`)
	for _, p := range []*page{alice, bob} {
		p.noErrors(srv.URL)
	}
}

// addEmoji uploads a custom emoji (POST /emoji) as a moderator or higher.
func addEmoji(t *testing.T, srv *webtest.Server, token, name, path string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, err := mw.CreateFormFile("file", name+".png")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/emoji", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(answer), "ADDED") {
		t.Fatalf("POST /emoji: %d %s", res.StatusCode, answer)
	}
}
