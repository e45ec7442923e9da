package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// setRank has the owner give c a rank.
func setRank(t *testing.T, owner, c *webtest.Client, role svcv1.MemberRole) {
	t.Helper()
	if _, err := owner.Server.SetMemberRole(context.Background(), connect.NewRequest(&svcv1.SetMemberRoleRequest{MemberId: c.Member.GetId(), Role: role})); err != nil {
		t.Fatal(err)
	}
	c.Member.Role = role
}

// moderationCast joins the people of the moderation tests: Mia, a moderator, and Bob and Carol,
// members.
func moderationCast(t *testing.T, srv *webtest.Server, owner *webtest.Client) (mia, bob, carol *webtest.Client) {
	t.Helper()
	mia = srv.Join("mia")
	rename(t, mia, "Mia", "", "")
	setRank(t, owner, mia, svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob = srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	carol = srv.Join("carol")
	rename(t, carol, "Carol", "", "")
	return mia, bob, carol
}

// buttonJS finds the button under scope (a CSS selector) whose text is text.
func buttonJS(scope, text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].find(b => b.textContent.trim() === %s)`, js(scope+" button"), js(text))
}

// toolJS finds the sidebar's Community tool named name.
func toolJS(name string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".sidebar .tool-link")].find(b => b.querySelector(".side-name").textContent === %s)`, js(name))
}

// openTool opens one of the sidebar's Community tools by its name.
func (p *page) openTool(name string) {
	p.t.Helper()
	p.clickJS("the tool "+name, toolJS(name))
	p.waitFor("the dialog "+name, fmt.Sprintf(`document.querySelector("dialog[open]")?.getAttribute("aria-label") === %s`, js(name)))
}

// openCard opens the member card of the author named name from their message in the channel.
func (p *page) openCard(name string) {
	p.t.Helper()
	p.clickJS(name+"'s name", fmt.Sprintf(`[...document.querySelectorAll(".channel-view .author")].find(b => b.textContent === %s)`, js(name)))
	p.waitFor(name+"'s card", fmt.Sprintf(`document.querySelector("dialog[open] .member-card-name")?.textContent.startsWith(%s)`, js(name)))
}

// TestBrowserReportAndResolve: a member reports a message from its actions with a note (the
// 1,000-character limit shown before the server would refuse it); a moderator finds it in the
// reports queue with the reporter and the note, opens it in its channel, deletes it and resolves
// the report. What a member may not do is not offered to them.
func TestBrowserReportAndResolve(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	mia, bob, carol := moderationCast(t, srv, owner)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	miaPage := openPage(t, browser, "mia", 1280, 800)
	bobPage.signIn(srv, "bob")
	miaPage.signIn(srv, "mia")
	bobPage.sendAPI(t, carol, ids["general"], "cheap watches, write to me for a deal")
	bobPage.sendAPI(t, bob, ids["general"], "who let the spammer in?")
	for _, p := range []*page{bobPage, miaPage} {
		p.openChannel("general")
		p.seesOnce("cheap watches, write to me for a deal")
	}

	t.Log("a member is offered reporting others' messages, and nothing of moderation")
	spam := messageJS(".channel-view", "cheap watches")
	own := messageJS(".channel-view", "who let the spammer in?")
	if !eval[bool](bobPage, spam+`.querySelector('[aria-label="Report message"]') !== null && !`+spam+`.querySelector('[aria-label="Delete message"]') && !`+own+`.querySelector('[aria-label="Report message"]')`) {
		t.Fatalf("bob's actions on carol's and on his own message are wrong:\n%s", bobPage.describe())
	}
	if eval[bool](bobPage, `!!`+toolJS("Custom emoji")+` && (!!`+toolJS("Moderation")+` || !!`+toolJS("Bots and plugins")+`)`) {
		t.Error("a member is offered the moderators' or the admins' tools")
	}
	bobPage.openCard("Carol")
	if eval[bool](bobPage, `!!document.querySelector("dialog[open] .mod-actions")`) {
		t.Error("a member is offered kicking and banning on a card")
	}
	bobPage.closeDialog()

	t.Log("bob reports carol's message with a note")
	bobPage.clickJS("Report message", spam+`.querySelector('[aria-label="Report message"]')`)
	bobPage.waitFor("the report dialog quoting the message", `document.querySelector("dialog[open] .report-quote-text")?.textContent === "cheap watches, write to me for a deal"`)
	bobPage.allNamed("the report dialog")
	note := `document.querySelector('dialog[open] textarea')`
	bobPage.setText(note, strings.Repeat("é", 1001))
	bobPage.waitFor("the limit said, Report disabled", `document.querySelector("dialog[open] .report-count").textContent === "1 character too many: a note is at most 1,000." && `+buttonJS("dialog[open]", "Report")+`.disabled`)
	bobPage.setText(note, "Spam: he sells watches in every channel.")
	bobPage.waitFor("the count", `document.querySelector("dialog[open] .report-count").textContent === "40 / 1,000"`)
	bobPage.clickJS("Report", buttonJS("dialog[open]", "Report"))
	bobPage.waitFor("the report taken", `document.querySelector("dialog[open] .ok-row")?.textContent.startsWith("Reported.")`)
	bobPage.clickJS("Done", buttonJS("dialog[open]", "Done"))
	bobPage.waitFor("the dialog closed", `!document.querySelector("dialog")`)

	t.Log("the moderator finds it in the queue, opens it where it was written")
	miaPage.openTool("Moderation")
	report := `document.querySelector('dialog[open] .report[aria-label="Report about Carol\'s message in #general"]')`
	miaPage.waitFor("the report with the message, the reporter and the note", `(() => {
		const r = `+report+`;
		return r?.querySelector(".report-text").textContent === "cheap watches, write to me for a deal" &&
			r.querySelector(".report-note strong").textContent === "Bob" &&
			r.querySelector(".report-note-text").textContent === "Spam: he sells watches in every channel.";
	})()`)
	miaPage.allNamed("the reports queue")
	miaPage.clickJS("Open in #general", buttonJS(".report", "Open in #general"))
	miaPage.waitFor("the message highlighted in #general", `!document.querySelector("dialog") && document.querySelector(".channel-view .msg-target .msg-text")?.textContent === "cheap watches, write to me for a deal"`)

	t.Log("it deletes the message and resolves the report")
	miaPage.openTool("Moderation")
	miaPage.clickJS("Delete message", buttonJS(".report", "Delete message"))
	miaPage.clickJS("the confirmation", buttonJS(".report .confirm", "Delete"))
	miaPage.waitFor("the message deleted", `document.querySelector(".report-actions")?.textContent.includes("Message deleted.")`)
	bobPage.waitFor("the message gone for bob", `!`+spam+` && document.querySelector(".channel-view .msg-deleted")?.textContent === "This message was deleted."`)
	miaPage.clickJS("Resolve", buttonJS(".report", "Resolve"))
	miaPage.waitFor("the queue empty", `!document.querySelector(".report") && document.querySelector('dialog[open] [role="status"]')?.textContent === "No open reports."`)
	left, err := mia.Server.ListReports(ctx, connect.NewRequest(&svcv1.ListReportsRequest{}))
	if err != nil || len(left.Msg.GetReports()) != 0 {
		t.Fatalf("ListReports after resolving: %v %v, want none", left, err)
	}

	t.Log("a refusal shows the server's words: reporting a message deleted meanwhile")
	m, err := carol.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "one more watch offer"}))
	if err != nil {
		t.Fatal(err)
	}
	bobPage.seesOnce("one more watch offer")
	bobPage.clickJS("Report message", messageJS(".channel-view", "one more watch offer")+`.querySelector('[aria-label="Report message"]')`)
	bobPage.waitFor("the report dialog", `!!document.querySelector("dialog[open] textarea")`)
	if _, err := carol.Chat.DeleteMessage(ctx, connect.NewRequest(&svcv1.DeleteMessageRequest{MessageId: m.Msg.GetMessage().GetId()})); err != nil {
		t.Fatal(err)
	}
	bobPage.clickJS("Report", buttonJS("dialog[open]", "Report"))
	bobPage.waitFor("the server's refusal", `document.querySelector('dialog[open] .error-row[role="alert"]')?.textContent.includes("deleted")`)
	bobPage.closeDialog()
	for _, p := range []*page{bobPage, miaPage} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserBanKickBlock: a moderator bans a member from the member's card and the member's
// open client shows at once that they are banned (and again after a reload); the bans list shows
// the ban and lifts it, and the member joins again. A kicked member's client says they are out
// and lets them join again. Nobody is offered acting on a rank as high as their own. A block and
// a mute show what they do to DMs and to the counts.
func TestBrowserBanKickBlock(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	_, bob, carol := moderationCast(t, srv, owner)
	miaPage := openPage(t, browser, "mia", 1280, 800)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	carolPage := openPage(t, browser, "carol", 1280, 800)
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.signIn(srv, p.name)
	}
	miaPage.sendAPI(t, bob, ids["general"], "bob was here")
	miaPage.sendAPI(t, carol, ids["general"], "carol was here")
	miaPage.sendAPI(t, owner, ids["general"], "the owner was here")
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.openChannel("general")
		p.seesOnce("the owner was here")
	}

	t.Log("no kick or ban on a rank as high as one's own")
	miaPage.openCard("olivia")
	if eval[bool](miaPage, `!!document.querySelector("dialog[open] .mod-actions")`) {
		t.Error("a moderator is offered kicking the owner")
	}
	miaPage.closeDialog()

	t.Log("a ban from the card; bob's client shows it live")
	miaPage.openCard("Bob")
	miaPage.allNamed("a card with moderation")
	miaPage.clickJS("Ban", buttonJS("dialog[open] .mod-actions", "Ban"))
	miaPage.waitFor("the confirmation", `document.querySelector("dialog[open] .confirm-question")?.textContent === "Ban Bob? They leave now and cannot join again until unbanned."`)
	miaPage.clickJS("Ban, confirmed", buttonJS("dialog[open] .confirm", "Ban"))
	miaPage.waitFor("the card closed", `!document.querySelector("dialog")`)
	banned := `document.querySelector("#banned-title")?.textContent === "You are banned from Hearth"`
	bobPage.waitFor("bob's client showing the ban", banned+` && !document.querySelector(".chat")`)
	bobPage.allNamed("the banned screen")
	bobPage.run(chromedp.Reload())
	bobPage.waitFor("the ban after a reload", banned)

	t.Log("the bans list, and the ban lifted; bob joins again")
	miaPage.openTool("Moderation")
	miaPage.clickJS("the Bans tab", `document.querySelector('dialog[open] [role="tab"]:nth-child(2)')`)
	miaPage.waitFor("bob's ban", `document.querySelector('.ban[aria-label="Bob, banned"]')?.textContent.includes("Banned by Mia")`)
	miaPage.allNamed("the bans list")
	miaPage.click(`.ban button[aria-label="Unban Bob"]`)
	miaPage.clickJS("Unban, confirmed", buttonJS(".ban .confirm", "Unban"))
	miaPage.waitFor("the list empty", `!document.querySelector(".ban") && document.querySelector('dialog[open] [role="status"]')?.textContent === "Nobody is banned."`)
	miaPage.closeDialog()
	bobPage.run(chromedp.Reload())
	bobPage.join("Bob")
	bobPage.openChannel("general")
	bobPage.seesOnce("carol was here")

	t.Log("a kick: carol's client says she is out, and she can join again")
	miaPage.openCard("Carol")
	miaPage.clickJS("Kick", buttonJS("dialog[open] .mod-actions", "Kick"))
	miaPage.clickJS("Kick, confirmed", buttonJS("dialog[open] .confirm", "Kick"))
	carolPage.waitFor("carol told she is out", `document.querySelector(".welcome-box .error-row")?.textContent.startsWith("You are no longer a member")`)
	carolPage.join("Carol")
	carolPage.openChannel("general")

	t.Log("a mute and a block, and what they do")
	bobPage.sendAPI(t, carol, ids["general"], "carol is back")
	bobPage.seesOnce("carol is back")
	bobPage.openCard("Carol")
	bobPage.clickJS("Mute", buttonJS("dialog[open] .dialog-actions", "Mute"))
	bobPage.waitFor("the mute's effect said", `document.querySelector("dialog[open] .effects")?.textContent.startsWith("Muted. Carol's messages do not count in your unread and mention counts")`)
	bobPage.clickJS("Message", buttonJS("dialog[open] .dialog-actions", "Message"))
	bobPage.waitFor("the DM, marked muted", `document.querySelector('.side-link[aria-label="Carol, muted"] .side-quiet')?.textContent === "🔇"`)
	// The DM opens once OpenDM answers: only then is a channel picked after it the one shown.
	bobPage.waitFor("the DM open", `document.querySelector(".channel-title")?.textContent.endsWith("Carol")`)
	bobPage.openChannel("random")
	dm, err := carol.Chat.OpenDM(context.Background(), connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{bob.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	bobPage.sendAPI(t, carol, dm.Msg.GetChannel().GetId(), "psst, bob")
	bobPage.sendAPI(t, owner, ids["general"], "a word from the owner")
	// The owner's message is counted, carol's is not: the DM stays without a badge.
	bobPage.waitFor("#general counted", `document.querySelector('.side-link[aria-label="#general, 1 unread"]') !== null`)
	if label := bobPage.sideLabel("Carol"); label != "Carol, muted" {
		t.Errorf("the muted DM's label is %q, want no count: \"Carol, muted\"", label)
	}
	bobPage.openChannel("Carol")
	bobPage.seesOnce("psst, bob")
	bobPage.openCard("Carol")
	bobPage.clickJS("Block", buttonJS("dialog[open] .dialog-actions", "Block"))
	bobPage.waitFor("the block's effect said", `document.querySelector("dialog[open] .effects")?.textContent.startsWith("Blocked. Neither of you can open a direct message with the other")`)
	bobPage.closeDialog()
	bobPage.waitFor("the DM says nothing can be sent, in the composer's place", `document.querySelector(".channel-view .dm-block-notice")?.textContent.startsWith("You blocked Carol: messages cannot be sent") && !document.querySelector(".channel-view .composer") && document.querySelector('.side-link[aria-label="Carol, blocked"]') !== null`)
	bobPage.clickJS("Unblock", buttonJS(".dm-block-notice", "Unblock"))
	bobPage.waitFor("the notice gone, the composer back", `!document.querySelector(".dm-block-notice") && !!document.querySelector(".channel-view .composer") && document.querySelector('.side-link[aria-label="Carol, muted"]') !== null`)
	for _, p := range []*page{miaPage, bobPage, carolPage} {
		p.noErrors(srv.URL)
	}
}
