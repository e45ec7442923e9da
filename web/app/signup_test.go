package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBrowserSignUpWithInvite: a person follows an invite link to an invite-only community,
// creates an account on the built-in issuer's page (the invite code already there), comes back
// signed in and a member, stays signed in across a reload and a token refresh, and signs out.
func TestBrowserSignUpWithInvite(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	res, err := http.Get(srv.URL + "/oauth/issuers")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /oauth/issuers: %s", res.Status)
	}
	ctx := context.Background()
	inviteOnly := true
	if _, err := owner.Server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{InviteOnly: &inviteOnly})); err != nil {
		t.Fatal(err)
	}
	inv, err := owner.Server.CreateInvite(ctx, connect.NewRequest(&svcv1.CreateInviteRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	code := inv.Msg.GetInvite().GetCode()

	dana := openPage(t, browser, "dana", 1280, 800)
	dana.run(chromedp.Navigate(srv.URL + "/invite/" + code))
	dana.waitFor("the built-in issuer's button", `[...document.querySelectorAll(".issuer-button")].some(b => b.textContent === "Create an account or sign in")`)
	dana.allNamed("the sign-in page with issuers")
	dana.clickJS("the built-in issuer's button", `[...document.querySelectorAll(".issuer-button")].find(b => b.textContent === "Create an account or sign in")`)

	t.Log("the issuer's sign-up page, with the invite code")
	dana.waitFor("the sign-up form", `location.pathname.startsWith("/oauth/") && document.querySelector("#invite")?.value === `+js(code))
	dana.setText(`document.querySelector("#username")`, "dana")
	// Typed, so that the field's maxlength applies: it counts UTF-16 units, in which this name
	// of 48 characters (the server's limit is 64) is 91.
	name := "Dana " + strings.Repeat("\U0001F33B", 43)
	dana.insertText("#display_name", name)
	dana.setText(`document.querySelector("#password")`, "a long enough password")
	dana.setText(`document.querySelector("#password2")`, "a long enough password")
	dana.clickJS("Create account and join", `[...document.querySelectorAll("button[type=submit]")].find(b => b.textContent.startsWith("Create account"))`)

	t.Log("back in the client: signed in and a member, the code gone from the address bar")
	dana.waitFor("the chat", `!!document.querySelector(".chat") && location.search === "" && location.pathname === "/app/"`)
	dana.openChannel("general")
	dana.send("hello, I just signed up")
	dana.seesOnce("hello, I just signed up")
	dana.waitFor("the profile", `document.querySelector(".me-name")?.textContent === `+js(name))

	t.Log("a reload keeps the sign-in; an expiring token is refreshed")
	refresh := eval[string](dana, creds+`.refresh`)
	if refresh == "" {
		t.Fatal("no refresh token kept")
	}
	dana.eval0(`(() => { const all = JSON.parse(localStorage.getItem("hearth.tokens")); all[location.origin].expiresAt = Date.now(); localStorage.setItem("hearth.tokens", JSON.stringify(all)); })()`)
	dana.run(chromedp.Reload())
	dana.waitFor("the chat after the reload", `!!document.querySelector(".chat")`)
	dana.seesOnce("hello, I just signed up")
	dana.waitFor("a new refresh token", creds+`.refresh !== `+js(refresh)+` && `+creds+`.expiresAt > Date.now() + 600000`)

	t.Log("signing out forgets the tokens and shows the sign-in page")
	dana.click(".me-button")
	dana.clickJS("Sign out", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent.startsWith("Sign out"))`)
	dana.waitFor("the sign-in page", `document.querySelector("#signin-title")?.textContent === "Sign in" && !`+creds)
	dana.noErrors(srv.URL)
}

// TestBrowserOwnerFinishesSetup: on a new server, the first person to sign up becomes the
// owner and is shown the setup wizard (the sidebar's note leads back to it); skipping it
// finishes the setup, after which the others may come in.
func TestBrowserOwnerFinishesSetup(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	olivia.signUp(srv, "", "olivia", "Olivia")
	olivia.waitFor("the setup note", `document.querySelector(".setup-note")?.textContent.includes("Your community is new")`)
	olivia.waitFor("the wizard", `!!document.querySelector(".wizard")`)
	olivia.clickJS("Continue the setup", `[...document.querySelectorAll(".setup-note button")].find(b => b.textContent === "Continue the setup")`)
	olivia.waitFor("the wizard at #/setup", `location.hash === "#/setup" && !!document.querySelector(".wizard")`)
	olivia.clickJS("Skip setup", `[...document.querySelectorAll(".wizard button")].find(b => b.textContent === "Skip setup")`)
	olivia.waitFor("the note and the wizard gone", `!document.querySelector(".setup-note") && !document.querySelector(".wizard")`)
	olivia.waitFor("no channel yet", `document.querySelector(".empty-main")?.textContent.includes("You are not in any channel yet.")`)
	if srv.Engine.NeedsSetup() {
		t.Fatal("the community still needs setup")
	}
	olivia.noErrors(srv.URL)
}
