package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// ClaimMember's rules and ExportMyData's link, through the HTTP surface (the imports
// themselves are tested with real exports in cmd/hearth/importer).

func TestClaimMemberRules(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner, admin, mod, member := s.Join("owner"), s.Join("admin"), s.Join("mod"), s.Join("member")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{admin: svcv1.MemberRole_MEMBER_ROLE_ADMIN, mod: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})
	ids, err := s.Engine.ImportPeople(context.Background(), []engine.ImportPerson{{Key: "test/user/1", Username: "maria"}, {Key: "test/user/2", Username: "tom"}})
	if err != nil {
		t.Fatal(err)
	}
	maria, tom := ids["test/user/1"], ids["test/user/2"]
	claim := func(c *webtest.Client, ph, to string) error {
		_, err := c.Server.ClaimMember(context.Background(), connect.NewRequest(&svcv1.ClaimMemberRequest{PlaceholderId: ph, MemberId: to}))
		return err
	}
	for _, tc := range []struct {
		name     string
		by       *webtest.Client
		ph, to   string
		code     connect.Code
		contains string
	}{
		{"a member", member, maria, member.Member.GetId(), connect.CodePermissionDenied, "admin"},
		{"a moderator", mod, maria, mod.Member.GetId(), connect.CodePermissionDenied, "admin"},
		{"no placeholder", admin, "", member.Member.GetId(), connect.CodeInvalidArgument, "placeholder_id"},
		{"no member", admin, maria, "", connect.CodeInvalidArgument, "member_id"},
		{"itself", admin, maria, maria, connect.CodeInvalidArgument, "member_id"},
		{"unknown placeholder", admin, "nobody", member.Member.GetId(), connect.CodeNotFound, "placeholder_id"},
		{"not a placeholder", admin, member.Member.GetId(), mod.Member.GetId(), connect.CodeInvalidArgument, "not an imported placeholder"},
		{"to a placeholder", admin, maria, tom, connect.CodeInvalidArgument, "placeholder itself"},
		{"unknown member", admin, maria, "nobody", connect.CodeNotFound, "member_id"},
	} {
		err := claim(tc.by, tc.ph, tc.to)
		if connect.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%s: %v, want %v with %q", tc.name, err, tc.code, tc.contains)
		}
	}
	if err := claim(admin, maria, member.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	// The owner may claim too; a placeholder is claimed once.
	if err := claim(owner, tom, member.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := claim(owner, tom, owner.Member.GetId()); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("claiming a claimed placeholder: %v", err)
	}
	// A later import of the same person goes to the member.
	again, err := s.Engine.ImportPeople(context.Background(), []engine.ImportPerson{{Key: "test/user/1", Username: "maria"}})
	if err != nil || again["test/user/1"] != member.Member.GetId() {
		t.Fatalf("the person after the claim: %v %v", again, err)
	}
}

func TestExportLinkIsSignedForItsExport(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("owner")
	alice := s.Join("alice")
	res, err := alice.Server.ExportMyData(context.Background(), connect.NewRequest(&svcv1.ExportMyDataRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	u := res.Msg.GetUrl()
	if !strings.HasPrefix(u, "/exports/") || !strings.Contains(u, "hearth-data-alice.zip?exp=") {
		t.Fatalf("url %q", u)
	}
	// Asked again: the same link while it is made, or a second export once it is ready.
	if _, err := alice.Server.ExportMyData(context.Background(), connect.NewRequest(&svcv1.ExportMyDataRequest{})); err != nil {
		t.Fatalf("a second export: %v", err)
	}
	for name, bad := range map[string]string{
		"tampered":  strings.Replace(u, "sig=", "sig=A", 1),
		"unsigned":  strings.Split(u, "?")[0],
		"as a file": strings.Replace(u, "/exports/", "/files/", 1),
	} {
		resp, err := http.Get(s.URL + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s link: %d", name, resp.StatusCode)
		}
	}
}

// TestMemberCountsLeaveOutPlaceholders: an import's placeholders are listed by ListMembers
// (imported true) but are nobody who is here: GetServerInfo.member_count, BrowseChannels'
// member_count and GetServerStatus.members count the members who joined, before and after a
// claim.
func TestMemberCountsLeaveOutPlaceholders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.Start(t)
	owner, alice := s.Join("owner"), s.Join("alice")
	ch, err := owner.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.Engine.ImportPeople(ctx, []engine.ImportPerson{{Key: "test/user/1", Username: "maria"}, {Key: "test/user/2", Username: "tom"}, {Key: "test/user/3", Username: "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	counts := func(want int32, wantPlaceholders ...string) {
		t.Helper()
		info, err := alice.Server.GetServerInfo(ctx, connect.NewRequest(&svcv1.GetServerInfoRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		browsed, err := alice.Chat.BrowseChannels(ctx, connect.NewRequest(&svcv1.BrowseChannelsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		var inChannel int32 = -1
		for _, c := range browsed.Msg.GetChannels() {
			if c.GetId() == ch.Msg.GetChannel().GetId() {
				inChannel = c.GetMemberCount()
			}
		}
		status, err := owner.Server.GetServerStatus(ctx, connect.NewRequest(&svcv1.GetServerStatusRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if info.Msg.GetMemberCount() != want || inChannel != want || status.Msg.GetMembers() != want {
			t.Fatalf("member_count %d, the channel's member_count %d, status members %d; want %d",
				info.Msg.GetMemberCount(), inChannel, status.Msg.GetMembers(), want)
		}
		listed, err := alice.Server.ListMembers(ctx, connect.NewRequest(&svcv1.ListMembersRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		placeholders := map[string]bool{}
		for _, m := range listed.Msg.GetMembers() {
			if m.GetImported() {
				placeholders[m.GetId()] = true
			}
		}
		if len(listed.Msg.GetMembers()) != int(want)+len(wantPlaceholders) || len(placeholders) != len(wantPlaceholders) {
			t.Fatalf("ListMembers: %d members, %d of them imported; want %d placeholders besides %d members", len(listed.Msg.GetMembers()), len(placeholders), len(wantPlaceholders), want)
		}
		for _, key := range wantPlaceholders {
			if !placeholders[ids[key]] {
				t.Fatalf("the placeholder of %s is not listed as imported", key)
			}
		}
	}
	counts(2, "test/user/1", "test/user/2", "test/user/3")
	// A claim removes the placeholder and counts nobody new.
	if _, err := owner.Server.ClaimMember(ctx, connect.NewRequest(&svcv1.ClaimMemberRequest{PlaceholderId: ids["test/user/1"], MemberId: alice.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	counts(2, "test/user/2", "test/user/3")
	// Someone who joins counts.
	s.Join("bob")
	counts(3, "test/user/2", "test/user/3")
}
