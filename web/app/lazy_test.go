package app_test

import (
	"fmt"
	"strings"
	"testing"
)

// fetched is a JavaScript test of whether the page has loaded a chunk of the client whose name
// starts with prefix ("Profile-").
func fetched(prefix string) string {
	return fmt.Sprintf(`performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname.startsWith("/app/" + %s))`, js(prefix))
}

// blockChunk makes the page's requests for the chunk whose name starts with prefix fail at the
// network ("" lets every chunk through again). It pauses them with the Fetch domain (block), in
// the browser's process: Network.setBlockedURLs, set on a new tab before its first page, was once
// not in force in the page that came (CI loaded a blocked chunk), as a renderer's own state.
func (p *page) blockChunk(origin, prefix string) {
	p.t.Helper()
	chunks := origin + "/app/"
	p.mu.Lock()
	var was []string
	for u := range p.blocked {
		if strings.HasPrefix(u, chunks) {
			was = append(was, u)
		}
	}
	p.mu.Unlock()
	for _, u := range was {
		p.block(u, false)
	}
	if prefix != "" {
		p.block(chunks+prefix, true)
	}
}

// TestBrowserScreensLoadOnFirstUse: the chat starts without the screens away from it: the
// profile's chunk comes when the profile is first opened, the search's as soon as the page is
// idle, before anyone opens it. A chunk that cannot be loaded says so where its dialog would be,
// with Try again, and leaves the focus where it was; Try again, with the network back, opens
// the dialog, which gives the focus back to what opened it when it closes.
func TestBrowserScreensLoadOnFirstUse(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")

	alice.waitFor("the search's chunk, fetched while the page is idle", fetched("SearchDialog-"))
	for _, chunk := range []string{"Profile-", "People-", "Settings-", "Members-", "Reports-", "AuditLog-", "Bots-", "EmojiManager-", "PollDialog-", "Lightbox-", "highlighter-", "shortcodeTable-", "protojson-"} {
		if eval[bool](alice, fetched(chunk)) {
			t.Errorf("the chunk %s* was loaded before its screen was opened", chunk)
		}
	}

	t.Log("the profile's chunk cannot be loaded")
	alice.blockChunk(srv.URL, "Profile-")
	alice.click(".me-button")
	alice.waitFor("the failure told", `document.querySelector(".lazy-failed[role=alert]")?.textContent.startsWith("Could not load your profile")`)
	if eval[bool](alice, `!!document.querySelector("dialog")`) {
		t.Error("a dialog opened without its chunk")
	}
	alice.focusIs("the profile button, still", `document.querySelector(".me-button")`)
	look(t, alice, "lazy-failed-dialog")

	t.Log("Try again, with the network back")
	alice.blockChunk(srv.URL, "")
	alice.click(".lazy-failed button")
	alice.waitFor("the profile", `document.querySelector('dialog[open][aria-label="Your profile"]') && !document.querySelector(".lazy-failed")`)
	alice.focusIs("the profile's first control", `document.querySelector("dialog[open] button, dialog[open] input")`)
	alice.closeDialog()
	alice.focusIs("the profile button, after the profile closed", `document.querySelector(".me-button")`)

	t.Log("opened again: at once, from the chunk loaded")
	alice.click(".me-button")
	alice.waitFor("the profile", `!!document.querySelector('dialog[open][aria-label="Your profile"]')`)
	alice.closeDialog()

	t.Log("a failure in place of a part of a dialog: the custom emoji's")
	alice.blockChunk(srv.URL, "EmojiManager-")
	alice.clickJS("Custom emoji", `[...document.querySelectorAll(".tool-link")].find((b) => b.textContent.includes("Custom emoji"))`)
	alice.waitFor("the failure told in the dialog", `document.querySelector('dialog[open] .lazy-failed[role=alert]')?.textContent.startsWith("Could not load the custom emoji")`)
	look(t, alice, "lazy-failed-part")
	alice.blockChunk(srv.URL, "")
	alice.click("dialog[open] .lazy-failed button")
	alice.waitFor("the custom emoji", `!!document.querySelector("dialog[open] .emoji-manager") && !document.querySelector(".lazy-failed")`)
	alice.closeDialog()
	alice.noErrors(srv.URL)

	t.Log("the search's chunk failed while the page was idle: Ctrl+K says so; Try again brings the search, its box focused as when it opens at once")
	bob := openPage(t, browser, "bob", 1280, 800)
	bob.blockChunk(srv.URL, "SearchDialog-")
	bob.signIn(srv, "bob")
	bob.join("Bob")
	bob.openChannel("general")
	bob.run(press("k", 75, "", 2)) // Ctrl+K
	bob.waitFor("the failure told in the search's dialog", `document.querySelector("dialog[open] .lazy-failed[role=alert]")?.textContent.startsWith("Could not load the search")`)
	bob.blockChunk(srv.URL, "")
	bob.click("dialog[open] .lazy-failed button")
	bob.focusIs("the search box", `document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	bob.closeDialog()
	bob.noErrors(srv.URL)
}
