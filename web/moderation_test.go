package web_test

import (
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// privateWith creates a private channel of the owner's with members in it.
func privateWith(t *testing.T, s *webtest.Server, owner *webtest.Client, name string, members ...*webtest.Client) *svcv1.Channel {
	t.Helper()
	ch := mustChannel(t, owner, name, svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	var ids []string
	for _, m := range members {
		ids = append(ids, m.Member.GetId())
	}
	if _, err := owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: ids})); err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestLeaveKickBanEventsAndStreams: leaving, a kick and a ban each take the member out of
// their private channels (channel_updated to exactly the remaining members), send member_left
// to every other member, and end the member's streams; their DMs stay readable to the others.
func TestLeaveKickBanEventsAndStreams(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner, bob, carol, dave := c.owner, c.join("bob"), c.join("carol"), c.join("dave")
	o, b, cr, d := owner.Member.GetId(), bob.Member.GetId(), carol.Member.GetId(), dave.Member.GetId()
	p := privateWith(t, c.s, owner, "plans", bob, carol)
	q := privateWith(t, c.s, owner, "quiet", dave)
	dm := openDM(t, c.s, owner, bob)
	hello := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "hello"})
	seq := c.s.Engine.Seq()
	os, bs, cs, ds := owner.Subscribe(t, seq), bob.Subscribe(t, seq), carol.Subscribe(t, seq), dave.Subscribe(t, seq)

	got := between(t, owner, func() {
		if _, err := bob.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
			t.Fatal(err)
		}
	}, os, cs, ds)
	wantEvents(t, got, [][]string{
		{"channel_updated:" + p.GetId() + ":" + o + "," + cr, "member_left:" + b},
		{"channel_updated:" + p.GetId() + ":" + o + "," + cr, "member_left:" + b},
		{"member_left:" + b},
	}, "owner", "carol", "dave")
	if err := bs.Ended(); err != nil {
		t.Fatalf("bob's stream ended with %v, want a normal end", err)
	}
	_, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	wantCode(t, "GetState after leaving", err, connect.CodePermissionDenied, "call Join first")
	// The DM stays, with bob in it and his message readable.
	msgs, err := owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: dm.GetId()}))
	if err != nil || len(msgs.Msg.GetMessages()) != 1 || msgs.Msg.GetMessages()[0].GetId() != hello.GetId() {
		t.Fatalf("the DM after bob left: %v %v", msgs, err)
	}
	members, err := owner.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
	if err != nil || len(members.Msg.GetMembers()) != 3 {
		t.Fatalf("ListMembers after bob left: %v %v", members, err)
	}

	got = between(t, owner, func() {
		if _, err := owner.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: cr})); err != nil {
			t.Fatal(err)
		}
	}, os, ds)
	wantEvents(t, got, [][]string{
		{"channel_updated:" + p.GetId() + ":" + o, "member_left:" + cr},
		{"member_left:" + cr},
	}, "owner", "dave")
	if err := cs.Ended(); err != nil {
		t.Fatalf("carol's stream ended with %v", err)
	}

	got = between(t, owner, func() {
		if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: d})); err != nil {
			t.Fatal(err)
		}
	}, os)
	wantEvents(t, got, [][]string{{"channel_updated:" + q.GetId() + ":" + o, "member_left:" + d}}, "owner")
	if err := ds.Ended(); err != nil {
		t.Fatalf("dave's stream ended with %v", err)
	}

	// Nothing is sent for an unban, or for banning someone who already left.
	got = between(t, owner, func() {
		if _, err := owner.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: d})); err != nil {
			t.Fatal(err)
		}
		if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: b})); err != nil {
			t.Fatal(err)
		}
	}, os)
	wantEvents(t, got, [][]string{nil}, "owner")

	_, err = owner.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
	wantCode(t, "the owner leaving", err, connect.CodeFailedPrecondition, "the owner cannot leave")
	info, _ := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if info.Msg.GetMemberCount() != 1 {
		t.Fatalf("member_count = %d, want 1", info.Msg.GetMemberCount())
	}
}

// TestRejoinAfterLeaveOrKick: the same login comes back as the same member, created true, as a
// plain member out of the channels it had joined; joining twice changes nothing.
func TestRejoinAfterLeaveOrKick(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	mode := svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{ChannelMode: &mode})); err != nil {
		t.Fatal(err)
	}
	general := c.channel("general")
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	id := bob.Member.GetId()
	if _, err := bob.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: general.GetId()})); err != nil {
		t.Fatal(err)
	}
	os := owner.Subscribe(t, c.s.Engine.Seq())

	for _, out := range []struct {
		how string
		do  func() error
	}{
		{"left", func() error {
			_, err := bob.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			return err
		}},
		{"was kicked", func() error {
			_, err := owner.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: id}))
			return err
		}},
	} {
		if err := out.do(); err != nil {
			t.Fatal(err)
		}
		c.clock.Advance(6 * time.Second)
		res, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
		if err != nil {
			t.Fatalf("join after bob %s: %v", out.how, err)
		}
		m := res.Msg.GetMember()
		if !res.Msg.GetCreated() || m.GetId() != id || m.GetRole() != svcv1.MemberRole_MEMBER_ROLE_MEMBER || m.GetUsername() != bob.Member.GetUsername() {
			t.Fatalf("join after bob %s = %v, want created, the same id and username, a plain member", out.how, res.Msg)
		}
		evs := os.Until(func(ev *svcv1.Event) bool { return ev.GetMemberJoined() != nil })
		if evs[len(evs)-2].GetMemberLeft() != id || evs[len(evs)-1].GetMemberJoined().GetId() != id {
			t.Fatalf("the owner saw %v, want member_left then member_joined", evs)
		}
		st, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(st.Msg.GetChannels()); n != 0 {
			t.Fatalf("after bob %s and came back he is in %d channels, want none (he starts over)", out.how, n)
		}
	}
	res, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Someone else"}))
	if err != nil || res.Msg.GetCreated() || res.Msg.GetMember().GetDisplayName() == "Someone else" {
		t.Fatalf("joining as a member: %v %v, want created false and nothing changed", res, err)
	}
}

// TestBanThenJoin: a banned login cannot join, another login can, and after an unban the banned
// one comes back as the same member. Leaving first is no way around a ban.
func TestBanThenJoin(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	bob := c.s.Client(c.s.Token("bob"))
	c.clock.Advance(6 * time.Second)
	joined, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Bob B", Bio: "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	id := joined.Msg.GetMember().GetId()
	banTime := c.clock.Now().UnixMilli()
	if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: id})); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(6 * time.Second)
	_, err = bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	wantCode(t, "a banned login joining", err, connect.CodePermissionDenied, "banned")
	_, err = bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	wantCode(t, "GetMe of a banned login", err, connect.CodePermissionDenied)
	c.join("bob-again") // another login of the same person is another member

	carol := c.join("carol")
	if _, err := carol.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(time.Minute)
	if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: carol.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	_, err = carol.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	wantCode(t, "joining after leaving and being banned", err, connect.CodePermissionDenied, "banned")

	bans, err := owner.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := bans.Msg.GetBans(); len(got) != 2 || got[0].GetMember().GetId() != carol.Member.GetId() || got[1].GetMember().GetId() != id {
		t.Fatalf("ListBans = %v, want carol then bob (newest first)", got)
	}
	if b := bans.Msg.GetBans()[1]; b.GetBannedBy() != owner.Member.GetId() || b.GetBannedAtMs() != banTime ||
		b.GetMember().GetDisplayName() != "Bob B" || b.GetMember().GetBio() != "hi" || b.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_MEMBER {
		t.Fatalf("bob's ban = %v, want his profile at ban time, by the owner, at %d", b, banTime)
	}

	if _, err := owner.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: id})); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(6 * time.Second)
	back, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	if err != nil || !back.Msg.GetCreated() || back.Msg.GetMember().GetId() != id {
		t.Fatalf("join after the unban: %v %v, want the same member back, created", back, err)
	}
	bans, _ = owner.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
	if len(bans.Msg.GetBans()) != 1 {
		t.Fatalf("ListBans after the unban = %v, want carol's only", bans.Msg.GetBans())
	}

	for _, tc := range []struct {
		what  string
		err   error
		code  connect.Code
		words []string
	}{
		{"UnbanMember of a member who is not banned", unban(owner, id), connect.CodeNotFound, []string{"is not banned"}},
		{"UnbanMember of an unknown id", unban(owner, "nobody"), connect.CodeNotFound, []string{"is not banned"}},
		{"UnbanMember without an id", unban(owner, ""), connect.CodeInvalidArgument, []string{"member_id is required"}},
		{"BanMember without an id", ban(owner, ""), connect.CodeInvalidArgument, []string{"member_id is required"}},
		{"BanMember of an unknown id", ban(owner, "nobody"), connect.CodeNotFound, []string{"member nobody does not exist"}},
		{"KickMember of a member who left", kick(owner, carol.Member.GetId()), connect.CodeNotFound, []string{"is not in this community"}},
		{"BanMember of a banned member", ban(owner, carol.Member.GetId()), 0, nil},
	} {
		wantCode(t, tc.what, tc.err, tc.code, tc.words...)
	}
}

func unban(c *webtest.Client, id string) error {
	_, err := c.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: id}))
	return err
}

func ban(c *webtest.Client, id string) error {
	_, err := c.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: id}))
	return err
}

func kick(c *webtest.Client, id string) error {
	_, err := c.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: id}))
	return err
}

// TestSetMemberRole: the new rank goes to every member as member_updated; ranks the caller may
// not give are refused with the reason; setting the rank a member has changes nothing.
func TestSetMemberRole(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	bob := c.join("bob")
	st := bob.Subscribe(t, c.s.Engine.Seq())
	os := owner.Subscribe(t, c.s.Engine.Seq())
	got := between(t, owner, func() {
		res, err := admin.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: bob.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR}))
		if err != nil || res.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
			t.Fatalf("SetMemberRole: %v %v", res, err)
		}
		// The same rank again: nothing changes, nothing is sent.
		if _, err := admin.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: bob.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})); err != nil {
			t.Fatal(err)
		}
	}, st, os)
	want := "member_updated:" + bob.Member.GetId() + ":MEMBER_ROLE_MODERATOR"
	wantEvents(t, got, [][]string{{want}, {want}}, "bob", "owner")

	for _, tc := range []struct {
		by    *webtest.Client
		role  svcv1.MemberRole
		code  connect.Code
		words []string
	}{
		{admin, svcv1.MemberRole_MEMBER_ROLE_ADMIN, connect.CodePermissionDenied, []string{"lower than your own", "admin"}},
		{owner, svcv1.MemberRole_MEMBER_ROLE_OWNER, connect.CodeInvalidArgument, []string{"role must be MEMBER_ROLE_MEMBER, MEMBER_ROLE_MODERATOR or MEMBER_ROLE_ADMIN", "MEMBER_ROLE_OWNER"}},
		{owner, svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED, connect.CodeInvalidArgument, []string{"role must be"}},
		{owner, svcv1.MemberRole_MEMBER_ROLE_ADMIN, 0, nil},
	} {
		_, err := tc.by.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: bob.Member.GetId(), Role: tc.role}))
		wantCode(t, "SetMemberRole "+tc.role.String(), err, tc.code, tc.words...)
	}
	_, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: "nobody", Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER}))
	wantCode(t, "SetMemberRole of an unknown id", err, connect.CodeNotFound, "member nobody is not in this community")
	_, err = owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER}))
	wantCode(t, "SetMemberRole without an id", err, connect.CodeInvalidArgument, "member_id is required")
}
