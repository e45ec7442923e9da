package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A send that cannot go as the person meant it: a file that did not upload, a message the
// server refused, a draft left for another channel. Nothing the person put in a message box
// goes missing without their seeing it.

// blockUploads makes the page's uploads fail at the network (on) or go through (off).
func (p *page) blockUploads(srv *webtest.Server, on bool) {
	p.t.Helper()
	p.block(srv.URL+"/upload", on)
}

// look writes a screenshot to the folder HEARTH_LOOK names, for a person to look at.
func look(t *testing.T, p *page, name string) {
	t.Helper()
	if dir := os.Getenv("HEARTH_LOOK"); dir != "" {
		shoot(t, p, filepath.Join(dir, name+".png"))
	}
}

// attach gives the composer in scope a file, as the attach button's file picker does.
func (p *page) attach(scope, path string) {
	p.t.Helper()
	p.run(chromedp.SetUploadFiles(chromedp.CSS(scope+" input[type=file]"), []string{path}))
}

// uploadRowJS finds the composer's row for the file named name.
func uploadRowJS(scope, name string) string {
	return `[...document.querySelectorAll(` + js(scope+" .upload") + `)].find(r => r.querySelector(".upload-name")?.textContent === ` + js(name) + `)`
}

// latest is the newest message of a channel as the server has it.
func latest(t *testing.T, c *webtest.Client, channelID string) *svcv1.Message {
	t.Helper()
	res, err := c.Chat.ListMessages(context.Background(), connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: channelID, Limit: 1}))
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Msg.GetMessages()
	if len(msgs) == 0 {
		return nil
	}
	return msgs[len(msgs)-1]
}

func names(m *svcv1.Message) []string {
	var out []string
	for _, a := range m.GetAttachments() {
		out = append(out, a.GetName())
	}
	return out
}

// TestBrowserFailedUploadHoldsTheMessageBack: a message whose file failed to upload does not go
// without it. Send is refused with a notice that says what to do; the file stays in the box,
// with its error, until the person uploads it again (then the message goes with it) or
// removes it (then it goes without, as they chose).
func TestBrowserFailedUploadHoldsTheMessageBack(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signUp(srv, "", "alice", "Alice")
	alice.openChannel("general")
	box := ".channel-view .composer .composer-input"

	alice.blockUploads(srv, true)
	alice.typeInto(box, "here is the report")
	alice.attach(".channel-view", writePNG(t, "report.png", 40, 30))
	alice.waitFor("the upload failed, with a way to try again", uploadRowJS(".channel-view", "report.png")+`?.matches(".upload-error") && !!document.querySelector('.channel-view button[aria-label="Upload report.png again"]')`)
	alice.typeInto(box, "")
	alice.run(enter())
	alice.waitFor("the send refused, saying why", `[...document.querySelectorAll(".notice-error .notice-text")].some(n => n.textContent.includes("report.png did not upload: remove it or try it again"))`)
	look(t, alice, "failed-upload-refused")
	if got := eval[string](alice, `document.querySelector(`+js(box)+`).value`); got != "here is the report" {
		t.Errorf("after the refused send the box holds %q, want the text kept", got)
	}
	if n := eval[int](alice, `document.querySelectorAll(".channel-view .msg-pending").length`); n != 0 {
		t.Errorf("%d messages on their way, want none", n)
	}
	if m := latest(t, owner, ids["general"]); m != nil {
		t.Fatalf("the server has %q with files %v, want no message", m.GetText(), names(m))
	}

	t.Log("the upload tried again, then the message goes with its file")
	alice.blockUploads(srv, false)
	alice.click(`.channel-view button[aria-label="Upload report.png again"]`)
	alice.waitFor("the file uploaded", uploadRowJS(".channel-view", "report.png")+`?.querySelector(".upload-status")?.textContent.endsWith("B") && !document.querySelector(".channel-view .upload-error")`)
	alice.typeInto(box, "")
	alice.run(enter())
	alice.waitFor("the message sent", `!document.querySelector(".channel-view .upload") && !document.querySelector(".channel-view .msg-pending")`)
	if m := latest(t, owner, ids["general"]); m.GetText() != "here is the report" || len(names(m)) != 1 || names(m)[0] != "report.png" {
		t.Fatalf("the server has %q with files %v, want the text with report.png", m.GetText(), names(m))
	}

	t.Log("a failed file removed: the message goes without it, as chosen")
	alice.blockUploads(srv, true)
	alice.typeInto(box, "no picture after all")
	alice.attach(".channel-view", writePNG(t, "broken.png", 20, 20))
	alice.waitFor("the upload failed", uploadRowJS(".channel-view", "broken.png")+`?.matches(".upload-error")`)
	alice.click(`.channel-view button[aria-label="Remove broken.png"]`)
	alice.waitFor("the file gone from the box", `!document.querySelector(".channel-view .upload")`)
	alice.typeInto(box, "")
	alice.run(enter())
	alice.waitFor("the message sent", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .msg-pending")`)
	if m := latest(t, owner, ids["general"]); m.GetText() != "no picture after all" || len(names(m)) != 0 {
		t.Fatalf("the server has %q with files %v, want the text alone", m.GetText(), names(m))
	}
	alice.noErrors(srv.URL)
}

// TestBrowserEditAMessageNotSent: a message the server refuses for good (here: the other member
// of the DM blocked the sender) offers Edit beside Retry and Discard. Edit puts its text and its
// file back in the message box and takes the failed copy away; changed and sent again (the
// block lifted), it goes with the same file. While the box holds a draft of its own, Edit does
// not replace it.
func TestBrowserEditAMessageNotSent(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	aliceAPI := srv.Join("alice")
	bobAPI := srv.Join("bob")
	ctx := context.Background()
	dm, err := aliceAPI.Chat.OpenDM(ctx, connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{bobAPI.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	dmID := dm.Msg.GetChannel().GetId()
	if _, err := bobAPI.Server.BlockMember(ctx, connect.NewRequest(&svcv1.BlockMemberRequest{MemberId: aliceAPI.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	bobName := bobAPI.Member.GetDisplayName()
	if bobName == "" {
		bobName = bobAPI.Member.GetUsername()
	}
	alice.openChannel(bobName)
	box := ".channel-view .composer .composer-input"

	alice.typeInto(box, "see the plan")
	alice.attach(".channel-view", writePNG(t, "plan.png", 40, 30))
	alice.waitFor("the file uploaded", uploadRowJS(".channel-view", "plan.png")+`?.querySelector(".upload-status")?.textContent.endsWith("B")`)
	alice.typeInto(box, "")
	alice.run(enter())
	failed := `document.querySelector(".channel-view .msg-failed")`
	alice.waitFor("the message not sent, with Retry, Edit and Discard", `[...(`+failed+`?.querySelectorAll(".pending-error button") ?? [])].map(b => b.textContent).join() === "Retry,Edit,Discard"`)
	look(t, alice, "not-sent-with-edit")

	t.Log("with a draft in the box, Edit does not replace it")
	alice.typeInto(box, "a draft")
	alice.clickJS("Edit", `[...`+failed+`.querySelectorAll("button")].find(b => b.textContent === "Edit")`)
	alice.waitFor("told to send or empty the box first", `[...document.querySelectorAll(".notice-text")].some(n => n.textContent.includes("The message box holds a draft"))`)
	if got := eval[string](alice, `document.querySelector(`+js(box)+`).value`); got != "a draft" {
		t.Errorf("the box holds %q, want the draft kept", got)
	}
	alice.waitFor("the failed copy still there", `!!`+failed)
	alice.eval0(`document.querySelector(` + js(box) + `).select()`)
	alice.run(press("Backspace", 8, "", 0))
	alice.waitFor("the box empty", `document.querySelector(`+js(box)+`).value === ""`)

	t.Log("Edit: the text and the file back in the box, the failed copy gone")
	alice.clickJS("Edit", `[...`+failed+`.querySelectorAll("button")].find(b => b.textContent === "Edit")`)
	alice.waitFor("the text and the file in the box, the caret at its end, the failed copy gone", `(() => {
		const b = document.querySelector(`+js(box)+`);
		return b.value === "see the plan" && document.activeElement === b && b.selectionStart === b.value.length &&
			!!`+uploadRowJS(".channel-view", "plan.png")+`?.querySelector(".upload-status") && !document.querySelector(".channel-view .msg-pending");
	})()`)
	look(t, alice, "not-sent-edited")

	if _, err := bobAPI.Server.UnblockMember(ctx, connect.NewRequest(&svcv1.UnblockMemberRequest{MemberId: aliceAPI.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	alice.typeInto(box, ", changed")
	alice.run(enter())
	alice.waitFor("the message sent", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .msg-pending") && !document.querySelector(".channel-view .upload")`)
	if m := latest(t, bobAPI, dmID); m.GetText() != "see the plan, changed" || len(names(m)) != 1 || names(m)[0] != "plan.png" {
		t.Fatalf("the server has %q with files %v, want the changed text with plan.png", m.GetText(), names(m))
	}
	alice.noErrors(srv.URL)
}

// TestBrowserDraftKeepsItsFilesAcrossChannels: what is in a channel's message box, its text and
// its files (uploaded or failed), is still there after the person looks at another channel and
// comes back; the other channel's box does not show it; and it sends as it was.
func TestBrowserDraftKeepsItsFilesAcrossChannels(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signUp(srv, "", "alice", "Alice")
	alice.openChannel("general")
	box := ".channel-view .composer .composer-input"

	alice.typeInto(box, "two pictures")
	alice.attach(".channel-view", writePNG(t, "first.png", 40, 30))
	alice.waitFor("the first uploaded", uploadRowJS(".channel-view", "first.png")+`?.querySelector(".upload-status")?.textContent.endsWith("B")`)
	alice.blockUploads(srv, true)
	alice.attach(".channel-view", writePNG(t, "second.png", 40, 30))
	alice.waitFor("the second failed", uploadRowJS(".channel-view", "second.png")+`?.matches(".upload-error")`)

	alice.openChannel("random")
	alice.waitFor("random's box empty", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .upload")`)
	alice.openChannel("general")
	alice.waitFor("general's draft back: text, the uploaded file and the failed one", `document.querySelector(`+js(box)+`).value === "two pictures" && !!`+uploadRowJS(".channel-view", "first.png")+`?.querySelector(".upload-status") && `+uploadRowJS(".channel-view", "second.png")+`?.matches(".upload-error")`)
	look(t, alice, "draft-back")

	alice.blockUploads(srv, false)
	alice.click(`.channel-view button[aria-label="Upload second.png again"]`)
	alice.waitFor("the second uploaded", `!document.querySelector(".channel-view .upload-error") && !document.querySelector(".channel-view .upload progress")`)
	alice.typeInto(box, "")
	alice.run(enter())
	alice.waitFor("the message sent", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .msg-pending") && !document.querySelector(".channel-view .upload")`)
	if m := latest(t, owner, ids["general"]); m.GetText() != "two pictures" || len(names(m)) != 2 || names(m)[0] != "first.png" || names(m)[1] != "second.png" {
		t.Fatalf("the server has %q with files %v, want the text with first.png and second.png", m.GetText(), names(m))
	}
	alice.noErrors(srv.URL)
}

// TestBrowserSignOutLeavesNothingForTheNext: a tab keeps its messages not yet sent (in
// sessionStorage) and its drafts; after the person signs out, the next one to sign in in that
// tab neither sees them nor sends them as their own.
func TestBrowserSignOutLeavesNothingForTheNext(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	srv.Join("alice")
	srv.Join("bob")
	p := openPage(t, browser, "alice then bob", 1280, 800)
	p.signIn(srv, "alice")
	p.openChannel("general")
	box := ".channel-view .composer .composer-input"

	p.blockSends(srv, true)
	p.send("alice's words")
	p.waitFor("the message waiting to go", `!!document.querySelector(".channel-view .msg-pending .pending-error")`)
	p.typeInto(box, "alice's draft")
	p.click(".me-button")
	p.clickJS("Sign out", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent.startsWith("Sign out"))`)
	p.waitFor("signed out", `!document.querySelector(".chat")`)
	p.blockSends(srv, false)

	p.signIn(srv, "bob")
	p.openChannel("general")
	p.waitFor("bob's box empty, nothing of alice's waiting", `document.querySelector(`+js(box)+`).value === "" && !document.querySelector(".channel-view .msg-pending")`)
	// The queue goes in order: had alice's message been in it, it would have gone before this.
	p.send("bob's words")
	p.seesOnce("bob's words")
	res, err := owner.Chat.ListMessages(context.Background(), connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: ids["general"], Limit: 10}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Msg.GetMessages() {
		got = append(got, m.GetText())
	}
	if len(got) != 1 || got[0] != "bob's words" {
		t.Fatalf("#general holds %q, want only bob's words", got)
	}
	p.noErrors(srv.URL)
}

// TestUnitsRestoreDraft: Edit on a message not sent puts back its text and the files still on
// the server (an unused upload goes after a day; one made more than 23 hours ago is named as
// gone); a box that holds a draft is left as it is.
func TestUnitsRestoreDraft(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, `
import * as drafts from "./src/state/drafts";
globalThis.drafts = drafts;
`)
	hour := int64(3600_000)
	now := 100 * hour
	got := eval[map[string]any](p, fmt.Sprintf(`(() => {
		const key = drafts.draftKey("http://unit.invalid", "c1", "");
		const file = (id, uploadedAt) => ({ id, name: id + ".png", contentType: "image/png", width: 1, height: 1, size: 10, uploadedAt });
		const r = drafts.restoreDraft(key, "fix me", [file("fresh", %d), file("old", %d), { ...file("unknown"), uploadedAt: undefined }], %d);
		const d = drafts.getDraft(key);
		const again = drafts.restoreDraft(key, "another", [], %d);
		return { ok: r.ok, gone: r.gone.join(), text: d.text, files: d.files.map((f) => f.attachment.id + ":" + f.size).join(), again: again.ok, after: drafts.getDraft(key).text };
	})()`, now-22*hour, now-24*hour, now, now))
	want := map[string]any{"ok": true, "gone": "old.png", "text": "fix me", "files": "fresh:10,unknown:10", "again": false, "after": "fix me"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
