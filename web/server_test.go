package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

var ctx = context.Background()

func req[T any](m *T) *connect.Request[T] { return connect.NewRequest(m) }

// codeOf is the Connect code of an error (connect.CodeUnknown for nil, to fail comparisons).
func codeOf(err error) connect.Code {
	if err == nil {
		return 0
	}
	return connect.CodeOf(err)
}

func TestJoinOwnerThenMemberAndGetMe(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t, func(o *engine.Options) { o.Version = "1.4.0" })
	owner := s.Client(s.Token("alice"))
	res, err := owner.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Alice A."}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Msg.GetCreated() || res.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("first join: created %v role %v, want true OWNER", res.Msg.GetCreated(), res.Msg.GetMember().GetRole())
	}
	if got := res.Msg.GetMember(); got.GetUsername() != "alice" || got.GetDisplayName() != "Alice A." || got.GetKind() != svcv1.MemberKind_MEMBER_KIND_HUMAN {
		t.Fatalf("owner member = %v", got)
	}
	info, err := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if !info.Msg.GetNeedsSetup() || info.Msg.GetMemberCount() != 1 || info.Msg.GetBaseUrl() != s.URL || info.Msg.GetProtocolVersion() != 1 {
		t.Fatalf("server info after the first join = %v", info.Msg)
	}

	// Until the owner finishes the setup, others may only join and look.
	bob := s.Client(s.Token("bob"))
	res, err = bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Msg.GetCreated() || res.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_MEMBER {
		t.Fatalf("second join: created %v role %v, want true MEMBER", res.Msg.GetCreated(), res.Msg.GetMember().GetRole())
	}
	_, err = bob.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("ListMembers during setup by a member: %v, want permission_denied", err)
	}
	done := true
	_, err = bob.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("setup_complete by a member: %v, want permission_denied", err)
	}
	info2, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done}))
	if err != nil {
		t.Fatal(err)
	}
	if info2.Msg.GetNeedsSetup() {
		t.Fatal("needs_setup still true after setup_complete")
	}
	list, err := bob.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.GetMembers()); n != 2 {
		t.Fatalf("ListMembers has %d members, want 2", n)
	}

	// Joining again changes nothing.
	again, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Other"}))
	if err != nil {
		t.Fatal(err)
	}
	if again.Msg.GetCreated() || again.Msg.GetMember().GetId() != res.Msg.GetMember().GetId() || again.Msg.GetMember().GetDisplayName() != "bob" {
		t.Fatalf("join again = %v, want the same member, created false", again.Msg)
	}

	// GetMe: the version is for admins and the owner only.
	me, err := owner.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if me.Msg.GetServerVersion() != "1.4.0" || me.Msg.GetServerTrack() != "stable" || me.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("owner GetMe = %v", me.Msg)
	}
	me, err = bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if me.Msg.GetServerVersion() != "" || me.Msg.GetServerTrack() != "" || me.Msg.GetMember().GetUsername() != "bob" {
		t.Fatalf("member GetMe = %v, want no version", me.Msg)
	}
}

func TestUsernamesAreNormalizedAndUnique(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	for _, tc := range []struct{ sub, name, want string }{
		{"https://id.example/u/1", "Zoë Smith", "zo_smith"},
		{"zo_smith", "", "zo_smith2"},
		{"x", "", "member"},
	} {
		tok, err := s.Issuer.Mint(tc.sub, tc.name, 60e9)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Client(tok).Server.Join(ctx, req(&svcv1.JoinRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Msg.GetMember().GetUsername(); got != tc.want {
			t.Errorf("sub %q name %q: username %q, want %q", tc.sub, tc.name, got, tc.want)
		}
	}
}

func TestUpdateProfile(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	st := bob.Subscribe(t, s.Engine.Seq())
	name, status := "Alice!", "on holiday"
	res, err := alice.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{DisplayName: &name, StatusText: &status}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Msg.GetMember().GetDisplayName() != name || res.Msg.GetMember().GetStatusText() != status {
		t.Fatalf("UpdateProfile = %v", res.Msg)
	}
	ev := st.Next()
	if got := ev.GetMemberUpdated(); got.GetId() != alice.Member.GetId() || got.GetDisplayName() != name {
		t.Fatalf("bob got %v, want member_updated of alice", ev)
	}

	taken := "bob"
	_, err = alice.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Username: &taken}))
	if codeOf(err) != connect.CodeAlreadyExists {
		t.Fatalf("taking bob's username: %v, want already_exists", err)
	}
	for _, tc := range []struct {
		r    *svcv1.UpdateProfileRequest
		want string
	}{
		{&svcv1.UpdateProfileRequest{Username: ptr("A")}, "username must be 2 to 32 characters"},
		{&svcv1.UpdateProfileRequest{DisplayName: ptr(strings.Repeat("x", 65))}, "display_name is 65 characters; the limit is 64"},
		{&svcv1.UpdateProfileRequest{Bio: ptr(strings.Repeat("é", 1025))}, "bio is 1,025 characters; the limit is 1,024"},
		{&svcv1.UpdateProfileRequest{StatusText: ptr(strings.Repeat("x", 129))}, "status_text is 129 characters; the limit is 128"},
	} {
		_, err := alice.Server.UpdateProfile(ctx, req(tc.r))
		if codeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UpdateProfile(%v) = %v, want invalid_argument %q", tc.r, err, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestUpdateServerSettingsLimitsAndEvents(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	member := s.Join("member")
	st := member.Subscribe(t, s.Engine.Seq())
	res, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{
		Name:             ptr("Gardeners"),
		Description:      ptr("We grow **things**."),
		AccentColor:      ptr("#33aa55"),
		RetentionDays:    ptr(int32(30)),
		JoinQuestions:    []string{"What do you grow?"},
		SetJoinQuestions: true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Msg
	if m.GetName() != "Gardeners" || m.GetAccentColor() != "#33aa55" || m.GetRetentionDays() != 30 || len(m.GetJoinQuestions()) != 1 {
		t.Fatalf("settings = %v", m)
	}
	if ev := st.Next(); !ev.GetServerUpdated() {
		t.Fatalf("member got %v, want server_updated", ev)
	}
	_, err = member.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: ptr("Mine")}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("a member changing settings: %v, want permission_denied", err)
	}
	for _, tc := range []struct {
		r    *svcv1.UpdateServerSettingsRequest
		want string
	}{
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("")}, "name must not be empty"},
		{&svcv1.UpdateServerSettingsRequest{Name: ptr(strings.Repeat("n", 65))}, "name is 65 characters; the limit is 64"},
		{&svcv1.UpdateServerSettingsRequest{AccentColor: ptr("red")}, "accent_color must be #rrggbb"},
		{&svcv1.UpdateServerSettingsRequest{RetentionDays: ptr(int32(-1))}, "retention_days must be 0"},
		{&svcv1.UpdateServerSettingsRequest{Description: ptr(strings.Repeat("d", 4001))}, "description is 4,001 characters; the limit is 4,000"},
		{&svcv1.UpdateServerSettingsRequest{SetJoinQuestions: true, JoinQuestions: make([]string, 11)}, "join_questions has 11 questions; the limit is 10"},
		{&svcv1.UpdateServerSettingsRequest{ChannelMode: svcv1.ChannelMode_CHANNEL_MODE_UNSPECIFIED.Enum()}, "channel_mode must be"},
	} {
		_, err := owner.Server.UpdateServerSettings(ctx, req(tc.r))
		if codeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UpdateServerSettings(%v) = %v, want invalid_argument %q", tc.r, err, tc.want)
		}
	}
}

// TestWireFormats drives the same calls as the generated client through Connect's JSON
// protocol over plain HTTP (checking the wire names and encodings) and through gRPC.
func TestWireFormats(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	token := s.Token("alice")
	post := func(path, body string, auth bool) (int, map[string]any) {
		t.Helper()
		r, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if auth {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v in %s", path, err, raw)
		}
		return resp.StatusCode, out
	}
	status, out := post("/svc.v1.ServerService/Join", `{"displayName":"Alice","bio":"hi"}`, true)
	if status != 200 {
		t.Fatalf("Join over JSON: %d %v", status, out)
	}
	member := out["member"].(map[string]any)
	if member["role"] != "MEMBER_ROLE_OWNER" || member["kind"] != "MEMBER_KIND_HUMAN" || member["displayName"] != "Alice" || out["created"] != true {
		t.Fatalf("Join JSON = %v", out)
	}
	if _, ok := member["joinedAtMs"].(string); !ok {
		t.Fatalf("joinedAtMs is %T, want an int64 as a JSON string", member["joinedAtMs"])
	}
	status, out = post("/svc.v1.ServerService/GetServerInfo", `{}`, false)
	if status != 200 || out["protocolVersion"] != float64(1) || out["baseUrl"] != s.URL || out["needsSetup"] != true {
		t.Fatalf("GetServerInfo over JSON: %d %v", status, out)
	}
	status, out = post("/svc.v1.ServerService/GetMe", `{}`, false)
	if status != 401 || out["code"] != "unauthenticated" {
		t.Fatalf("GetMe without a token over JSON: %d %v, want 401 unauthenticated", status, out)
	}
	status, out = post("/svc.v1.ServerService/UpdateProfile", `{"statusText":"`+strings.Repeat("x", 129)+`"}`, true)
	if status != 400 || out["code"] != "invalid_argument" || !strings.Contains(out["message"].(string), "status_text") {
		t.Fatalf("bad UpdateProfile over JSON: %d %v", status, out)
	}

	grpc := s.Client(token, connect.WithGRPC())
	me, err := grpc.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if me.Msg.GetMember().GetDisplayName() != "Alice" || me.Msg.GetServerTrack() != "nightly" || me.Msg.GetServerVersion() != "dev" {
		t.Fatalf("GetMe over gRPC = %v", me.Msg)
	}
	grpcWeb := s.Client(token, connect.WithGRPCWeb())
	if _, err := grpcWeb.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("GetMe over gRPC-Web: %v", err)
	}
	_, err = s.Client("", connect.WithGRPC()).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if codeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("gRPC without a token: %v", err)
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	resp, err := http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("/healthz = %d %q", resp.StatusCode, body)
	}
}

func TestRestartKeepsMembersAndSeq(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	s.Join("bob")
	seq := s.Engine.Seq()
	if seq == 0 {
		t.Fatal("no events before the restart")
	}
	s.Restart()
	if got := s.Engine.Seq(); got != seq {
		t.Fatalf("seq after restart = %d, want %d", got, seq)
	}
	list, err := alice.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.GetMembers()); n != 2 {
		t.Fatalf("%d members after restart, want 2", n)
	}
	// The next event continues the seq.
	_, err = alice.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: ptr("back")}))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Engine.Seq(); got != seq+1 {
		t.Fatalf("seq after the first change after restart = %d, want %d", got, seq+1)
	}
}
