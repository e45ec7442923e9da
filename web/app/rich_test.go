package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// richMessage is what a person coming from Discord or Slack writes: a quote, lists, strikethrough,
// a spoiler, a fenced block of Go, and markup that must stay text.
const richMessage = "> Plant the **beans** after the last frost.\n" +
	"Agreed, and:\n\n" +
	"- water in the morning\n- ~~sprinkle at noon~~\n\n" +
	"1. dig\n2. sow\n\n" +
	"The winner is ||Sam's pumpkin||! <b>not bold</b> [x](javascript:alert(1))\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\") // greet\n}\n```"

const richCode = "func main() {\n\tfmt.Println(\"hello\") // greet\n}"

// TestBrowserRichMarkdown: a message written with markdown shows to the other person as
// elements: a block quote, a bulleted and a numbered list, strikethrough, a spoiler hidden until
// clicked, and a code block highlighted as Go whose copy button puts the code on the clipboard;
// HTML and a javascript: link stay text.
func TestBrowserRichMarkdown(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice, bob := twoInGeneral(t, browser, srv)
	browserCall(bob, "grant the clipboard", cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "clipboard-read"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: srv.URL, BrowserContextID: chromedp.FromContext(bob.ctx).BrowserContextID,
	})

	alice.setText(`document.querySelector(".channel-view .composer .composer-input")`, richMessage)
	alice.run(enter())
	msg := messageJS(".channel-view", "Plant the beans")
	bob.waitFor("the message, its code highlighted", msg+`?.querySelector("pre.code-block code.hl .hl-keyword")?.textContent === "func"`)
	for what, check := range map[string]string{
		"the quote":                  `m.querySelector("blockquote.md-quote strong")?.textContent === "beans" && m.querySelector("blockquote").textContent === "Plant the beans after the last frost.Agreed, and:"`,
		"the bulleted list":          `[...m.querySelectorAll("ul.md-list > li")].map(l => l.textContent).join("|") === "water in the morning|sprinkle at noon"`,
		"strikethrough":              `m.querySelector("ul s")?.textContent === "sprinkle at noon"`,
		"the numbered list":          `[...m.querySelectorAll("ol.md-list > li")].map(l => l.textContent).join("|") === "dig|sow"`,
		"the code, as written":       `m.querySelector("pre.code-block code").textContent === ` + js(richCode),
		"the code, highlighted":      `m.querySelector("pre code .hl-string")?.textContent === '"hello"' && m.querySelector("pre code .hl-comment")?.textContent === "// greet"`,
		"its colours":                `getComputedStyle(m.querySelector("pre code .hl-keyword")).color !== getComputedStyle(m.querySelector("pre code")).color`,
		"HTML as text":               `!m.querySelector(".msg-text b") && m.querySelector(".msg-text").textContent.includes("<b>not bold</b>")`,
		"no javascript: link":        `m.querySelectorAll(".msg-text a").length === 0 && m.querySelector(".msg-text").textContent.includes("[x](javascript:alert(1))")`,
		"the spoiler, hidden":        `(() => { const s = m.querySelector(".spoiler"); const c = s.querySelector(".spoiler-content"); return s.getAttribute("role") === "button" && c.inert && getComputedStyle(c).visibility === "hidden" && c.textContent === "Sam's pumpkin"; })()`,
		"the spoiler, not read out":  `m.querySelector(".spoiler").getAttribute("aria-label") === "Spoiler, select to show"`,
		"a copy button for the code": `m.querySelector(".code-wrap .code-copy")?.textContent === "Copy"`,
	} {
		if !eval[bool](bob, `(() => { const m = `+msg+`; return `+check+`; })()`) {
			t.Errorf("the rendered message: %s is wrong:\n%s", what, eval[string](bob, msg+`.querySelector(".msg-text").innerHTML`))
		}
	}
	bob.allNamed("a message with a spoiler and a code block")
	for _, theme := range []string{"light", "dark"} {
		dark(t, bob, theme == "dark")
		bob.waitFor("the "+theme+" theme", `matchMedia("(prefers-color-scheme: dark)").matches === `+fmt.Sprint(theme == "dark"))
		if low := eval[string](bob, strings.Replace(lowContrastJS, `document.querySelector("dialog[open]") ?? document.body`, msg, 1)); low != "" {
			t.Errorf("%s theme: text below 4.5:1:\n%s", theme, low)
		}
	}
	dark(t, bob, false)

	t.Log("the spoiler shows when clicked, and from the keyboard")
	bob.clickJS("the spoiler", msg+`.querySelector(".spoiler")`)
	bob.waitFor("the spoiler shown", msg+`.querySelector(".spoiler-shown")?.textContent === "Sam's pumpkin" && getComputedStyle(`+msg+`.querySelector(".spoiler-shown")).visibility === "visible" && !`+msg+`.querySelector(".spoiler-content")`)
	alice.send("and ||a second secret||")
	second := messageJS(".channel-view", "and a second secret")
	alice.waitFor("alice's own spoiler, hidden too", second+`?.querySelector(".spoiler .spoiler-content")`)
	alice.eval0(second + `.querySelector(".spoiler").focus()`)
	alice.run(enter())
	alice.waitFor("shown by Enter", second+`.querySelector(".spoiler-shown")?.textContent === "a second secret"`)

	t.Log("the code's copy button")
	bob.clickJS("Copy", msg+`.querySelector(".code-copy")`)
	bob.waitFor("copied", msg+`.querySelector(".code-copy").textContent === "Copied"`)
	if got := evalAwait[string](bob, `navigator.clipboard.readText()`); got != richCode {
		t.Errorf("the clipboard holds %q, want the code %q", got, richCode)
	}
	bob.waitFor("the button back as it was", msg+`.querySelector(".code-copy").textContent === "Copy"`)
	for _, p := range []*page{alice, bob} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserEmojiShortcodes: `:ta` in the composer offers 🎉 :tada: first, with other names;
// the arrow keys move through them, Escape closes, Tab puts the emoji in; a custom emoji is
// offered too, and put in as its :name:. A message written with shortcodes (:smile: :+1:)
// shows the emoji to the other person, and so does a reaction made with one (:tada:).
func TestBrowserEmojiShortcodes(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	addEmoji(t, srv, owner.Token, "party", writePNG(t, "party.png", 64, 64))
	alice, bob := twoInGeneral(t, browser, srv)
	box := ".channel-view .composer .composer-input"
	offered := `[...document.querySelectorAll(".channel-view .emoji-complete [role=option]")].map(o => o.textContent)`
	selected := `document.querySelector('.channel-view .emoji-complete [aria-selected="true"]')?.textContent`

	t.Log(":ta offers 🎉 first; the arrows move; Escape closes; Tab picks")
	alice.typeInto(box, "we won :ta")
	alice.waitFor("the names offered, 🎉 :tada: first and chosen", offered+`[0] === "🎉:tada:" && `+selected+` === "🎉:tada:" && `+offered+`.length > 3 && `+offered+`.every(o => /^\S+:[a-z0-9_+-]*ta[a-z0-9_+-]*:$/.test(o))`)
	alice.waitFor("the box tells its list", `document.querySelector(`+js(box)+`).getAttribute("aria-activedescendant") === document.querySelector('.channel-view .emoji-complete [aria-selected="true"]').id`)
	alice.allNamed("the composer's emoji names")
	second := eval[string](alice, offered+`[1]`)
	alice.run(press("ArrowDown", 40, "", 0))
	alice.waitFor("the second chosen", selected+` === `+js(second))
	alice.run(press("ArrowUp", 38, "", 0))
	alice.waitFor("the first again", selected+` === "🎉:tada:"`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the list closed, the text as typed", `!document.querySelector(".channel-view .emoji-complete") && document.querySelector(`+js(box)+`).value === "we won :ta"`)
	alice.run(chromedp.KeyEvent("d"))
	alice.waitFor("offered again as the name goes on", selected+` === "🎉:tada:"`)
	alice.run(press("Tab", 9, "", 0))
	alice.waitFor("the emoji in the box, the list closed, the focus kept", `document.querySelector(`+js(box)+`).value === "we won 🎉 " && !document.querySelector(".channel-view .emoji-complete") && document.activeElement === document.querySelector(`+js(box)+`)`)
	alice.run(enter())
	bob.seesOnce("we won 🎉")

	t.Log("a custom emoji is offered and put in as its :name:, by Enter")
	alice.typeInto(box, "time to :par")
	alice.waitFor("the custom one first, with its picture", `document.querySelector('.channel-view .emoji-complete [aria-selected="true"] img')?.complete && `+selected+` === ":party:"`)
	alice.run(enter())
	alice.waitFor("its name in the box", `document.querySelector(`+js(box)+`).value === "time to :party: "`)
	alice.run(enter())
	bob.waitFor("the custom emoji as its picture", messageJS(".channel-view", "time to")+`?.querySelector("img.custom-emoji")?.alt === ":party:"`)

	t.Log("shortcodes typed in full show as the emoji; unknown names stay text")
	m := owner.Chat
	sent, err := m.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "morning :smile: :+1: :heart: :nothing: at 12:30:45"}))
	if err != nil {
		t.Fatal(err)
	}
	morning := messageJS(".channel-view", "morning")
	bob.waitFor("the emoji", morning+`?.querySelector(".msg-text").textContent === "morning 😄 👍 ❤️ :nothing: at 12:30:45"`)
	if got := eval[string](bob, `[...`+morning+`.querySelectorAll(".msg-text .emoji")].map(e => e.getAttribute("aria-label")).join(" ")`); got != ":smile: :+1: :heart:" {
		t.Errorf("the emoji's names: %q", got)
	}
	if _, err := m.React(context.Background(), connect.NewRequest(&svcv1.ReactRequest{MessageId: sent.Msg.GetMessage().GetId(), Emoji: ":tada:"})); err != nil {
		t.Fatal(err)
	}
	bob.waitFor("the reaction as 🎉", morning+`?.querySelector('.reaction[aria-label=":tada:: 1"] .reaction-emoji')?.textContent === "🎉"`)
	for _, p := range []*page{alice, bob} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserLightbox: a click on a picture of a message opens it large; the arrows (keys and
// buttons) go through the message's pictures, in a circle; the focus stays in the viewer and
// goes back to the picture when Escape closes it; a click beside the picture closes it too.
// On a phone, a swipe goes to the next one.
func TestBrowserLightbox(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice, bob := twoInGeneral(t, browser, srv)
	alice.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{
		writePNG(t, "one.png", 300, 200), writePNG(t, "two.png", 200, 300), writePNG(t, "three.png", 400, 250),
	}))
	alice.waitFor("three uploads done", `[...document.querySelectorAll(".channel-view .upload .upload-status")].filter(s => s.textContent.endsWith("kB") || s.textContent.endsWith(" B")).length === 3`)
	alice.typeInto(".channel-view .composer .composer-input", "three pictures")
	alice.run(enter())
	msg := messageJS(".channel-view", "three pictures")
	bob.waitFor("the pictures", `[...`+msg+`?.querySelectorAll(".att-image img") ?? []].filter(i => i.complete && i.naturalWidth > 0).length === 3`)
	viewer := `document.querySelector("dialog.lightbox[open]")`
	shows := func(p *page, name, count string) {
		t.Helper()
		p.waitFor(name+" shown, "+count, `(() => { const d = `+viewer+`; const img = d?.querySelector(".lightbox-img"); return d && img.alt === `+js(name)+` && img.complete && img.naturalWidth > 0 && d.querySelector(".lightbox-count").textContent === `+js(count)+` && d.getAttribute("aria-label") === `+js(name+" ("+count[:1]+" of 3)")+`; })()`)
	}

	t.Log("opened from the keyboard on the second picture")
	bob.eval0(msg + `.querySelectorAll(".att-image")[1].focus()`)
	bob.run(enter())
	shows(bob, "two.png", "2 / 3")
	bob.waitFor("the focus in the viewer", viewer+`.contains(document.activeElement)`)
	bob.allNamed("the picture viewer")
	bob.run(press("ArrowRight", 39, "", 0))
	shows(bob, "three.png", "3 / 3")
	bob.run(press("ArrowRight", 39, "", 0))
	shows(bob, "one.png", "1 / 3")
	bob.run(press("ArrowLeft", 37, "", 0))
	shows(bob, "three.png", "3 / 3")
	bob.click(`dialog.lightbox[open] button[aria-label="Next picture"]`)
	shows(bob, "one.png", "1 / 3")
	bob.click(`dialog.lightbox[open] button[aria-label="Previous picture"]`)
	shows(bob, "three.png", "3 / 3")
	for i := range 6 {
		bob.run(press("Tab", 9, "", 0))
		if !eval[bool](bob, `!document.activeElement || document.activeElement === document.body || `+viewer+`.contains(document.activeElement)`) {
			t.Fatalf("Tab %d left the viewer for %s", i+1, eval[string](bob, `document.activeElement.outerHTML.slice(0, 200)`))
		}
	}
	bob.run(press("Escape", 27, "", 0))
	bob.waitFor("closed, the focus back on the second picture", `!document.querySelector("dialog.lightbox") && document.activeElement === `+msg+`.querySelectorAll(".att-image")[1]`)

	t.Log("a click beside the picture closes it")
	bob.clickJS("the first picture", msg+`.querySelector(".att-image")`)
	shows(bob, "one.png", "1 / 3")
	bob.run(chromedp.MouseClickXY(120, 160))
	bob.waitFor("closed", `!document.querySelector("dialog.lightbox")`)
	bob.clickJS("the third picture", msg+`.querySelectorAll(".att-image")[2]`)
	shows(bob, "three.png", "3 / 3")
	bob.click(`dialog.lightbox[open] button[aria-label="Close"]`)
	bob.waitFor("closed by ✕", `!document.querySelector("dialog.lightbox")`)

	t.Log("on a phone, a swipe to the left shows the next")
	phone := openTab(t, bob, "bob on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/"))
	phone.waitFor("the channel", `[...`+msg+`?.querySelectorAll(".att-image img") ?? []].filter(i => i.complete).length === 3`)
	phone.clickJS("the first picture", msg+`.querySelector(".att-image")`)
	shows(phone, "one.png", "1 / 3")
	swipe(phone, 320, 420, 70, 430)
	shows(phone, "two.png", "2 / 3")
	swipe(phone, 70, 420, 320, 410)
	shows(phone, "one.png", "1 / 3")
	phone.waitFor("the page where it was", `location.hash.startsWith("#/c/")`)
	for _, p := range []*page{alice, bob, phone} {
		p.noErrors(srv.URL)
	}
}

// twoInGeneral signs Alice and Bob in, each in a window of their own, with #general open.
func twoInGeneral(t *testing.T, browser context.Context, srv *webtest.Server) (alice, bob *page) {
	t.Helper()
	alice = openPage(t, browser, "alice", 1280, 800)
	bob = openPage(t, browser, "bob", 1280, 800)
	for _, p := range []struct {
		page *page
		sub  string
		name string
	}{{alice, "alice", "Alice"}, {bob, "bob", "Bob"}} {
		p.page.signIn(srv, p.sub)
		p.page.join(p.name)
		p.page.openChannel("general")
	}
	return alice, bob
}

// swipe moves one finger across the page from (x1, y1) to (x2, y2).
func swipe(p *page, x1, y1, x2, y2 float64) {
	p.t.Helper()
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for i, step := range []struct {
			kind input.DispatchTouchEventType
			x, y float64
		}{{input.DispatchTouchEventTypeTouchStart, x1, y1}, {input.DispatchTouchEventTypeTouchMove, (x1 + x2) / 2, (y1 + y2) / 2}, {input.DispatchTouchEventTypeTouchMove, x2, y2}, {input.DispatchTouchEventTypeTouchEnd, x2, y2}} {
			points := []*input.TouchPoint{{X: step.x, Y: step.y}}
			if step.kind == input.DispatchTouchEventTypeTouchEnd {
				points = []*input.TouchPoint{}
			}
			if _, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: step.kind, TouchPoints: points}); err != nil {
				return fmt.Errorf("touch %d: %w", i, err)
			}
		}
		return nil
	}))
}

// TestBrowserThumbnailsBeforeSending: a picture picked for a message shows as a thumbnail of
// itself in the message box before it is sent, another file as a document mark; the picture's
// object URL is let go when it is removed from the box, and when the message is sent.
func TestBrowserThumbnailsBeforeSending(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	row := func(name string) string { return uploadRowJS(".channel-view", name) }
	alive := func(url string) bool {
		return evalAwait[bool](alice, `new Promise((r) => { const i = new Image(); i.onload = () => r(true); i.onerror = () => r(false); i.src = `+js(url)+`; })`)
	}
	// A URL let go is one the page revoked: an <img> of it may still draw the picture from the
	// browser's memory cache of images for a while, and the revocation may come a frame after
	// the row has gone (an effect's cleanup).
	alice.eval0(`(() => { window.revokedURLs = []; const revoke = URL.revokeObjectURL; URL.revokeObjectURL = (u) => { window.revokedURLs.push(u); revoke.call(URL, u); }; })()`)
	letGo := func(what, url string) {
		t.Helper()
		alice.waitFor(what, `window.revokedURLs.includes(`+js(url)+`)`)
	}

	alice.attach(".channel-view", writePNG(t, "garden.png", 160, 120))
	alice.waitFor("the thumbnail of the picture", row("garden.png")+`?.querySelector("img.upload-thumb")?.complete && `+row("garden.png")+`.querySelector("img.upload-thumb").naturalWidth === 160`)
	first := eval[string](alice, row("garden.png")+`.querySelector("img.upload-thumb").src`)
	if len(first) < 5 || first[:5] != "blob:" || !alive(first) {
		t.Fatalf("the thumbnail's address: %q", first)
	}
	alice.attach(".channel-view", writeFile(t, "notes.txt", "plant beans"))
	alice.waitFor("a document mark for the text file", row("notes.txt")+`?.querySelector(".upload-thumb-file") && !`+row("notes.txt")+`.querySelector("img")`)
	look(t, alice, "thumbnails")

	t.Log("removed: its object URL is let go")
	alice.clickJS("Remove garden.png", `document.querySelector('.channel-view button[aria-label="Remove garden.png"]')`)
	alice.waitFor("the row gone", `!`+row("garden.png"))
	letGo("the removed picture's object URL let go", first)

	t.Log("sent: its object URL is let go")
	alice.attach(".channel-view", writePNG(t, "beans.png", 90, 60))
	alice.waitFor("the thumbnail, uploaded", row("beans.png")+`?.querySelector("img.upload-thumb")?.naturalWidth === 90 && `+row("beans.png")+`.querySelector(".upload-status")?.textContent.endsWith("B")`)
	alice.waitFor("the text file uploaded", row("notes.txt")+`?.querySelector(".upload-status")?.textContent.endsWith("B")`)
	second := eval[string](alice, row("beans.png")+`.querySelector("img.upload-thumb").src`)
	alice.typeInto(".channel-view .composer .composer-input", "the beds")
	alice.run(enter())
	alice.waitFor("sent, the box empty", `!document.querySelector(".channel-view .upload") && `+messageJS(".channel-view", "the beds")+`?.querySelector('.att-image img[alt="beans.png"]')`)
	letGo("the sent picture's object URL let go", second)
	alice.noErrors(srv.URL)
}

// writeFile writes a file of text and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
