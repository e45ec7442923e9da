package web_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The audit of API.md's "States and transitions" for members, invites, reports, roles and the
// community setup: every move the table does not name is refused with the right code and a
// message naming what is wrong, and the moves it names leave the state it names, after a
// restart too.

// TestStatesRefusedTransitions walks the moves the table does not allow, one row each.
func TestStatesRefusedTransitions(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	gone := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bot := c.s.CreateBot(c.owner, "helper")
	general := c.channel("general")
	mine := c.send(alice, general.GetId(), "alice writes")
	bobs := c.send(bob, general.GetId(), "bob writes")
	erased := c.send(bob, general.GetId(), "bob erases this")
	if _, err := bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: erased.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	if err := report(alice, bobs.GetId(), "rude"); err != nil {
		t.Fatal(err)
	}
	resolved := reportAbout(listReports(t, mod), bobs.GetId()).GetId()
	if _, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: resolved})); err != nil {
		t.Fatal(err)
	}
	role, err := admin.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "crew"}))
	if err != nil {
		t.Fatal(err)
	}
	limited := c.channel("crew-only")
	mustAccess(t, admin, limited, false, role.Msg.GetRole())
	id := func(cl interface{ GetId() string }) string { return cl.GetId() }

	cases := []struct {
		name  string
		call  func() error
		code  connect.Code
		parts []string
	}{
		{"unban of an active member", func() error { return unban(mod, id(alice.Member)) }, connect.CodeNotFound, []string{"not banned"}},
		{"unban of a member who left", func() error { return unban(mod, id(gone.Member)) }, connect.CodeNotFound, []string{"not banned"}},
		{"unban of an unknown id", func() error { return unban(mod, "nobody") }, connect.CodeNotFound, []string{"not banned"}},
		{"unban by a member", func() error { return unban(alice, id(bob.Member)) }, connect.CodePermissionDenied, []string{"moderator"}},
		{"unban without member_id", func() error { return unban(mod, "") }, connect.CodeInvalidArgument, []string{"member_id"}},
		{"kick of a higher rank", func() error { return kick(mod, id(admin.Member)) }, connect.CodePermissionDenied, []string{"higher rank", "an admin"}},
		{"kick of an equal rank", func() error { return kick(alice, id(bob.Member)) }, connect.CodePermissionDenied, []string{"moderator"}},
		{"kick of oneself", func() error { return kick(mod, id(mod.Member)) }, connect.CodePermissionDenied, []string{"higher rank"}},
		{"kick of a member who left", func() error { return kick(mod, id(gone.Member)) }, connect.CodeNotFound, []string{"not in this community"}},
		{"kick of an unknown id", func() error { return kick(mod, "nobody") }, connect.CodeNotFound, []string{"nobody"}},
		{"kick of a bot", func() error { return kick(admin, id(bot.Member)) }, connect.CodeFailedPrecondition, []string{"bot", "DeleteBot"}},
		{"ban of a bot", func() error { return ban(admin, id(bot.Member)) }, connect.CodeFailedPrecondition, []string{"bot", "DeleteBot"}},
		{"ban of the owner", func() error { return ban(admin, id(c.owner.Member)) }, connect.CodePermissionDenied, []string{"an owner"}},
		{"ban without member_id", func() error { return ban(mod, "") }, connect.CodeInvalidArgument, []string{"member_id"}},
		{"the owner leaves", func() error {
			_, err := c.owner.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			return err
		}, connect.CodeFailedPrecondition, []string{"owner"}},
		{"a bot leaves", func() error {
			_, err := bot.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			return err
		}, connect.CodeFailedPrecondition, []string{"DeleteBot"}},
		{"a member who left calls", func() error {
			_, err := gone.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
			return err
		}, connect.CodePermissionDenied, []string{"Join"}},
		{"a member who left leaves again", func() error {
			_, err := gone.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			return err
		}, connect.CodePermissionDenied, []string{"Join"}},
		{"rank OWNER given", func() error { return setRank(c.owner, id(alice.Member), svcv1.MemberRole_MEMBER_ROLE_OWNER) }, connect.CodeInvalidArgument, []string{"role"}},
		{"rank UNSPECIFIED given", func() error { return setRank(c.owner, id(alice.Member), svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED) }, connect.CodeInvalidArgument, []string{"role"}},
		{"rank given by a moderator", func() error { return setRank(mod, id(alice.Member), svcv1.MemberRole_MEMBER_ROLE_MODERATOR) }, connect.CodePermissionDenied, []string{"admin"}},
		{"admin gives ADMIN", func() error { return setRank(admin, id(alice.Member), svcv1.MemberRole_MEMBER_ROLE_ADMIN) }, connect.CodePermissionDenied, []string{"lower than your own", "admin"}},
		{"admin demotes the owner", func() error { return setRank(admin, id(c.owner.Member), svcv1.MemberRole_MEMBER_ROLE_MEMBER) }, connect.CodePermissionDenied, []string{"an owner"}},
		{"admin changes own rank", func() error { return setRank(admin, id(admin.Member), svcv1.MemberRole_MEMBER_ROLE_MEMBER) }, connect.CodePermissionDenied, []string{"an admin"}},
		{"rank of a member who left", func() error { return setRank(c.owner, id(gone.Member), svcv1.MemberRole_MEMBER_ROLE_MODERATOR) }, connect.CodeNotFound, []string{"not in this community"}},
		{"roles of a member who left", func() error {
			_, err := admin.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: id(gone.Member)}))
			return err
		}, connect.CodeNotFound, []string{"not in this community"}},
		{"roles set by a moderator", func() error {
			_, err := mod.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: id(alice.Member)}))
			return err
		}, connect.CodePermissionDenied, []string{"admin"}},
		{"an unknown role given", func() error {
			_, err := admin.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: id(alice.Member), RoleIds: []string{"nope"}}))
			return err
		}, connect.CodeNotFound, []string{"role_ids"}},
		{"a role still limiting a channel deleted", func() error {
			_, err := admin.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: role.Msg.GetRole().GetId()}))
			return err
		}, connect.CodeFailedPrecondition, []string{"crew-only"}},
		{"a role created by a moderator", func() error {
			_, err := mod.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "mods"}))
			return err
		}, connect.CodePermissionDenied, []string{"admin"}},
		{"a role name taken in another case", func() error {
			_, err := admin.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "CREW"}))
			return err
		}, connect.CodeAlreadyExists, []string{"name"}},
		{"report of one's own message", func() error { return report(alice, mine.GetId(), "") }, connect.CodeInvalidArgument, []string{"your own"}},
		{"report of a deleted message", func() error { return report(alice, erased.GetId(), "") }, connect.CodeFailedPrecondition, []string{"deleted"}},
		{"report of an unknown message", func() error { return report(alice, "nope", "") }, connect.CodeNotFound, []string{"nope"}},
		{"report with a long note", func() error { return report(mod, bobs.GetId(), strings.Repeat("n", 1001)) }, connect.CodeInvalidArgument, []string{"note", "1,000"}},
		{"resolving a resolved report", func() error {
			_, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: resolved}))
			return err
		}, connect.CodeNotFound, []string{resolved}},
		{"resolving by a member", func() error {
			_, err := alice.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: resolved}))
			return err
		}, connect.CodePermissionDenied, []string{"moderator"}},
		{"resolving without report_id", func() error {
			_, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{}))
			return err
		}, connect.CodeInvalidArgument, []string{"report_id"}},
		{"listing reports as a member", func() error {
			_, err := alice.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
			return err
		}, connect.CodePermissionDenied, []string{"moderator"}},
		{"an invite made by a member", func() error {
			_, err := alice.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{}))
			return err
		}, connect.CodePermissionDenied, []string{"moderator"}},
		{"an invite for longer than a year", func() error {
			_, err := mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{ExpiresInSeconds: 365*24*3600 + 1}))
			return err
		}, connect.CodeInvalidArgument, []string{"expires_in_seconds", "31,536,000"}},
		{"an invite with negative uses", func() error {
			_, err := mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{MaxUses: -1}))
			return err
		}, connect.CodeInvalidArgument, []string{"max_uses"}},
		{"revoking an unknown invite", func() error {
			_, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: "AAAAAAAAAA"}))
			return err
		}, connect.CodeNotFound, []string{"AAAAAAAAAA"}},
		{"revoking by a member", func() error {
			_, err := alice.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: "AAAAAAAAAA"}))
			return err
		}, connect.CodePermissionDenied, []string{"moderator"}},
		{"listing bans as a member", func() error {
			_, err := alice.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
			return err
		}, connect.CodePermissionDenied, []string{"moderator"}},
		{"blocking oneself", func() error {
			_, err := alice.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: id(alice.Member)}))
			return err
		}, connect.CodeInvalidArgument, []string{"member_id"}},
		{"muting an unknown id", func() error {
			_, err := alice.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: "nobody"}))
			return err
		}, connect.CodeNotFound, []string{"nobody"}},
		{"adding a member who left to a private channel", func() error {
			ch := privateWith(t, c.s, c.owner, "secret", alice)
			_, err := alice.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: []string{id(gone.Member)}}))
			return err
		}, connect.CodeNotFound, []string{id(gone.Member)}},
		{"a DM opened with a member who left", func() error {
			_, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{id(gone.Member)}}))
			return err
		}, connect.CodeNotFound, []string{id(gone.Member)}},
		{"setup finished by an admin", func() error {
			done := true
			_, err := admin.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done}))
			return err
		}, connect.CodePermissionDenied, []string{"owner"}},
		{"setup opened again after it was finished", func() error {
			undone := false
			_, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &undone}))
			return err
		}, connect.CodeFailedPrecondition, []string{"setup_complete"}},
	}
	for _, tc := range cases {
		wantCode(t, tc.name, tc.call(), tc.code, tc.parts...)
	}
	// None of the refusals changed what the members see.
	info, err := alice.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if info.Msg.GetNeedsSetup() {
		t.Error("the community needs setup again after the refused calls")
	}
	c.clock.Advance(time.Second)
	if _, err := alice.Chat.GetState(ctx, req(&svcv1.GetStateRequest{})); err != nil {
		t.Errorf("a member is shut out after the refused calls: %v", err)
	}
}

func setRank(by *webtest.Client, memberID string, role svcv1.MemberRole) error {
	_, err := by.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: memberID, Role: role}))
	return err
}

// TestStatesSurviveARestart: the states the table's moves leave (a ban, a rank, invite uses, a
// revoked invite, open and resolved reports, a finished setup) are what the server shows after
// a restart, and the refusals they bring still hold.
func TestStatesSurviveARestart(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	general := c.channel("general")
	open := c.send(bob, general.GetId(), "still open")
	closed := c.send(bob, general.GetId(), "resolved")
	for _, m := range []*svcv1.Message{open, closed} {
		if err := report(alice, m.GetId(), "note"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: reportAbout(listReports(t, mod), closed.GetId()).GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	once := createInvite(t, mod, 0, 1)
	revoked := createInvite(t, mod, 0, 0)
	if _, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: revoked.GetCode()})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.tryJoin("carol", once.GetCode()); err != nil {
		t.Fatal(err)
	}
	if err := ban(mod, bob.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := setRank(c.owner, alice.Member.GetId(), svcv1.MemberRole_MEMBER_ROLE_MODERATOR); err != nil {
		t.Fatal(err)
	}

	c.s.Restart()

	info, err := alice.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || info.Msg.GetNeedsSetup() || !info.Msg.GetInviteOnly() || info.Msg.GetMemberCount() != 4 {
		t.Fatalf("GetServerInfo after the restart = %v %v, want set up, invite only, 4 members", info, err)
	}
	me, err := alice.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil || me.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		t.Fatalf("alice after the restart = %v %v, want a moderator", me, err)
	}
	reports := listReports(t, mod)
	if len(reports) != 1 || reports[0].GetMessage().GetId() != open.GetId() {
		t.Fatalf("ListReports after the restart = %v, want the open one only", reports)
	}
	invites := listInvites(t, mod)
	if len(invites) != 1 || invites[0].GetCode() != once.GetCode() || invites[0].GetUses() != 1 {
		t.Fatalf("ListInvites after the restart = %v, want the used-up one, with its use", invites)
	}
	bans, err := mod.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
	if err != nil || len(bans.Msg.GetBans()) != 1 || bans.Msg.GetBans()[0].GetMember().GetId() != bob.Member.GetId() {
		t.Fatalf("ListBans after the restart = %v %v, want bob", bans, err)
	}
	_, err = c.tryJoin("dave", once.GetCode())
	wantCode(t, "a used-up invite after the restart", err, connect.CodePermissionDenied, "invite_code", "used up")
	_, err = c.tryJoin("erin", revoked.GetCode())
	wantCode(t, "a revoked invite after the restart", err, connect.CodePermissionDenied, "invite_code", "has been revoked")
	_, err = bob.Server.Join(ctx, req(&svcv1.JoinRequest{InviteCode: revoked.GetCode()}))
	wantCode(t, "a banned login after the restart", err, connect.CodePermissionDenied, "banned")
	_, err = mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: "x"}))
	wantCode(t, "an unknown report after the restart", err, connect.CodeNotFound, "report x")
}

// TestDeletedRoleLeavesNoBanProfile: role_deleted tells clients to drop the role everywhere,
// and nothing the server shows names it afterwards: not the profile of a ban, which ListBans
// shows, either.
func TestDeletedRoleLeavesNoBanProfile(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	res, err := admin.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "crew"}))
	if err != nil {
		t.Fatal(err)
	}
	mustSetRoles(t, admin, bob, res.Msg.GetRole())
	if err := ban(admin, bob.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: res.Msg.GetRole().GetId()})); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		bans, err := admin.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
		if err != nil || len(bans.Msg.GetBans()) != 1 {
			t.Fatalf("ListBans %s = %v %v", when, bans, err)
		}
		if ids := bans.Msg.GetBans()[0].GetMember().GetRoleIds(); len(ids) != 0 {
			t.Errorf("ListBans %s shows bob with role_ids %v, a deleted role", when, ids)
		}
	}
	check("after the role was deleted")
	c.s.Restart()
	check("after a restart")
}

// TestStatesLimits: the numbers of the moves' limits, at their edges: 250 custom roles per
// community; Join 10 a minute per client address, one more every 6 seconds.
func TestStatesLimits(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	for i := range 250 {
		if _, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: fmt.Sprint("role-", i)})); err != nil {
			t.Fatalf("role %d: %v", i+1, err)
		}
	}
	_, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "one-more"}))
	wantCode(t, "the 251st role", err, connect.CodeFailedPrecondition, "250 roles, the limit")
	state, err := c.owner.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil || len(state.Msg.GetRoles()) != 250 {
		t.Fatalf("GetState after the 251st role = %d roles, %v; want 250", len(state.Msg.GetRoles()), err)
	}

	c.clock.Advance(time.Minute)
	join := func(sub string) error {
		_, err := c.s.Client(c.s.Token(sub)).Server.Join(ctx, req(&svcv1.JoinRequest{}))
		return err
	}
	for i := range 10 {
		if err := join(fmt.Sprint("burst-", i)); err != nil {
			t.Fatalf("join %d of the burst: %v", i+1, err)
		}
	}
	wantCode(t, "the 11th join in a minute", join("eleventh"), connect.CodeResourceExhausted, "joining: rate limit reached; retry in 6s")
	// A login already in counts too: the limit is on the address, before anything is looked up.
	wantCode(t, "a member joining again in the same minute", join("burst-0"), connect.CodeResourceExhausted, "joining")
	c.clock.Advance(6 * time.Second)
	wantOK(t, "a join 6 seconds later", join("eleventh"))
	wantCode(t, "the next one at once", join("twelfth"), connect.CodeResourceExhausted, "retry in 6s")
}

// TestMemberStatesRandomWalk: a seeded walk through the member rows of the table (Join,
// LeaveCommunity, KickMember, BanMember, UnbanMember, SetMemberRole) over a few logins, checked
// after every move against a model of the table: the code of each move, and what ListMembers,
// ListBans and GetServerInfo.member_count show, restarts included.
func TestMemberStatesRandomWalk(t *testing.T) {
	t.Parallel()
	const (
		none = iota
		active
		left
		banned
	)
	type login struct {
		sub    string
		client *webtest.Client
		id     string
		state  int
		rank   svcv1.MemberRole
		inPriv bool
	}
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	priv := mustChannel(t, c.owner, "walk", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	var logins []*login
	for i := range 5 {
		sub := fmt.Sprint("walker-", i)
		logins = append(logins, &login{sub: sub, client: c.s.Client(c.s.Token(sub))})
	}
	rng := rand.New(rand.NewPCG(2, 1))
	check := func(step int, what string) {
		t.Helper()
		members, err := c.owner.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]svcv1.MemberRole{}
		for _, m := range members.Msg.GetMembers() {
			got[m.GetId()] = m.GetRole()
		}
		bans, err := c.owner.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		gotBans := map[string]bool{}
		for _, b := range bans.Msg.GetBans() {
			gotBans[b.GetMember().GetId()] = true
		}
		info, err := c.owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		state, err := c.owner.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		var privIDs []string
		for _, ch := range state.Msg.GetChannels() {
			if ch.GetId() == priv.GetId() {
				privIDs = ch.GetMemberIds()
			}
		}
		wantPriv := []string{c.owner.Member.GetId()}
		wantCount := 2
		for _, l := range logins {
			if l.inPriv {
				wantPriv = append(wantPriv, l.id)
			}
			if l.state == active {
				wantCount++
				if got[l.id] != l.rank {
					t.Fatalf("step %d (%s): %s is listed as %v, want an active %v", step, what, l.sub, got[l.id], l.rank)
				}
			} else if _, in := got[l.id]; in && l.id != "" {
				t.Fatalf("step %d (%s): %s is listed, but is not in (state %d)", step, what, l.sub, l.state)
			}
			if gotBans[l.id] != (l.state == banned) {
				t.Fatalf("step %d (%s): %s banned = %v in ListBans, want %v", step, what, l.sub, gotBans[l.id], l.state == banned)
			}
		}
		slices.Sort(privIDs)
		slices.Sort(wantPriv)
		if !slices.Equal(privIDs, wantPriv) {
			t.Fatalf("step %d (%s): the private channel has %v, want %v", step, what, privIDs, wantPriv)
		}
		if len(got) != wantCount || int(info.Msg.GetMemberCount()) != wantCount {
			t.Fatalf("step %d (%s): %d listed, member_count %d, want %d", step, what, len(got), info.Msg.GetMemberCount(), wantCount)
		}
	}
	// ADMIN twice: targets the admin cannot act on come up often.
	ranksGiven := []svcv1.MemberRole{svcv1.MemberRole_MEMBER_ROLE_MEMBER, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, svcv1.MemberRole_MEMBER_ROLE_ADMIN, svcv1.MemberRole_MEMBER_ROLE_ADMIN}
	moves := map[string]int{}
	for step := range 600 {
		l := logins[rng.IntN(len(logins))]
		move := rng.IntN(8)
		// The owner or an admin acts: the admin is refused on a target of its rank or higher.
		actor, mine := c.owner, svcv1.MemberRole_MEMBER_ROLE_OWNER
		if rng.IntN(2) == 0 {
			actor, mine = admin, svcv1.MemberRole_MEMBER_ROLE_ADMIN
		}
		outranked := l.rank >= mine
		if l.id == "" {
			move = 0 // nothing to act on before the first Join
		}
		var err error
		var want connect.Code
		var what string
		switch move {
		case 0, 4:
			what = "Join " + l.sub
			c.clock.Advance(6 * time.Second)
			var res *connect.Response[svcv1.JoinResponse]
			res, err = l.client.Server.Join(ctx, req(&svcv1.JoinRequest{}))
			switch l.state {
			case banned:
				want = connect.CodePermissionDenied
			default:
				if err == nil {
					if res.Msg.GetCreated() != (l.state != active) {
						t.Fatalf("step %d: Join of %s (state %d) created = %v", step, l.sub, l.state, res.Msg.GetCreated())
					}
					if l.id != "" && res.Msg.GetMember().GetId() != l.id {
						t.Fatalf("step %d: %s came back as another member", step, l.sub)
					}
					l.id = res.Msg.GetMember().GetId()
					if l.state != active {
						l.state, l.rank = active, svcv1.MemberRole_MEMBER_ROLE_MEMBER
					}
				}
			}
		case 1:
			what = "LeaveCommunity " + l.sub
			_, err = l.client.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			if l.state == active {
				l.state, l.inPriv = left, false
			} else {
				want = connect.CodePermissionDenied
			}
		case 2:
			what = "KickMember " + l.sub
			err = kick(actor, l.id)
			switch {
			case l.state != active:
				want = connect.CodeNotFound
			case outranked:
				want = connect.CodePermissionDenied
			default:
				l.state, l.inPriv = left, false
			}
		case 3:
			what = "BanMember " + l.sub
			err = ban(actor, l.id)
			if outranked {
				want = connect.CodePermissionDenied
			} else {
				l.state, l.inPriv = banned, false
			}
		case 5:
			what = "UnbanMember " + l.sub
			err = unban(actor, l.id)
			switch {
			case l.state != banned:
				want = connect.CodeNotFound
			case outranked:
				want = connect.CodePermissionDenied
			default:
				l.state = left
			}
		case 6:
			r := ranksGiven[rng.IntN(len(ranksGiven))]
			what = fmt.Sprint("SetMemberRole ", l.sub, " ", rankLabel(r))
			err = setRank(actor, l.id, r)
			switch {
			case l.state != active:
				want = connect.CodeNotFound
			case outranked || r >= mine:
				want = connect.CodePermissionDenied
			default:
				l.rank = r
			}
		case 7:
			what = "AddChannelMembers " + l.sub
			_, err = c.owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: priv.GetId(), MemberIds: []string{l.id}}))
			if l.state == active {
				l.inPriv = true
			} else {
				want = connect.CodeNotFound
			}
		}
		if codeOf(err) != want {
			t.Fatalf("step %d: %s: got %v, want %v", step, what, err, want)
		}
		moves[strings.Fields(what)[0]+" "+codeName(want)]++
		check(step, what)
		if step%100 == 99 {
			c.s.Restart()
			check(step, "after a restart")
		}
	}
	// The walk went through every move, both allowed and refused.
	for _, m := range []string{"Join success", "Join permission_denied", "LeaveCommunity success", "LeaveCommunity permission_denied",
		"KickMember success", "KickMember not_found", "KickMember permission_denied", "BanMember success", "BanMember permission_denied",
		"UnbanMember success", "UnbanMember not_found", "SetMemberRole success", "SetMemberRole not_found", "SetMemberRole permission_denied",
		"AddChannelMembers success", "AddChannelMembers not_found"} {
		if moves[m] == 0 {
			t.Errorf("the walk never made %q; moves: %v", m, moves)
		}
	}
}

// TestInviteStatesRandomWalk: a seeded walk through the invite rows of the table in an
// invite-only community (CreateInvite with a lifetime and max_uses, Join with a code, Join
// again, LeaveCommunity, RevokeInvite, time passing), checked after every move against a model:
// which codes let a login in, the uses ListInvites shows (a login coming back takes none), and
// which invites it lists.
func TestInviteStatesRandomWalk(t *testing.T) {
	t.Parallel()
	type invite struct {
		code      string
		expiresAt time.Time // zero: never
		maxUses   int32
		uses      int32
		revoked   bool
	}
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: ptr(true)})); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	// Enough logins that some come for the first time late in the walk (a return takes no use).
	const guests = 16
	var invites []*invite
	in := map[string]bool{}       // login -> in the community
	admitted := map[string]bool{} // login -> was let in once (a return takes no invite use)
	moves := map[string]int{}
	for step := range 400 {
		var what string
		switch move := rng.IntN(6); {
		case move == 0 || len(invites) == 0:
			lifetime := []int64{0, 60, 600}[rng.IntN(3)]
			maxUses := int32(rng.IntN(3))
			inv := createInvite(t, mod, lifetime, maxUses)
			m := &invite{code: inv.GetCode(), maxUses: maxUses}
			if lifetime > 0 {
				m.expiresAt = c.clock.Now().Add(time.Duration(lifetime) * time.Second)
				if inv.GetExpiresAtMs() != m.expiresAt.UnixMilli() {
					t.Fatalf("step %d: expires_at_ms %d, want %d", step, inv.GetExpiresAtMs(), m.expiresAt.UnixMilli())
				}
			}
			invites = append(invites, m)
			what = "CreateInvite"
		case move <= 2:
			sub := fmt.Sprint("guest-", rng.IntN(guests))
			var code string
			var inv *invite
			switch r := rng.IntN(10); {
			case r == 0:
				code = "" // no code at all
			case r == 1:
				code = "ZZZZZZZZZZ" // no such invite
			default:
				inv = invites[rng.IntN(len(invites))]
				code = inv.code
				if rng.IntN(2) == 0 {
					code = strings.ToLower(code)
				}
			}
			wasIn := in[sub]
			res, err := c.tryJoin(sub, code)
			var want connect.Code
			var words string
			switch {
			case in[sub]:
				// Already in: the code is not looked at, nor used.
			case inv == nil && code == "":
				want, words = connect.CodePermissionDenied, "invite_code is required"
			case inv == nil:
				want, words = connect.CodePermissionDenied, "is not a valid invite"
			case inv.revoked:
				want, words = connect.CodePermissionDenied, "has been revoked"
			case !inv.expiresAt.IsZero() && !c.clock.Now().Before(inv.expiresAt):
				want, words = connect.CodePermissionDenied, "has expired"
			case inv.maxUses > 0 && inv.uses >= inv.maxUses:
				want, words = connect.CodePermissionDenied, "has been used up"
			default:
				if !admitted[sub] {
					inv.uses++
				}
				in[sub], admitted[sub] = true, true
			}
			wantCode(t, fmt.Sprintf("step %d: Join %s with %q", step, sub, code), err, want, words)
			if err == nil && res.GetCreated() == wasIn {
				t.Fatalf("step %d: Join of %s (in: %v) answered created = %v", step, sub, wasIn, res.GetCreated())
			}
			what = "Join " + codeName(want) + " " + words
		case move == 3:
			sub := fmt.Sprint("guest-", rng.IntN(guests))
			_, err := c.s.Client(c.s.Token(sub)).Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			var want connect.Code
			if !in[sub] {
				want = connect.CodePermissionDenied
			}
			wantCode(t, fmt.Sprintf("step %d: LeaveCommunity %s", step, sub), err, want)
			in[sub] = false
			what = "LeaveCommunity " + codeName(want)
		case move == 4:
			inv := invites[rng.IntN(len(invites))]
			_, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: inv.code}))
			wantOK(t, fmt.Sprintf("step %d: RevokeInvite", step), err)
			inv.revoked = true
			what = "RevokeInvite"
		default:
			c.clock.Advance(time.Duration(rng.IntN(120)) * time.Second)
			what = "time passes"
		}
		moves[what]++
		listed := map[string]int32{}
		for _, inv := range listInvites(t, mod) {
			listed[inv.GetCode()] = inv.GetUses()
		}
		for _, inv := range invites {
			uses, ok := listed[inv.code]
			if ok == inv.revoked || (ok && uses != inv.uses) {
				t.Fatalf("step %d (%s): invite %s listed %v with %d uses; want listed %v with %d", step, what, inv.code, ok, uses, !inv.revoked, inv.uses)
			}
		}
		if step == 200 {
			c.s.Restart()
		}
	}
	for _, m := range []string{"Join success ", "Join permission_denied invite_code is required", "Join permission_denied is not a valid invite", "Join permission_denied has been revoked",
		"Join permission_denied has expired", "Join permission_denied has been used up", "LeaveCommunity success", "LeaveCommunity permission_denied"} {
		if moves[m] == 0 {
			t.Errorf("the walk never made %q; moves: %v", m, moves)
		}
	}
}

// TestReportStatesRoundTrip: the report rows of the table, around the loop: none -> open
// (ReportMessage) -> open again (the same reporter replaces the note, keeping the first copy) ->
// resolved (every open report of the message goes) -> open again (a new report, with a copy of
// the message as it is now), and the same after a restart.
func TestReportStatesRoundTrip(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	carol := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	general := c.channel("general")
	m := c.send(bob, general.GetId(), "first words")
	other := c.send(bob, general.GetId(), "other words")
	wantOK(t, "alice reports", report(alice, m.GetId(), "one"))
	wantOK(t, "carol reports", report(carol, m.GetId(), "two"))
	wantOK(t, "carol reports the other message", report(carol, other.GetId(), "three"))
	if _, err := bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "edited words"})); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(time.Second)
	wantOK(t, "alice reports again", report(alice, m.GetId(), "one, again"))
	notes := func() map[string]string {
		out := map[string]string{}
		for _, r := range listReports(t, mod) {
			out[r.GetReporter().GetUsername()+"/"+r.GetMessage().GetId()] = r.GetNote() + "|" + r.GetMessage().GetText()
		}
		return out
	}
	want := map[string]string{
		alice.Member.GetUsername() + "/" + m.GetId():     "one, again|first words",
		carol.Member.GetUsername() + "/" + m.GetId():     "two|first words",
		carol.Member.GetUsername() + "/" + other.GetId(): "three|other words",
	}
	if got := notes(); !maps.Equal(got, want) {
		t.Fatalf("open reports = %v, want %v", got, want)
	}
	first := reportAbout(listReports(t, mod), m.GetId()).GetId()
	if _, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: first})); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{carol.Member.GetUsername() + "/" + other.GetId(): "three|other words"}
	if got := notes(); !maps.Equal(got, want) {
		t.Fatalf("open reports after resolving = %v, want %v", got, want)
	}
	c.s.Restart()
	if got := notes(); !maps.Equal(got, want) {
		t.Fatalf("open reports after a restart = %v, want %v", got, want)
	}
	wantOK(t, "alice reports after the resolve", report(alice, m.GetId(), "once more"))
	want[alice.Member.GetUsername()+"/"+m.GetId()] = "once more|edited words"
	if got := notes(); !maps.Equal(got, want) {
		t.Fatalf("open reports after a new report = %v, want %v", got, want)
	}
	if r := reportAbout(listReports(t, mod), m.GetId()); r.GetId() == first {
		t.Errorf("the new report has the id of the resolved one, %s", first)
	}
	_, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: first}))
	wantCode(t, "resolving the resolved report again", err, connect.CodeNotFound, first)
}

// TestBotStatesAcrossARestart: the bot rows of the table: CreateBot makes a bot member,
// DeleteBot deletes it, its messages stay and its username is free at once and after a
// restart; a deleted bot's token no longer works, and acting on it is not_found.
func TestBotStatesAcrossARestart(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	general := c.channel("general")
	bot := c.s.CreateBot(c.owner, "helper")
	said := mustSend(t, bot, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "beep"})
	if _, err := c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: bot.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	c.s.Restart()
	_, err := bot.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	wantCode(t, "a deleted bot's token after a restart", err, connect.CodeUnauthenticated)
	_, err = c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: bot.Member.GetId()}))
	wantCode(t, "deleting the deleted bot again", err, connect.CodeNotFound, bot.Member.GetId())
	_, err = c.owner.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: bot.Member.GetId()}))
	wantCode(t, "a new token for the deleted bot", err, connect.CodeNotFound, bot.Member.GetId())
	err = setRank(c.owner, bot.Member.GetId(), svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	wantCode(t, "a rank for the deleted bot", err, connect.CodeNotFound, bot.Member.GetId())
	list, err := c.owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil || len(list.Msg.GetMessages()) != 1 || list.Msg.GetMessages()[0].GetId() != said.GetId() {
		t.Fatalf("the channel after the bot was deleted = %v %v, want its message kept", list, err)
	}
	bots, err := alice.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil || len(bots.Msg.GetBots()) != 0 {
		t.Fatalf("ListBots after the delete = %v %v, want none", bots, err)
	}
	name := "helper"
	if _, err := alice.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Username: &name})); err != nil {
		t.Fatalf("taking the deleted bot's username after a restart: %v", err)
	}
	_, err = c.owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "helper"}))
	wantCode(t, "a bot with a username a member now has", err, connect.CodeAlreadyExists, "helper")
}
