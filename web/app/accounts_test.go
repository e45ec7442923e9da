package app_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// cardOf opens a member's card from the members page.
func (p *page) cardOf(name string) {
	p.t.Helper()
	p.eval0(`location.hash = "#/community/members"`)
	p.clickJS(name+" in the members", fmt.Sprintf(`[...document.querySelectorAll(".member-row")].find(b => b.querySelector(".member-row-name").firstChild.textContent === %s)`, js(name)))
	p.waitFor(name+"'s card", fmt.Sprintf(`document.querySelector("dialog[open] .member-card-name")?.textContent.startsWith(%s)`, js(name)))
}

// noResetFor checks that the cards of these members offer no reset link.
func (p *page) noResetFor(names ...string) {
	p.t.Helper()
	for _, name := range names {
		p.cardOf(name)
		time.Sleep(200 * time.Millisecond)
		if eval[bool](p, "!!("+resetButtonJS+")") {
			p.t.Errorf("%s is offered a reset link for %s", p.name, name)
		}
		p.closeDialog()
	}
}

const resetButtonJS = `[...document.querySelectorAll("dialog[open] .reset-password button")].find(b => b.textContent === "Reset password")`

// TestBrowserPasswordResetLink: the owner opens a member's card, makes a reset link, sees until
// when it works and copies it; the link sets a new password that signs in. An admin gets the
// item on members below them, not on the owner, a bot or themselves; a member without a
// password here gets the server's refusal as it says it.
func TestBrowserPasswordResetLink(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t)
	ctx := context.Background()
	owner := srv.Join("olivia")
	rename(t, owner, "Olivia", "", "")
	tok := srv.SignUp(t, "bob", "the first password", url.Values{"display_name": {"Bob"}})
	bob := srv.Client(tok.AccessToken)
	me, err := bob.Server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	bob.Member = me.Msg.GetMember()
	ted := srv.Join("ted")
	rename(t, ted, "Ted", "", "")
	adam := srv.Join("adam")
	rename(t, adam, "Adam", "", "")
	setRank(t, owner, adam, svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	srv.CreateBot(owner, "helper")

	p := openPage(t, browser, "olivia", 1280, 800)
	p.signIn(srv, "olivia")
	p.waitFor("the chat", `!!document.querySelector(".chat")`)
	browserCall(p, "grant the clipboard", cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "clipboard-read"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: srv.URL, BrowserContextID: chromedp.FromContext(p.ctx).BrowserContextID,
	})
	p.cardOf("Bob")
	p.clickJS("Reset password", resetButtonJS)
	p.waitFor("the link", `document.querySelector('dialog[open] input[aria-label="Password reset link"]')?.value.includes("/oauth/reset?token=")`)
	p.allNamed("the reset link")
	link := eval[string](p, `document.querySelector('dialog[open] input[aria-label="Password reset link"]').value`)
	if !strings.HasPrefix(link, srv.URL+"/oauth/reset?token=") {
		t.Fatalf("the link: %s", link)
	}
	until := eval[string](p, `document.querySelector("dialog[open] .reset-box").textContent`)
	want := "Works once, until " + eval[string](p, `new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" }).format(Date.now() + 24 * 3600 * 1000)`)
	if !strings.Contains(until, want) {
		// A minute may turn between the two: one minute more is the same link.
		want2 := "Works once, until " + eval[string](p, `new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" }).format(Date.now() + 24 * 3600 * 1000 - 60000)`)
		if !strings.Contains(until, want2) {
			t.Errorf("the box says %q, want %q", until, want)
		}
	}
	p.clickJS("Copy", buttonJS("dialog[open] .reset-box", "Copy"))
	p.waitFor("copied", `document.querySelector('dialog[open] .reset-box [role="status"]').textContent === "Copied to the clipboard."`)
	if got := evalAwait[string](p, `navigator.clipboard.readText()`); got != link {
		t.Errorf("the clipboard holds %q, want the link %q", got, link)
	}
	p.closeDialog()

	t.Log("the link sets a new password, which signs in")
	bobPage := openPage(t, browser, "bob", 1000, 800)
	bobPage.run(chromedp.Navigate(link))
	bobPage.waitFor("the reset page", `!!document.querySelector("#new_password2")`)
	bobPage.setText(`document.querySelector("#new_password")`, "a brand new password")
	bobPage.setText(`document.querySelector("#new_password2")`, "a brand new password")
	bobPage.clickJS("Set the password", `document.querySelector("button[type=submit]")`)
	bobPage.waitFor("done", `location.pathname === "/oauth/reset" && !document.querySelector("#new_password2")`)
	srv.SignIn(t, "bob", "a brand new password")

	t.Log("no password here: the server's refusal, as it says it")
	p.cardOf("Ted")
	p.clickJS("Reset password", resetButtonJS)
	p.waitFor("the refusal", `document.querySelector("dialog[open] .reset-password .error-row")?.textContent.includes("no account with a password")`)
	p.closeDialog()
	p.noResetFor("helper", "Olivia")

	t.Log("an admin: for members below, not for the owner")
	a := openPage(t, browser, "adam", 1280, 800)
	a.signIn(srv, "adam")
	a.waitFor("the chat", `!!document.querySelector(".chat")`)
	a.cardOf("Bob")
	a.waitFor("Reset password", "!!("+resetButtonJS+")")
	a.closeDialog()
	a.noResetFor("Olivia", "Adam")
	p.noErrors(srv.URL)
	a.noErrors(srv.URL)
}

// TestBrowserAccountLink: signed in with the built-in issuer, the profile links to its account
// page; signed in otherwise (a login link), it does not.
func TestBrowserAccountLink(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signUp(srv, "", "maya", "Maya")
	maya.click(".me-button")
	maya.waitFor("the account link", `[...document.querySelectorAll("dialog[open] a")].some(a => a.textContent === "Account & security")`)
	href := eval[string](maya, `[...document.querySelectorAll("dialog[open] a")].find(a => a.textContent === "Account & security").href`)
	if href != srv.URL+"/oauth/account" {
		t.Fatalf("the account link goes to %s", href)
	}
	if tgt := eval[string](maya, `[...document.querySelectorAll("dialog[open] a")].find(a => a.textContent === "Account & security").target`); tgt != "_blank" {
		t.Errorf("the account page opens in %q", tgt)
	}

	olivia := openPage(t, browser, "olivia", 1280, 800)
	olivia.signIn(srv, "olivia")
	olivia.click(".me-button")
	olivia.waitFor("the profile", `[...document.querySelectorAll("dialog[open] a")].some(a => a.textContent === "Notification settings")`)
	time.Sleep(300 * time.Millisecond)
	if eval[bool](olivia, `[...document.querySelectorAll("dialog[open] a")].some(a => a.textContent === "Account & security")`) {
		t.Error("a login link's session is offered the built-in issuer's account page")
	}
	maya.noErrors(srv.URL)
	olivia.noErrors(srv.URL)
}
