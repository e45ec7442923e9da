package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/web/webtest"
	svcv1 "hearth/proto/svc/v1"
)

const pw = "correct horse battery"

// signedIn is a Connect client with the access token of a sign-in.
func signedIn(s *webtest.Server, tok webtest.Tokens) *webtest.Client { return s.Client(tok.AccessToken) }

func TestSignUpOpenCommunityJoinsAndTokensWork(t *testing.T) {
	s := webtest.Start(t)
	tok := s.SignUp(t, "Alice", pw, url.Values{"display_name": {"Alice A."}})
	if tok.TokenType != "Bearer" || tok.ExpiresIn < 3590 || tok.ExpiresIn > 3600 || tok.RefreshToken == "" || tok.IDToken == "" {
		t.Fatalf("tokens = %+v", tok)
	}
	me, err := signedIn(s, tok).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	m := me.Msg.GetMember()
	if m.GetUsername() != "alice" || m.GetDisplayName() != "Alice A." || m.GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("member = %+v", m)
	}
	// Signing in again reaches the same member.
	again := s.SignIn(t, "alice", pw)
	me2, err := signedIn(s, again).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil || me2.Msg.GetMember().GetId() != m.GetId() {
		t.Fatalf("GetMe after sign-in: %v %v", me2, err)
	}
	_ = http.StatusOK
	_ = strings.Contains
}
