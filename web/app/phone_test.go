package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// noSidewaysScrollJS is true when the page is no wider than the window (nothing to scroll to
// sideways).
const noSidewaysScrollJS = `document.documentElement.scrollWidth <= document.documentElement.clientWidth && document.body.scrollWidth <= document.documentElement.clientWidth`

// insideJS is true when the element find finds is shown whole inside the window's width.
func insideJS(find string) string {
	return `(() => { const r = (` + find + `).getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth; })()`
}

// TestBrowserPhoneLongNames: on a 375 px phone, a channel with a very long name, and a member
// with a 64-character name who writes a long unbroken word and a long URL: nothing scrolls
// sideways, the long names take one line cut with an ellipsis and keep the whole name as
// their title (a screen reader reads it whole), the time beside a name stays on one line, and
// the channel header's settings button stays on the screen, and the message box, whose
// placeholder names the channel, stays one line high. A file with a long name takes one line
// with its size whole beside it.
func TestBrowserPhoneLongNames(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t)
	g := &garden{t: t, owner: srv.Join("olivia")}
	longName := "Bartholomew Maximilian Fitzgerald-Worthington the Third of Farr"
	bart := srv.Join("bart")
	rename(t, bart, longName, "", "")
	channelName := "a-channel-with-a-really-quite-extraordinarily-long-name-indeed"
	long := g.channel(channelName, "", "A topic that goes on and on without end")
	g.say(bart, long, "Supercalifragilistic_"+strings.Repeat("x", 120)+" and https://example.org/"+strings.Repeat("very-long-path/", 12), "")

	phone := openPage(t, browser, "olivia on a phone", 375, 740)
	phone.signIn(srv, "olivia")
	phone.waitFor("the chat", `!!document.querySelector(".chat")`)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + long))
	phone.waitFor("the message", `!!document.querySelector(".channel-view article.msg[data-id] .msg-text")`)
	phone.waitFor("the page to settle", `new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true), 100)))`)
	if !eval[bool](phone, noSidewaysScrollJS) {
		t.Errorf("the page scrolls sideways at 375 px: %s", eval[string](phone, `document.documentElement.scrollWidth + " > " + document.documentElement.clientWidth`))
	}
	author := `document.querySelector(".channel-view article.msg .author")`
	for what, check := range map[string]string{
		"the author's name on one line":           author + `.getBoundingClientRect().height < 30`,
		"the author's name cut with an ellipsis":  author + `.scrollWidth > ` + author + `.clientWidth && getComputedStyle(` + author + `).textOverflow === "ellipsis"`,
		"the author's whole name as its title":    author + `.title === ` + js(longName) + ` && ` + author + `.textContent === ` + js(longName),
		"the time on one line":                    `document.querySelector(".channel-view article.msg .msg-time").getBoundingClientRect().height < 20`,
		"the channel's whole name as its title":   `document.querySelector(".channel-title .channel-name")?.title === ` + js(channelName),
		"the channel's settings button on screen": insideJS(`document.querySelector(".channel-head .channel-settings-button")`),
		"the message text inside the window":      insideJS(`document.querySelector(".channel-view article.msg .msg-text")`),
		"an empty message box one line high":      `document.querySelector(".channel-view .composer-input").value === "" && document.querySelector(".channel-view .composer-input").getBoundingClientRect().height < 50`,
	} {
		if !eval[bool](phone, check) {
			t.Errorf("%s: not so\n%s", what, phone.describe())
		}
	}

	t.Log("a file with a long name: one line, the size whole, the name as its title")
	fileName := strings.Repeat("quarterly-report-final-v2-", 5) + ".txt"
	file := filepath.Join(t.TempDir(), fileName)
	if err := os.WriteFile(file, []byte("the numbers"), 0o644); err != nil {
		t.Fatal(err)
	}
	phone.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{file}))
	phone.waitFor("the upload done", `document.querySelector(".channel-view .upload .upload-status")?.textContent.endsWith("B")`)
	phone.typeInto(".channel-view .composer .composer-input", "the report")
	phone.run(enter())
	att := `document.querySelector(".channel-view article.msg[data-id] .att-file")`
	phone.waitFor("the file in the message", att+` !== null`)
	for what, check := range map[string]string{
		"the file on one line":       att + `.getBoundingClientRect().height < 50`,
		"its name as its title":      att + `.querySelector(".att-name").title === ` + js(fileName),
		"its size whole, on screen":  att + `.querySelector(".att-size").textContent === " · 11 B" && ` + insideJS(att+`.querySelector(".att-size")`),
		"nothing scrolling sideways": noSidewaysScrollJS,
	} {
		if !eval[bool](phone, check) {
			t.Errorf("%s: not so\n%s", what, phone.describe())
		}
	}
	phone.noErrors(srv.URL)
}

// TestBrowserPhoneDrawerKeyboard: the channel list of a phone is a drawer that the keyboard
// reaches: opened from the menu button, the focus goes into it (on the open channel) and the
// channel behind is inert; Escape closes it with the focus back on the menu button; a channel
// picked in it opens with the focus in its message box (on a touch screen, in its messages).
func TestBrowserPhoneDrawerKeyboard(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	phone := openPage(t, browser, "alice on a phone", 375, 740)
	phone.signIn(srv, "alice")
	phone.join("Alice")
	phone.openChannel("general")
	menu := `document.querySelector(".channel-view .menu-button")`
	current := `document.querySelector(".sidebar .side-link.current")`
	phone.waitFor("the menu button", menu+` !== null`)
	phone.eval0(menu + `.focus()`)
	phone.run(enter())
	phone.waitFor("the drawer open", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible"`)
	phone.focusIs("#general in the drawer", current)
	if !eval[bool](phone, `document.querySelector("main.main").inert`) {
		t.Errorf("the channel behind the open drawer is not inert")
	}
	phone.allNamed("the drawer")
	phone.run(press("Escape", 27, "", 0))
	phone.waitFor("the drawer closed", `getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden" && !document.querySelector("main.main").inert`)
	phone.focusIs("the menu button", menu)

	phone.run(enter())
	phone.focusIs("#general in the drawer", current)
	for i := 0; i < 10 && eval[string](phone, focusedJS) != "#random"; i++ {
		phone.run(press("Tab", 9, "", 0))
	}
	phone.focusIs("#random in the drawer", `[...document.querySelectorAll(".side-link")].find(a => a.getAttribute("aria-label") === "#random")`)
	phone.run(enter())
	phone.waitFor("#random open, the drawer closed", `document.querySelector(".channel-title")?.textContent.endsWith("random") && getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)
	phone.focusIs("#random's message box", `document.querySelector(".channel-view .composer .composer-input")`)
	if !eval[bool](phone, noSidewaysScrollJS) {
		t.Errorf("the page scrolls sideways at 375 px")
	}

	t.Log("on a touch screen the channel picked takes the focus, not its box (no on-screen keyboard over it)")
	phone.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5})
		return err
	}))
	phone.waitFor("a coarse pointer", `matchMedia("(pointer: coarse)").matches`)
	phone.eval0(menu + `.focus()`)
	phone.run(enter())
	phone.focusIs("#random in the drawer", current)
	phone.run(press("Tab", 9, "", 8))
	phone.focusIs("#general in the drawer", `[...document.querySelectorAll(".side-link")].find(a => a.getAttribute("aria-label") === "#general")`)
	phone.run(enter())
	phone.waitFor("#general open", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)
	phone.focusIs("#general's messages", `document.querySelector(".channel-view .message-list")`)
	phone.noErrors(srv.URL)
}
