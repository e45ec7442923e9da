package app_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestBrowserSignInSaysWhenTheWaysToSignInCannotBeLoaded: when the sign-in page cannot list the
// ways to sign in (the network or the server is away), it says so and offers to try again,
// instead of showing a community with no way in but a link; trying again lists them.
func TestBrowserSignInSaysWhenTheWaysToSignInCannotBeLoaded(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	p := openPage(t, browser, "dana", 1280, 800)
	// The page's first request for the list fails as a dropped connection does.
	const failFirst = `(() => {
		const real = window.fetch;
		let failed = false;
		window.fetch = function (input, init) {
			const url = typeof input === "string" ? input : input.url;
			if (!failed && url.endsWith("/oauth/issuers")) {
				failed = true;
				return Promise.reject(new TypeError("Failed to fetch"));
			}
			return real.call(this, input, init);
		};
	})()`
	if err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: failFirst})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	p.run(chromedp.Navigate(srv.URL + "/app/"))
	p.waitFor("the error and a way to try again", `[...document.querySelectorAll(".welcome-box .error-row")].some(e => e.textContent.startsWith("Could not load the ways to sign in: cannot reach the server.") && e.querySelector("button")?.textContent === "Try again")`)
	p.clickJS("Try again", `[...document.querySelectorAll(".welcome-box .error-row button")].find(b => b.textContent === "Try again")`)
	p.waitFor("the built-in issuer's button, the error gone", `!!document.querySelector(".issuer-button") && !document.querySelector(".welcome-box .error-row")`)
	p.noErrors(srv.URL)
}
