package app_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// insertText replaces what the text box sel holds with text, as typing or pasting does: the
// browser's own text input (so that an attribute like maxLength would apply), not a value set
// from a script.
func (p *page) insertText(sel, text string) {
	p.t.Helper()
	p.waitFor("the focus in "+sel, fmt.Sprintf(`(() => { const el = document.querySelector(%s); el?.focus(); el?.select(); return !!el && document.activeElement === el; })()`, js(sel)))
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return err
	}))
}

// displayNameOn asks the server for the display name of the member username.
func displayNameOn(t *testing.T, c *webtest.Client, username string) string {
	t.Helper()
	res, err := c.Server.ListMembers(context.Background(), connect.NewRequest(&svcv1.ListMembersRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Msg.GetMembers() {
		if m.GetUsername() == username {
			return m.GetDisplayName()
		}
	}
	t.Fatalf("no member %s", username)
	return ""
}

// TestBrowserLimitsCountCharacters: the client counts a limit as the server does, in
// characters (code points), not in UTF-16 units, where an emoji is two. A display name of 60
// characters, 50 of them emoji (110 UTF-16 units: HTML maxLength=64 stopped it at 32 emoji),
// is typed in full, counted as 60 and saved; one of 65 characters stays in the field as
// typed, is said to be one too many, and cannot be saved: the server keeps the name before.
func TestBrowserLimitsCountCharacters(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")

	t.Log("a name of 60 characters, 110 UTF-16 units")
	name := "Sunflower " + strings.Repeat("🌻", 50)
	if utf8.RuneCountInString(name) != 60 {
		t.Fatalf("the name is %d characters", utf8.RuneCountInString(name))
	}
	alice.click(`.me-button`)
	alice.waitFor("the profile", "!!("+field("Display name")+")")
	alice.eval0(`(` + field("Display name") + `).id = "display-name"`)
	alice.insertText("#display-name", name)
	alice.waitFor("all of it typed, counted as the server counts", fmt.Sprintf(`(() => {
		const el = document.querySelector("#display-name");
		const note = document.getElementById(el.getAttribute("aria-describedby"));
		return el.value === %s && note?.textContent === "60 / 64 characters" && el.getAttribute("aria-invalid") === null;
	})()`, js(name)))
	alice.allNamed("the profile with a count")
	alice.click(`dialog[open] button[type="submit"]:not([disabled])`)
	alice.waitFor("saved", `document.querySelector("dialog[open] .ok-row")?.textContent === "Saved."`)
	if got := displayNameOn(t, owner, "alice"); got != name {
		t.Fatalf("the server has %q, want %q", got, name)
	}

	t.Log("65 characters: kept in the field, one too many, not sent")
	long := strings.Repeat("🌻", 65)
	alice.insertText("#display-name", long)
	alice.waitFor("the excess said, Save disabled", fmt.Sprintf(`(() => {
		const el = document.querySelector("#display-name");
		const note = document.getElementById(el.getAttribute("aria-describedby") ?? "");
		const save = document.querySelector('dialog[open] button[type="submit"]');
		return el.value === %s && el.getAttribute("aria-invalid") === "true" && note?.textContent === "1 character too many: a display name is at most 64." && save.disabled;
	})()`, js(long)))
	if os.Getenv("HEARTH_LIMITS_SCREENSHOT") != "" {
		shoot(t, alice, filepath.Join(os.Getenv("HEARTH_LIMITS_SCREENSHOT"), "profile-limit.png"))
	}
	// Neither Enter in the field nor a click on Save sends it.
	alice.run(enter())
	alice.eval0(`document.querySelector('dialog[open] button[type="submit"]').click()`)
	alice.waitFor(`"Saved." gone with the change`, `!document.querySelector("dialog[open] .ok-row")`)
	if got := displayNameOn(t, owner, "alice"); got != name {
		t.Fatalf("the server has %q, want the name before, %q", got, name)
	}

	t.Log("one emoji less fits, and is saved")
	fits := strings.Repeat("🌻", 64)
	alice.insertText("#display-name", fits)
	alice.waitFor("64 of 64", `document.getElementById(document.querySelector("#display-name").getAttribute("aria-describedby")).textContent === "64 / 64 characters"`)
	alice.click(`dialog[open] button[type="submit"]:not([disabled])`)
	alice.waitFor("saved", `document.querySelector("dialog[open] .ok-row")?.textContent === "Saved."`)
	if got := displayNameOn(t, owner, "alice"); got != fits {
		t.Fatalf("the server has %q, want %q", got, fits)
	}
	// The page called UpdateProfile twice, for the two saves: the name too long went nowhere
	// (a call it made would have been answered before the last one, which came after it).
	if n := eval[int](alice, `performance.getEntriesByType("resource").filter(e => e.name.endsWith("/svc.v1.ServerService/UpdateProfile")).length`); n != 2 {
		t.Errorf("the page called UpdateProfile %d times, want 2", n)
	}
	alice.noErrors(srv.URL)
}

// TestBrowserHugeImageIsAFile: an image attachment whose header claims 100,000 x 100,000
// pixels (33 bytes of PNG header) shows as a file to open, not as an image every viewer's
// browser would decode unasked; an ordinary picture is drawn inline.
func TestBrowserHugeImageIsAFile(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signUp(srv, "", "alice", "Alice")
	alice.openChannel("general")
	huge := filepath.Join(t.TempDir(), "huge.png")
	if err := os.WriteFile(huge, pngHeader(100_000, 100_000), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{huge, writePNG(t, "small.png", 64, 48)} {
		alice.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{file}))
		alice.waitFor("the upload done", `!!document.querySelector(".channel-view .upload .upload-status") && !document.querySelector(".channel-view .upload-error")`)
		alice.click(`.channel-view button[aria-label="Send"]`)
		alice.waitFor("the upload sent", `!document.querySelector(".channel-view .upload")`)
	}
	alice.waitFor("the small picture inline", `document.querySelector('.channel-view .att-image img[alt="small.png"]')?.complete`)
	alice.waitFor("the huge one as a file", `[...document.querySelectorAll(".channel-view .att-file .att-name")].some(n => n.textContent === "huge.png")`)
	if n := eval[int](alice, `document.querySelectorAll('.channel-view .att-image img[alt="huge.png"]').length`); n != 0 {
		t.Fatalf("the huge image is drawn inline %d times", n)
	}
	alice.noErrors(srv.URL)
}

// pngHeader is the start of a PNG claiming w x h pixels: its signature and header chunk.
func pngHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := binary.BigEndian.AppendUint32([]byte("\x89PNG\r\n\x1a\n"), 13)
	out = append(out, ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}
