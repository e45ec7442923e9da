package web_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// TestSignInPageFocusInABrowser: in Chromium, under the page's CSP, a failed sign-in comes
// back with the focus on the password field and a failed sign-up on the field in error.
// (TestSignInPagesFocusTheFieldInError checks every refusal in the HTML; this checks that a
// browser does what the HTML asks.) Skipped without Chromium unless HEARTH_REQUIRE_BROWSER.
func TestSignInPageFocusInABrowser(t *testing.T) {
	t.Parallel()
	webtest.RequireChromium(t)
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "taken", pw, nil)
	o := s.OAuth()

	browser := webtest.StartChromium(t)
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()

	authorize := s.URL + "/oauth/authorize?" + o.AuthorizeQuery(url.Values{}).Encode()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(authorize),
		chromedp.WaitVisible(chromedp.CSS(`#password`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "taken"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "wrong password"),
		chromedp.Click(chromedp.CSS(`button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`#form-error`)),
	); err != nil {
		t.Fatal(err)
	}
	if focused := focusSettles(ctx, t, "password"); focused != "password" {
		t.Fatalf("after a wrong password the focus is on %q, want password", focused)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(authorize),
		chromedp.WaitVisible(chromedp.CSS(`#password`)),
		chromedp.Click(chromedp.CSS(`p.switch a`)), // "Create an account"
		chromedp.WaitVisible(chromedp.CSS(`#password2`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "taken"),
		chromedp.SendKeys(chromedp.CSS(`#password`), pw),
		chromedp.SendKeys(chromedp.CSS(`#password2`), pw),
		chromedp.Click(chromedp.CSS(`button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`#form-error`)),
	); err != nil {
		t.Fatal(err)
	}
	if focused := focusSettles(ctx, t, "username"); focused != "username" {
		t.Fatalf("after a taken username the focus is on %q, want username", focused)
	}
}

// focusSettles returns the id of the focused element once it is want, or what it is after 5
// s. Chromium moves the focus to an autofocus field at its next rendering update, which can
// come after the page's elements are visible; the pages run no script (nor chromedp's Poll,
// which their CSP refuses), so the test asks again every 20 ms.
func focusSettles(ctx context.Context, t *testing.T, want string) string {
	t.Helper()
	var focused string
	for deadline := time.Now().Add(5 * time.Second); ; {
		var err error
		if focused, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil {
			t.Fatal(err)
		}
		if focused == want || time.Now().After(deadline) {
			return focused
		}
		time.Sleep(20 * time.Millisecond)
	}
}
