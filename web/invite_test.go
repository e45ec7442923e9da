package web_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// tryJoin joins sub with an invite code and answers, moving the clock past the Join rate limit.
func (c *community) tryJoin(sub, code string, answers ...string) (*svcv1.JoinResponse, error) {
	c.clock.Advance(6 * time.Second)
	res, err := c.s.Client(c.s.Token(sub)).Server.Join(ctx, req(&svcv1.JoinRequest{InviteCode: code, Answers: answers}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

func createInvite(t *testing.T, by *webtest.Client, expires int64, maxUses int32) *svcv1.Invite {
	t.Helper()
	res, err := by.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{ExpiresInSeconds: expires, MaxUses: maxUses}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetInvite()
}

func listInvites(t *testing.T, by *webtest.Client) []*svcv1.Invite {
	t.Helper()
	res, err := by.Server.ListInvites(ctx, req(&svcv1.ListInvitesRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetInvites()
}

var inviteCode = regexp.MustCompile(`^[A-Z2-7]{10}$`)

// TestInvites: creating, listing and revoking invites, and joining an invite-only community
// with them: codes in any case, expiry on the server's clock, max_uses, revocation.
func TestInvites(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	now := c.clock.Now()
	forever := createInvite(t, mod, 0, 0)
	if !inviteCode.MatchString(forever.GetCode()) || forever.GetCreatedBy() != mod.Member.GetId() ||
		forever.GetCreatedAtMs() != now.UnixMilli() || forever.GetExpiresAtMs() != 0 || forever.GetMaxUses() != 0 || forever.GetUses() != 0 {
		t.Fatalf("CreateInvite{} = %v", forever)
	}
	c.clock.Advance(time.Second)
	hour := createInvite(t, mod, 3600, 0)
	if hour.GetExpiresAtMs() != c.clock.Now().Add(time.Hour).UnixMilli() {
		t.Fatalf("an invite of an hour expires at %d, want %d", hour.GetExpiresAtMs(), c.clock.Now().Add(time.Hour).UnixMilli())
	}
	c.clock.Advance(time.Second)
	twice := createInvite(t, mod, 365*24*3600, 2)
	for _, tc := range []struct {
		expires int64
		uses    int32
		want    string
	}{
		{365*24*3600 + 1, 0, "expires_in_seconds must be 0 (never) to 31,536,000 (one year); got 31536001"},
		{-1, 0, "expires_in_seconds must be 0 (never) to 31,536,000 (one year); got -1"},
		{0, -1, "max_uses must be 0 (no limit) or more; got -1"},
	} {
		_, err := mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{ExpiresInSeconds: tc.expires, MaxUses: tc.uses}))
		wantCode(t, fmt.Sprintf("CreateInvite(%d, %d)", tc.expires, tc.uses), err, connect.CodeInvalidArgument, tc.want)
	}
	if got := listInvites(t, mod); len(got) != 3 || got[0].GetCode() != twice.GetCode() || got[2].GetCode() != forever.GetCode() {
		t.Fatalf("ListInvites = %v, want the three, newest first", got)
	}
	// Invites are the moderators' business: creating and revoking one sends no event.
	seq := c.s.Engine.Seq()
	got := between(t, c.owner, func() {
		extra := createInvite(t, mod, 0, 1)
		if _, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: extra.GetCode()})); err != nil {
			t.Fatal(err)
		}
	}, c.owner.Subscribe(t, seq), mod.Subscribe(t, seq))
	wantEvents(t, got, [][]string{nil, nil}, "owner", "moderator")

	// Not invite only: codes are not looked at, nor used.
	if _, err := c.tryJoin("early", "whatever"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	_, err := c.tryJoin("nocode", "")
	wantCode(t, "joining without a code", err, connect.CodePermissionDenied, "invite only: invite_code is required")
	_, err = c.tryJoin("longcode", strings.Repeat("A", 65))
	wantCode(t, "joining with a 65-character code", err, connect.CodeInvalidArgument, "invite_code is 65 characters; the limit is 64")
	_, err = c.tryJoin("badcode", "AAAAAAAAAA")
	wantCode(t, "joining with an unknown code", err, connect.CodePermissionDenied, `invite_code "AAAAAAAAAA" is not a valid invite`)
	if res, err := c.tryJoin("lower", " "+strings.ToLower(forever.GetCode())+" "); err != nil || !res.GetCreated() {
		t.Fatalf("joining with the code in lower case: %v %v", res, err)
	}
	// A member joining again needs no code.
	if res, err := c.tryJoin("lower", ""); err != nil || res.GetCreated() {
		t.Fatalf("a member joining again: %v %v", res, err)
	}

	for i := range 2 {
		if _, err := c.tryJoin(fmt.Sprint("twice-", i), twice.GetCode()); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.tryJoin("third", twice.GetCode())
	wantCode(t, "a third join on an invite of 2 uses", err, connect.CodePermissionDenied, "has been used up")

	c.clock.Advance(time.Hour)
	_, err = c.tryJoin("late", hour.GetCode())
	wantCode(t, "joining on an expired invite", err, connect.CodePermissionDenied, "has expired")

	// Expired and used-up invites are still listed, with their uses.
	uses := map[string]int32{}
	for _, inv := range listInvites(t, mod) {
		uses[inv.GetCode()] = inv.GetUses()
	}
	if len(uses) != 3 || uses[forever.GetCode()] != 1 || uses[twice.GetCode()] != 2 || uses[hour.GetCode()] != 0 {
		t.Fatalf("uses after the joins = %v", uses)
	}

	if _, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: strings.ToLower(forever.GetCode())})); err != nil {
		t.Fatal(err)
	}
	if got := listInvites(t, mod); len(got) != 2 {
		t.Fatalf("ListInvites after a revoke = %v, want 2", got)
	}
	_, err = c.tryJoin("revoked", forever.GetCode())
	wantCode(t, "joining on a revoked invite", err, connect.CodePermissionDenied, "has been revoked")
	for _, tc := range []struct {
		code  string
		want  connect.Code
		words string
	}{
		{forever.GetCode(), 0, ""},
		{"NOPE", connect.CodeNotFound, "invite NOPE does not exist"},
		{"", connect.CodeInvalidArgument, "code is required"},
		{strings.Repeat("A", 65), connect.CodeInvalidArgument, "code is 65 characters; the limit is 64"},
	} {
		_, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: tc.code}))
		wantCode(t, "RevokeInvite "+tc.code, err, tc.want, tc.words)
	}
}

// TestJoinQuestions: answers must match the questions in number, and each is at most 1,000
// characters.
func TestJoinQuestions(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{
		SetJoinQuestions: true, JoinQuestions: []string{"Who are you?", "Why here?"},
	})); err != nil {
		t.Fatal(err)
	}
	_, err := c.tryJoin("one", "", "me")
	wantCode(t, "one answer to two questions", err, connect.CodeInvalidArgument, "answers has 1 answer; the community asks 2 questions")
	_, err = c.tryJoin("long", "", strings.Repeat("x", 1001), "b")
	wantCode(t, "a long answer", err, connect.CodeInvalidArgument, "answers[0] is 1,001 characters; the limit is 1,000")
	if res, err := c.tryJoin("two", "", "me", "to grow things"); err != nil || !res.GetCreated() {
		t.Fatalf("two answers: %v %v", res, err)
	}
}

// TestConcurrentJoinsOnAnInvite: 20 people join at once on an invite of 5 uses; exactly 5 get
// in. Each comes from its own loopback address, as 20 browsers would, so that the Join rate
// limit (per address) stays out of the way.
func TestConcurrentJoinsOnAnInvite(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	inv := createInvite(t, c.owner, 0, 5)
	for _, ip := range []string{"127.0.0.2", "127.0.0.21"} {
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Skipf("this system has no loopback address %s (Linux has all of 127/8; on macOS add aliases with ifconfig lo0 alias): %v", ip, err)
		}
		ln.Close()
	}
	clients := make([]svcv1connect.ServerServiceClient, 20)
	for i := range clients {
		clients[i] = fromAddress(c.s, fmt.Sprintf("127.0.0.%d", 2+i), c.s.Token(fmt.Sprint("rush-", i)))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	start := make(chan struct{})
	for i, cl := range clients {
		wg.Go(func() {
			<-start
			_, errs[i] = cl.Join(ctx, req(&svcv1.JoinRequest{InviteCode: inv.GetCode()}))
		})
	}
	close(start)
	wg.Wait()
	joined := 0
	for _, err := range errs {
		switch {
		case err == nil:
			joined++
		case codeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "used up"):
			t.Errorf("a refused join: %v, want permission_denied used up", err)
		}
	}
	if joined != 5 {
		t.Fatalf("%d joined on an invite of 5 uses", joined)
	}
	if got := listInvites(t, c.owner); got[0].GetUses() != 5 {
		t.Fatalf("uses = %d, want 5", got[0].GetUses())
	}
	info, _ := c.owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if info.Msg.GetMemberCount() != 6 {
		t.Fatalf("member_count = %d, want the owner and 5", info.Msg.GetMemberCount())
	}
}

// fromAddress is a ServerService client whose connections come from a given loopback address.
func fromAddress(s *webtest.Server, ip, token string) svcv1connect.ServerServiceClient {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: dialer.DialContext}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return svcv1connect.NewServerServiceClient(&http.Client{Transport: tr}, s.URL,
		connect.WithInterceptors(header("Bearer "+token)))
}

// TestInviteRedirect: GET /invite/{code} and /i/{code} send a browser, without a token, to the
// web client's join page with the server and the code URL-encoded.
func TestInviteRedirect(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct{ path, code string }{
		{"/invite/ABCDEFGH23", "ABCDEFGH23"},
		{"/i/abcdefgh23", "abcdefgh23"},
		{"/i/a%20b&c", "a b&c"},
	} {
		resp, err := noFollow.Get(s.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := s.URL + "/app/#/join?url=" + url.QueryEscape(s.URL) + "&invite=" + url.QueryEscape(tc.code)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
			t.Errorf("GET %s = %d %q, want 302 %q", tc.path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	resp, err := http.Get(s.URL + "/invite/" + strings.Repeat("A", 65))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || body["error"] != "the invite code must be 1 to 64 characters" {
		t.Fatalf("a 65-character code: %d %v", resp.StatusCode, body)
	}

	// -web-url puts the web client elsewhere.
	h := web.New(web.Options{Engine: s.Engine, WebURL: "https://chat.example/web/", Log: webtest.Logger()})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/invite/ABCDEFGH23", nil))
	want := "https://chat.example/web/#/join?url=" + url.QueryEscape(s.URL) + "&invite=ABCDEFGH23"
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != want {
		t.Fatalf("with a web URL: %d %q, want %q", rec.Code, rec.Header().Get("Location"), want)
	}
}
