package app_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
)

// TestBrowserInviteOptInPhone: on a phone-sized screen, a person follows an invite link to an
// invite-only community, signs in by pasting a login link, joins with the invite code the link
// brought and an answer to the join question, browses the channels of an OPT_IN community and joins one, and finds the channel
// list in the drawer.
func TestBrowserInviteOptInPhone(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	inviteOnly := true
	mode := svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	if _, err := owner.Server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{
		InviteOnly: &inviteOnly, ChannelMode: &mode,
		JoinQuestions: []string{"Who told you about us?"}, SetJoinQuestions: true,
	})); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SetChannelAccess(ctx, connect.NewRequest(&svcv1.SetChannelAccessRequest{ChannelId: ids["general"], IsDefault: true})); err != nil {
		t.Fatal(err)
	}
	inv, err := owner.Server.CreateInvite(ctx, connect.NewRequest(&svcv1.CreateInviteRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	code := inv.Msg.GetInvite().GetCode()

	carol := openPage(t, browser, "carol", 390, 844)
	t.Log("the invite link leads to the sign-in page of the community")
	carol.run(chromedp.Navigate(srv.URL + "/invite/" + code))
	carol.waitFor("the sign-in page", `document.querySelector("#signin-title")?.textContent === "Sign in" && document.querySelector(".community-card h1")?.textContent === "Hearth"`)
	carol.waitFor("the invite out of the address bar", `location.hash === "#/"`)

	t.Log("a pasted login link signs in; the join page has the invite code")
	link := fmt.Sprintf("%s/app/#/token?url=%s&token=%s", srv.URL, url.QueryEscape(srv.URL), url.QueryEscape(srv.Token("carol")))
	carol.waitFor("the ways to sign in", `!!document.querySelector(".welcome-box form, .issuer-button")`)
	carol.allNamed("the sign-in page")
	// Where the server lists sign-in issuers, the link's form is folded under their buttons.
	carol.eval0(`document.querySelector(".link-details:not([open]) summary")?.click()`)
	carol.setText(field("Sign-in link"), link)
	carol.clickJS("Sign in with the link", `[...document.querySelectorAll(".welcome-box button[type=submit]")].find(b => b.textContent === "Sign in with the link")`)
	carol.waitFor("the join page with the code", fmt.Sprintf(`%s?.value === %s`, field("Invite code"), js(code)))
	carol.allNamed("the join page")
	carol.setText(field("Who told you about us?"), "Olivia, at the market")
	carol.join("Carol")

	t.Log("a phone shows one column; the channel list is a drawer")
	carol.waitFor("#general, a default channel, open", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)
	carol.waitFor("the drawer closed", `getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)
	if got := eval[string](carol, `getComputedStyle(document.querySelector(".channel-view .menu-button")).display`); got == "none" {
		t.Fatal("no menu button on a phone")
	}
	carol.click(".channel-view .menu-button")
	carol.waitFor("the drawer open", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible"`)
	if carol.sideLabel("random") != "" {
		t.Error("#random is in carol's sidebar before she joined it")
	}

	t.Log("browse the channels and join one")
	carol.clickJS("Browse channels", `[...document.querySelectorAll(".side-action")].find(b => b.textContent === "Browse channels")`)
	carol.waitFor("the list, with member counts", `[...document.querySelectorAll("dialog[open] .browse-item")].some(li => li.querySelector(".browse-name").textContent.startsWith("#general") && li.textContent.includes("2 members"))`)
	carol.allNamed("browsing channels")
	carol.click(`dialog[open] button[aria-label="Join #random"]`)
	carol.waitFor("#random open, the drawer closed", `document.querySelector(".channel-title")?.textContent.endsWith("random") && !document.querySelector("dialog[open]") && getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)
	carol.focusIs("#random's message box", `document.querySelector(".channel-view .composer .composer-input")`)
	carol.send("hello from a phone")
	carol.seesOnce("hello from a phone")
	carol.click(".channel-view .menu-button")
	carol.waitFor("#random in the sidebar", `document.querySelector('.side-link[aria-label="#random"]') !== null`)
	carol.openChannel("general")
	carol.waitFor("the drawer closed after choosing", `getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)
	carol.noErrors(srv.URL)
}
