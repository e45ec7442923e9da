package app_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// focusedJS describes the focused element: its accessible label or its text.
const focusedJS = `(() => { const e = document.activeElement; if (!e || e === document.body) return "(the page)"; return e.getAttribute("aria-label") || e.textContent.trim(); })()`

// focusIs waits until the focused element is the one find finds.
func (p *page) focusIs(what, find string) {
	p.t.Helper()
	p.waitFor("the focus on "+what, fmt.Sprintf(`(() => { const e = %s; return !!e && document.activeElement === e; })()`, find))
}

// TestBrowserKeyboardKeepsItsPlace: a person on the keyboard alone never has the focus dropped
// to the top of the page when the controls under it change: asking to delete a message
// focuses Cancel, and Cancel gives it back to Delete; an edit cancelled with Escape or saved
// with Enter gives it back to Edit; a thread opened from a message has its reply box focused,
// and Escape closes it with the focus back on the thread's root in the channel.
func TestBrowserKeyboardKeepsItsPlace(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.send("a message to work on")
	alice.seesOnce("a message to work on")
	msg := messageJS(".channel-view", "a message to work on")
	control := func(label string) string {
		return msg + `?.querySelector('.msg-actions [aria-label="` + label + `"]')`
	}
	// From the composer, Shift+Up reaches the newest message, and Tab its actions. (Up alone
	// edits the person's last message: TestBrowserUpEditsTheLastOwnMessage.)
	alice.focusIs("the composer", `document.querySelector(".channel-view .composer .composer-input")`)
	alice.toNewestMessage(".channel-view")
	alice.focusIs("the message", msg)
	tabTo := func(label string) {
		t.Helper()
		for i := 0; i < 8 && eval[string](alice, focusedJS) != label; i++ {
			alice.run(press("Tab", 9, "", 0))
		}
		alice.focusIs(label, control(label))
	}

	t.Log("delete: asked, then cancelled")
	tabTo("Delete message")
	alice.run(enter())
	alice.focusIs("Cancel", msg+`?.querySelector(".msg-actions .confirm-cancel")`)
	alice.run(enter())
	alice.focusIs("Delete message again", control("Delete message"))

	t.Log("edit: cancelled with Escape, then saved with Enter")
	alice.run(press("Tab", 9, "", 8)) // Shift+Tab: Edit comes before Delete
	alice.focusIs("Edit message", control("Edit message"))
	alice.run(enter())
	alice.focusIs("the edit box", `document.querySelector('textarea[aria-label="Edit message"]')`)
	alice.run(press("Escape", 27, "", 0))
	alice.focusIs("Edit message after Escape", control("Edit message"))
	alice.run(enter())
	alice.focusIs("the edit box", `document.querySelector('textarea[aria-label="Edit message"]')`)
	alice.run(chromedp.KeyEvent(", edited"))
	alice.run(enter())
	alice.waitFor("the edit saved", msg+`?.querySelector(".edited") != null`)
	alice.focusIs("Edit message after saving", control("Edit message"))

	t.Log("delete: confirmed, the focus on what is left of the message")
	alice.run(press("Tab", 9, "", 0))
	alice.focusIs("Delete message", control("Delete message"))
	alice.run(enter())
	alice.focusIs("Cancel", msg+`?.querySelector(".msg-actions .confirm-cancel")`)
	alice.run(press("Tab", 9, "", 8))
	alice.run(enter())
	alice.waitFor("the message deleted", `!`+msg+` && !!document.querySelector(".channel-view .msg-deleted")`)
	alice.focusIs("the deleted message", `document.querySelector(".channel-view .msg-deleted")?.closest("article")`)

	t.Log("a thread opened from the keyboard, and closed with Escape")
	alice.send("a question worth a thread")
	alice.seesOnce("a question worth a thread")
	root := messageJS(".channel-view", "a question worth a thread")
	alice.toNewestMessage(".channel-view")
	alice.focusIs("the question", root)
	for i := 0; i < 8 && eval[string](alice, focusedJS) != "Reply in thread"; i++ {
		alice.run(press("Tab", 9, "", 0))
	}
	alice.focusIs("Reply in thread", root+`?.querySelector('[aria-label="Reply in thread"]')`)
	alice.run(enter())
	alice.focusIs("the thread's reply box", `document.querySelector(".thread-panel .composer .composer-input")`)
	alice.send("an answer", ".thread-panel")
	alice.waitFor("the reply counted", root+`?.querySelector(".thread-link")?.textContent === "1 reply"`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the thread closed", `!document.querySelector(".thread-panel")`)
	alice.focusIs("the thread's link in the channel", root+`?.querySelector(".thread-link")`)
	if got := eval[string](alice, focusedJS); !strings.HasPrefix(got, "1 reply") {
		t.Errorf("the focus after closing the thread: %q, want the 1 reply link", got)
	}
	alice.noErrors(srv.URL)
}

// TestBrowserDialogsGiveTheFocusBack: a dialog closed by what is done in it (an emoji picked,
// a conversation opened) gives the focus back to the control that opened it, as one closed
// with Escape does, rather than dropping it to the top of the page.
func TestBrowserDialogsGiveTheFocusBack(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.sendAPI(t, owner, ids["general"], "react to this")
	alice.seesOnce("react to this")
	msg := messageJS(".channel-view", "react to this")
	addReaction := msg + `?.querySelector('.msg-actions [aria-label="Add reaction"]')`
	openPicker := func() {
		t.Helper()
		alice.eval0(msg + `.focus()`)
		alice.eval0(addReaction + `.focus()`)
		alice.focusIs("Add reaction", addReaction)
		alice.run(enter())
		alice.focusIs("the emoji search", `document.querySelector('dialog[open] input[aria-label="Search emoji"]')`)
	}

	t.Log("the picker closed with Escape")
	openPicker()
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the picker closed", `!document.querySelector("dialog")`)
	alice.focusIs("Add reaction after Escape", addReaction)

	t.Log("an emoji picked from the keyboard")
	openPicker()
	alice.run(chromedp.KeyEvent("thumbs"))
	alice.run(press("ArrowDown", 40, "", 0))
	alice.run(enter())
	alice.waitFor("the reaction", msg+`?.querySelector(".reaction")?.getAttribute("aria-pressed") === "true"`)
	alice.focusIs("Add reaction after picking", addReaction)

	t.Log("the profile: closed with its Close button")
	alice.eval0(`document.querySelector(".me-button").focus()`)
	alice.run(enter())
	alice.focusIs("the profile's first control", `document.querySelector("dialog[open] button, dialog[open] input")`)
	alice.closeDialog()
	alice.focusIs("the profile button", `document.querySelector(".me-button")`)
	alice.noErrors(srv.URL)
}

// imeEnterJS presses Enter in the focused box as an input method does to end a composition
// (picking the characters composed): a keydown whose isComposing is true.
const imeEnterJS = `document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", code: "Enter", isComposing: true, bubbles: true, cancelable: true}))`

// TestBrowserEnterSendsShiftEnterBreaks: in the message box and the edit box, Enter sends or
// saves, Shift+Enter starts a new line, and the Enter that ends an input method's composition
// (Chinese, Japanese, Korean typing) does neither.
func TestBrowserEnterSendsShiftEnterBreaks(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	box := `document.querySelector(".channel-view .composer .composer-input")`
	shiftEnter := press("Enter", 13, "\r", 8)

	t.Log("the message box")
	alice.typeInto(".channel-view .composer .composer-input", "first line")
	alice.run(shiftEnter)
	alice.run(chromedp.KeyEvent("second line"))
	alice.waitFor("two lines in the box", box+`.value === "first line\nsecond line"`)
	alice.eval0(imeEnterJS)
	if got := eval[string](alice, box+`.value`); got != "first line\nsecond line" {
		t.Fatalf("after an input method's Enter the box holds %q", got)
	}
	if n := eval[int](alice, `document.querySelectorAll(".channel-view article.msg").length`); n != 0 {
		t.Fatalf("an input method's Enter sent a message (%d in the list)", n)
	}
	alice.run(enter())
	msg := messageJS(".channel-view", "first line")
	alice.waitFor("the message, on two lines", msg+`?.querySelector(".msg-text").innerText === "first line\nsecond line"`)

	t.Log("the edit box")
	alice.eval0(msg + `.focus()`)
	alice.eval0(msg + `.querySelector('[aria-label="Edit message"]').click()`)
	edit := `document.querySelector('textarea[aria-label="Edit message"]')`
	alice.focusIs("the edit box", edit)
	alice.run(shiftEnter)
	alice.run(chromedp.KeyEvent("third line"))
	alice.eval0(imeEnterJS)
	if !eval[bool](alice, edit+` !== null && `+edit+`.value === "first line\nsecond line\nthird line"`) {
		t.Fatalf("after an input method's Enter the edit box is gone or holds another text\n%s", alice.describe())
	}
	alice.run(enter())
	alice.waitFor("the edit saved, on three lines", msg+`?.querySelector(".edited") && `+msg+`.querySelector(".msg-text").innerText.startsWith("first line\nsecond line\nthird line")`)
	// One save: the input method's Enter asked for none (the page's requests are seen in order,
	// and the save's answer has come).
	if n := alice.countRequests("/svc.v1.ChatService/EditMessage"); n != 1 {
		t.Errorf("the edit was saved %d times, want once (by Enter, not by the input method's)", n)
	}
	if n := alice.countRequests("/svc.v1.ChatService/SendMessage"); n != 1 {
		t.Errorf("%d messages sent, want 1", n)
	}
	alice.noErrors(srv.URL)
}

// countRequests is how many requests the page has made to a URL ending with path.
func (p *page) countRequests(path string) int {
	return p.requestsWhere(func(u string) bool { return strings.HasSuffix(u, path) })
}

// requestsWhere is how many requests the page has made to URLs that match.
func (p *page) requestsWhere(match func(url string) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.requests {
		if match(u) {
			n++
		}
	}
	return n
}

// TestBrowserEscapeInAThreadIsForWhatTookIt: Escape in a thread's edit box cancels the edit,
// and Escape in its mention list closes the list; neither closes the thread, which the next
// Escape does.
func TestBrowserEscapeInAThreadIsForWhatTookIt(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.send("a question worth a thread")
	root := messageJS(".channel-view", "a question worth a thread")
	alice.clickJS("Reply in thread", root+`?.querySelector('[aria-label="Reply in thread"]')`)
	alice.focusIs("the thread's reply box", `document.querySelector(".thread-panel .composer .composer-input")`)
	alice.send("an answer", ".thread-panel")
	reply := messageJS(".thread-panel", "an answer")
	alice.waitFor("the reply in the thread", `!!`+reply+` && !document.querySelector(".thread-panel .msg-pending")`)

	t.Log("Escape in the edit box cancels the edit, and only that")
	alice.clickJS("Edit the reply", reply+`.querySelector('[aria-label="Edit message"]')`)
	alice.focusIs("the edit box", `document.querySelector('.thread-panel textarea[aria-label="Edit message"]')`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the edit cancelled", `!document.querySelector('textarea[aria-label="Edit message"]')`)
	if !eval[bool](alice, `!!document.querySelector(".thread-panel")`) {
		t.Fatalf("Escape in the edit box closed the thread")
	}

	t.Log("Escape in the mention list closes the list, and only that")
	alice.typeInto(".thread-panel .composer .composer-input", "hi @ali")
	alice.waitFor("the mention list", `!!document.querySelector(".thread-panel .mention-list")`)
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the mention list closed", `!document.querySelector(".thread-panel .mention-list")`)
	if !eval[bool](alice, `!!document.querySelector(".thread-panel")`) {
		t.Fatalf("Escape in the mention list closed the thread")
	}

	t.Log("the next Escape closes the thread")
	alice.run(press("Escape", 27, "", 0))
	alice.waitFor("the thread closed", `!document.querySelector(".thread-panel")`)
	alice.noErrors(srv.URL)
}

// toNewestMessage goes from the empty message box of scope to the newest message of its list, as
// the keyboard does: Shift+Up.
func (p *page) toNewestMessage(scope string) {
	p.t.Helper()
	p.focusIs("the message box", `document.querySelector(`+js(scope+" .composer .composer-input")+`)`)
	p.run(press("ArrowUp", 38, "", 8))
}
