package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestReturningMembersTakeNoInviteUse: in an invite-only community, a member who left, was
// kicked or was unbanned comes back with an invite that would admit a newcomer now (API.md: a
// valid one), but their return takes no use of it: the one-use invite a moderator made for a
// newcomer still lets the newcomer in. A kick keeps its weight: the kicked member's own
// invite, used up by their first join, does not bring them back.
func TestReturningMembersTakeNoInviteUse(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	mine := map[string]*svcv1.Invite{}
	for _, sub := range []string{"leaver", "kicked", "banned"} {
		mine[sub] = createInvite(t, mod, 0, 1)
		if _, err := c.tryJoin(sub, mine[sub].GetCode()); err != nil {
			t.Fatal(err)
		}
	}
	id := func(sub string) string {
		res, err := c.s.Client(c.s.Token(sub)).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetMember().GetId()
	}
	leaver, kicked, banned := id("leaver"), id("kicked"), id("banned")
	if _, err := c.s.Client(c.s.Token("leaver")).Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: kicked})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: banned})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: banned})); err != nil {
		t.Fatal(err)
	}

	t.Log("their own invites are used up: none comes back on it")
	for _, sub := range []string{"leaver", "kicked", "banned"} {
		_, err := c.tryJoin(sub, mine[sub].GetCode())
		wantCode(t, sub+" on their used-up invite", err, connect.CodePermissionDenied, "has been used up")
		_, err = c.tryJoin(sub, "")
		wantCode(t, sub+" without an invite", err, connect.CodePermissionDenied, "invite_code is required")
	}

	t.Log("a one-use invite brings each back, and is still there for a newcomer")
	fresh := createInvite(t, mod, 0, 1)
	for sub, want := range map[string]string{"leaver": leaver, "kicked": kicked, "banned": banned} {
		res, err := c.tryJoin(sub, fresh.GetCode())
		if err != nil || !res.GetCreated() || res.GetMember().GetId() != want {
			t.Fatalf("%s coming back: %v %v, want their member again", sub, res, err)
		}
	}
	if uses := usesOf(t, mod, fresh.GetCode()); uses != 0 {
		t.Fatalf("the invite after three returns has %d uses, want 0", uses)
	}
	if res, err := c.tryJoin("newcomer", fresh.GetCode()); err != nil || !res.GetCreated() {
		t.Fatalf("the newcomer on the invite: %v %v", res, err)
	}
	if uses := usesOf(t, mod, fresh.GetCode()); uses != 1 {
		t.Fatalf("the invite after the newcomer has %d uses, want 1", uses)
	}
	_, err := c.tryJoin("second-newcomer", fresh.GetCode())
	wantCode(t, "a second newcomer on the one-use invite", err, connect.CodePermissionDenied, "has been used up")
}

// usesOf is the uses ListInvites shows for an invite.
func usesOf(t *testing.T, by *webtest.Client, code string) int32 {
	t.Helper()
	for _, inv := range listInvites(t, by) {
		if inv.GetCode() == code {
			return inv.GetUses()
		}
	}
	t.Fatalf("invite %s is not listed", code)
	return 0
}

// TestSignUpPageSaysAtOnceWhenTheInviteWillNotDo: the sign-up page an invite link opens says
// as it opens, before anything is filled in, that the invite has been revoked, has expired or is
// used up (the invite field takes the focus); its sign-in form says it too, and that signing in
// works for members. A good invite says nothing, and nothing is checked when the community is
// not invite only.
func TestSignUpPageSaysAtOnceWhenTheInviteWillNotDo(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	good := createInvite(t, c.owner, 0, 0)
	revoked := createInvite(t, c.owner, 0, 0)
	if _, err := c.owner.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: revoked.GetCode()})); err != nil {
		t.Fatal(err)
	}
	expired := createInvite(t, c.owner, 60, 0)
	usedUp := createInvite(t, c.owner, 0, 1)
	if _, err := c.tryJoin("first", usedUp.GetCode()); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(time.Minute)
	for _, tc := range []struct {
		what, code, words string
	}{
		{"revoked", revoked.GetCode(), "has been revoked."},
		{"expired", expired.GetCode(), "has expired."},
		{"used up", usedUp.GetCode(), "has been used up."},
		{"unknown", "AAAAAAAAAA", "is not a valid invite."},
	} {
		o := c.s.OAuth()
		res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"invite": {tc.code}}).Encode())
		page := o.Get(t, res.Location(t).String())
		want := `<p class="error" role="alert" id="form-error">The invite code &#34;` + tc.code + `&#34; ` + tc.words + ` Ask whoever invited you for a new invite.</p>`
		if !strings.Contains(page.Body, want) || !strings.Contains(page.Body, `id="invite"`) || !strings.Contains(page.Body, `value="signup"`) {
			t.Errorf("the sign-up page of a %s invite does not say so at once (%s):\n%s", tc.what, want, page.Body)
		}
		if !strings.Contains(page.Body, `id="invite" name="invite" value="`+tc.code+`" required maxlength="64" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus aria-invalid="true" aria-describedby="form-error invite-hint"`) {
			t.Errorf("the %s invite's field does not take the focus, marked invalid:\n%s", tc.what, page.Body)
		}
		id := webtest.RequestID(t, page)
		signIn := o.Get(t, "/oauth/login?id="+id+"&mode=signin")
		note := `<p class="notice invite-note" role="status">The invite code &#34;` + tc.code + `&#34; ` + tc.words + ` Signing in works if you are a member already; to join, ask for a new invite.</p>`
		if !strings.Contains(signIn.Body, note) {
			t.Errorf("the sign-in form of a %s invite does not say so:\n%s", tc.what, signIn.Body)
		}
		// A submission with it is refused before any account is made.
		wantPage(t, o.Submit(t, id, signUpForm("newbie", pw, url.Values{"invite": {tc.code}})), http.StatusForbidden, tc.words)
		wantNoAccount(t, c.s, "newbie")
	}
	o := c.s.OAuth()
	res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"invite": {good.GetCode()}}).Encode())
	if page := o.Get(t, res.Location(t).String()); strings.Contains(page.Body, `class="error"`) || strings.Contains(page.Body, "invite-note") {
		t.Errorf("the sign-up page of a good invite says something is wrong:\n%s", page.Body)
	}
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(false)})); err != nil {
		t.Fatal(err)
	}
	o = c.s.OAuth()
	res = o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"invite": {revoked.GetCode()}}).Encode())
	if page := o.Get(t, res.Location(t).String()); strings.Contains(page.Body, `class="error"`) {
		t.Errorf("a community open to all finds fault with an invite:\n%s", page.Body)
	}
}
