package web_test

import (
	"html"
	"net/http"
	"regexp"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

var continueLink = regexp.MustCompile(`<a href="([^"]+)">Continue to `)

// TestSignUpUnderATakenMemberNameSaysTheNameGot: a sign-up whose username a bot or another
// login holds as a member name becomes a member under a numbered name, as every Join does
// (DECISIONS.md). The person was sent straight back to the app under a name they never chose;
// now the answer is a page that names both the account's username (to sign in with) and the
// member name, and its link takes them on to the app with the code. A name nobody holds still
// goes straight back.
func TestSignUpUnderATakenMemberNameSaysTheNameGot(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	if _, err := owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "bob"})); err != nil {
		t.Fatal(err)
	}
	s.Join("carol") // a login from another issuer, whose member name is carol

	for _, name := range []string{"bob", "carol"} {
		o := s.OAuth()
		res := o.Submit(t, o.Start(t, nil), signUpForm(name, pw, nil))
		want := "sign in with the username <strong>" + name + "</strong>. Someone here already goes by " + name + ", so in Hearth your name is <strong>" + name + "2</strong>."
		wantPage(t, res, http.StatusOK, want)
		if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Fatalf("%s: the page's headers: %v", name, res.Header)
		}
		m := continueLink.FindStringSubmatch(res.Body)
		if m == nil {
			t.Fatalf("%s: no link to continue: %s", name, res.Body)
		}
		next := html.UnescapeString(m[1])
		tok := o.Finish(t, webtest.Response{Status: http.StatusFound, Header: http.Header{"Location": {next}}})
		member := me(t, s, tok)
		if member.GetUsername() != name+"2" {
			t.Fatalf("%s: the member is %q, want %s2", name, member.GetUsername(), name)
		}
		// The account keeps the name typed: signing in with it reaches that member.
		if again := me(t, s, s.SignIn(t, name, pw)); again.GetId() != member.GetId() {
			t.Fatalf("%s: signing in reached another member", name)
		}
	}

	// A name nobody holds goes straight back to the app.
	o := s.OAuth()
	res := o.Submit(t, o.Start(t, nil), signUpForm("dave", pw, nil))
	if got := me(t, s, o.Finish(t, res)).GetUsername(); got != "dave" {
		t.Fatalf("dave was signed up as %q", got)
	}
}
