package web_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The moderation tools of EXTENSIONS.md 6, through the HTTP surface: timeouts, slowmode,
// lockdown, the filters, the audit log, and reports reaching the moderators.

// TestTimeouts: moderators and higher time out members below them, with a reason, for 60 s to
// 28 days; everyone hears it (member_updated); the member reads as before but every call that
// would put something before others is refused with when the timeout ends; 0 ends it, and it
// ends by itself.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol := c.join("bob"), c.join("carol")
	general := c.channel("general")
	mine := c.send(bob, general.GetId(), "mine")
	theirs := c.send(carol, general.GetId(), "theirs")
	if _, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "👍"})); err != nil {
		t.Fatal(err)
	}
	timeout := func(by, who *webtest.Client, s int64, reason string) (*svcv1.Member, error) {
		res, err := by.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: who.Member.GetId(), DurationS: s, Reason: reason}))
		if err != nil {
			return nil, err
		}
		return res.Msg.GetMember(), nil
	}
	for _, tc := range []struct {
		by, who *webtest.Client
		s       int64
		reason  string
		code    connect.Code
		want    string
	}{
		{mod, bob, 59, "", connect.CodeInvalidArgument, "duration_s must be 60 to 2,419,200 seconds (28 days), or 0 to end a timeout; got 59"},
		{mod, bob, 2_419_201, "", connect.CodeInvalidArgument, "got 2419201"},
		{mod, bob, -60, "", connect.CodeInvalidArgument, "got -60"},
		{mod, bob, 60, strings.Repeat("r", 501), connect.CodeInvalidArgument, "reason is 501 characters; the limit is 500"},
		{carol, bob, 60, "", connect.CodePermissionDenied, "timing members out needs the moderator rank or higher"},
		{mod, admin, 60, "", connect.CodePermissionDenied, "needs a higher rank than the member's"},
		{mod, mod, 60, "", connect.CodePermissionDenied, "needs a higher rank than the member's"},
		{admin, c.owner, 60, "", connect.CodePermissionDenied, "needs a higher rank than the member's"},
	} {
		_, err := timeout(tc.by, tc.who, tc.s, tc.reason)
		wantCode(t, "TimeoutMember "+tc.want, err, tc.code, tc.want)
	}
	_, err := mod.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: "01890000-0000-7000-8000-000000000000", DurationS: 60}))
	wantCode(t, "timing out nobody", err, connect.CodeNotFound, "is not in this community")

	seq := c.s.Engine.Seq()
	carolSees := carol.Subscribe(t, seq)
	m, err := timeout(mod, bob, 300, "spam")
	if err != nil {
		t.Fatal(err)
	}
	until := c.clock.Now().Add(5 * time.Minute).UnixMilli()
	if m.GetTimedOutUntilMs() != until {
		t.Fatalf("timed_out_until_ms = %d, want %d", m.GetTimedOutUntilMs(), until)
	}
	if ev := carolSees.Next().GetMemberUpdated(); ev.GetId() != bob.Member.GetId() || ev.GetTimedOutUntilMs() != until {
		t.Fatalf("carol heard %v, want bob's member_updated with the timeout", ev)
	}
	state, err := carol.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range state.Msg.GetMembers() {
		if m.GetId() == bob.Member.GetId() && m.GetTimedOutUntilMs() != until {
			t.Fatalf("GetState shows bob with timed_out_until_ms %d", m.GetTimedOutUntilMs())
		}
	}

	// What bob may not do, each refusal saying until when.
	ends := "you are timed out until " + time.UnixMilli(until).UTC().Format("2006-01-02 15:04:05 UTC")
	_, err = bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hi"}))
	wantCode(t, "SendMessage", err, connect.CodePermissionDenied, ends, "(5m0s from now)")
	_, err = bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "reply", ThreadRootId: theirs.GetId()}))
	wantCode(t, "a thread reply", err, connect.CodePermissionDenied, ends)
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: mine.GetId(), Text: "edited"}))
	wantCode(t, "EditMessage", err, connect.CodePermissionDenied, ends)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "🎉"}))
	wantCode(t, "React", err, connect.CodePermissionDenied, ends)
	_, err = bob.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{carol.Member.GetId()}}))
	wantCode(t, "OpenDM", err, connect.CodePermissionDenied, ends)
	_, err = bob.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: general.GetId()}))
	wantCode(t, "SetTyping", err, connect.CodePermissionDenied, ends)
	_, err = bob.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: theirs.GetId()}))
	wantCode(t, "ReportMessage", err, connect.CodePermissionDenied, ends)
	// What bob still may.
	_, err = bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	wantOK(t, "ListMessages", err)
	_, err = bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	wantOK(t, "GetState", err)
	_, err = bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: general.GetId(), Seq: theirs.GetSeq()}))
	wantOK(t, "MarkRead", err)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "👍", Remove: true}))
	wantOK(t, "taking a reaction back", err)
	_, err = bob.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: "theirs"}))
	wantOK(t, "Search", err)
	_, err = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: ptr("quiet for now")}))
	wantOK(t, "UpdateProfile", err)

	// Changed, then ended by a moderator: everyone hears it, and bob may write again.
	if m, err := timeout(admin, bob, 3600, "again"); err != nil || m.GetTimedOutUntilMs() != c.clock.Now().Add(time.Hour).UnixMilli() {
		t.Fatalf("changing the timeout: %v, %v", m, err)
	}
	later := c.clock.Now().Add(time.Hour).UnixMilli()
	carolSees.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetTimedOutUntilMs() == later })
	if m, err := timeout(mod, bob, 0, "served"); err != nil || m.GetTimedOutUntilMs() != 0 {
		t.Fatalf("ending the timeout: %v, %v", m, err)
	}
	if ev := carolSees.Next().GetMemberUpdated(); ev.GetId() != bob.Member.GetId() || ev.GetTimedOutUntilMs() != 0 {
		t.Fatalf("carol heard %v, want bob's member_updated without the timeout", ev)
	}
	c.send(bob, general.GetId(), "free")
	// Ending one that is not running changes nothing, sends nothing and records nothing.
	marker(t, c.owner, carolSees)
	if _, err := timeout(mod, bob, 0, ""); err != nil {
		t.Fatal(err)
	}
	if got := marker(t, c.owner, carolSees); len(got[0]) != 0 {
		t.Fatalf("ending no timeout sent %v", got[0])
	}
	// A timeout ends by itself.
	if _, err := timeout(mod, bob, 60, ""); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(61 * time.Second)
	c.send(bob, general.GetId(), "a minute later")
	me, err := bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil || me.Msg.GetMember().GetTimedOutUntilMs() != 0 {
		t.Fatalf("GetMe after the timeout ended: %v %v", me, err)
	}

	names := namesOf(c.owner, admin, mod, bob)
	entries := auditLog(t, mod, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_MEMBER_TIMED_OUT})
	want := []string{
		"moderator-2 MEMBER_TIMED_OUT bob (spam): until " + time.UnixMilli(until).UTC().Format("2006-01-02 15:04:05 UTC") + " (5m0s)",
		"admin-1 MEMBER_TIMED_OUT bob (again): until",
		"moderator-2 MEMBER_TIMED_OUT bob (served): ended",
		"moderator-2 MEMBER_TIMED_OUT bob: until",
	}
	got := auditNames(entries, names)
	for i := range want {
		if len(got) != len(want) || !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("timeout entries\n\t%v\nwant\n\t%v", got, want)
		}
	}
}

// TestSlowmode: an admin sets a channel's slowmode; a member below moderator then sends one
// message (thread replies included) per slowmode_s there, and is told how long to wait, with
// Retry-After; moderators, edits and other channels are not slowed.
func TestSlowmode(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob := c.join("bob")
	slow, other := c.channel("slow"), c.channel("other")
	set := func(by *webtest.Client, s int32) (*svcv1.Channel, error) {
		res, err := by.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: slow.GetId(), SlowmodeS: &s}))
		if err != nil {
			return nil, err
		}
		return res.Msg.GetChannel(), nil
	}
	_, err := set(admin, 21_601)
	wantCode(t, "slowmode_s over 6 hours", err, connect.CodeInvalidArgument, "slowmode_s must be 0 (off) to 21,600 seconds (6 hours); got 21601")
	_, err = set(admin, -1)
	wantCode(t, "a negative slowmode_s", err, connect.CodeInvalidArgument, "got -1")
	_, err = set(mod, 30)
	wantCode(t, "a moderator setting slowmode", err, connect.CodePermissionDenied)
	st := bob.Subscribe(t, c.s.Engine.Seq())
	ch, err := set(admin, 30)
	if err != nil || ch.GetSlowmodeS() != 30 {
		t.Fatalf("UpdateChannel slowmode_s 30: %v %v", ch, err)
	}
	if ev := st.Next().GetChannelUpdated(); ev.GetSlowmodeS() != 30 {
		t.Fatalf("channel_updated carries slowmode_s %d", ev.GetSlowmodeS())
	}

	first := c.send(bob, slow.GetId(), "first")
	send := func(by *webtest.Client, r *svcv1.SendMessageRequest) error {
		_, err := by.Chat.SendMessage(ctx, req(r))
		return err
	}
	c.clock.Advance(10 * time.Second)
	err = send(bob, &svcv1.SendMessageRequest{ChannelId: slow.GetId(), Text: "second"})
	wantCode(t, "a second message", err, connect.CodeResourceExhausted, "slowmode: this channel takes one message every 30s from each member; wait 20s")
	if got := retryAfter(err); got != "20" {
		t.Errorf("Retry-After %q, want 20", got)
	}
	err = send(bob, &svcv1.SendMessageRequest{ChannelId: slow.GetId(), Text: "reply", ThreadRootId: first.GetId()})
	wantCode(t, "a thread reply", err, connect.CodeResourceExhausted, "wait 20s")
	// Edits, other channels and moderators are not slowed; a refused send counted for nothing.
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: first.GetId(), Text: "first!"}))
	wantOK(t, "an edit", err)
	c.send(bob, other.GetId(), "elsewhere")
	c.send(mod, slow.GetId(), "mod one")
	c.send(mod, slow.GetId(), "mod two")
	c.clock.Advance(17 * time.Second) // 30 s since the first (each send above moved it 1 s)
	c.send(bob, slow.GetId(), "reply in time")
	msgs, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: slow.GetId()}))
	if err != nil || len(msgs.Msg.GetMessages()) != 4 {
		t.Fatalf("the slow channel holds %v, %v; want bob's two and the moderator's two", msgs, err)
	}
	// Off again: no wait.
	if _, err := set(admin, 0); err != nil {
		t.Fatal(err)
	}
	c.send(bob, slow.GetId(), "fast")
	c.send(bob, slow.GetId(), "faster")
	// The change is in the audit log, with its value.
	entries := auditLog(t, admin, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_CHANNEL_UPDATED})
	if got := auditNames(entries, namesOf(admin)); !slices.Equal(got, []string{"admin-1 CHANNEL_UPDATED: slowmode_s 30", "admin-1 CHANNEL_UPDATED: slowmode_s 0"}) {
		t.Fatalf("channel entries %v", got)
	}
	if entries[0].GetChannelId() != slow.GetId() {
		t.Fatalf("the entry names channel %s", entries[0].GetChannelId())
	}
}

// TestLockdown: an admin closes the community to newcomers: Join is refused to anyone who is
// not a member (with a valid invite too, which stays unused), members and bots go on; opening
// it again lets them in.
func TestLockdown(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol := c.join("bob"), c.join("carol")
	general := c.channel("general")
	yes := true
	if _, err := admin.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{InviteOnly: &yes})); err != nil {
		t.Fatal(err)
	}
	inv, err := mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	code := inv.Msg.GetInvite().GetCode()
	if _, err := carol.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	lock := func(by *webtest.Client, on bool) error {
		_, err := by.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Lockdown: &on}))
		return err
	}
	wantCode(t, "a moderator locking down", lock(mod, true), connect.CodePermissionDenied, "changing the settings needs the admin rank or higher")
	if err := lock(admin, true); err != nil {
		t.Fatal(err)
	}
	info, err := c.s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || !info.Msg.GetLockdown() {
		t.Fatalf("GetServerInfo.lockdown = %v, %v", info.Msg.GetLockdown(), err)
	}
	_, err = c.tryJoin("dave", code)
	wantCode(t, "a newcomer with a valid invite", err, connect.CodeFailedPrecondition, "this community is closed to new members for now")
	_, err = c.tryJoin("carol", code)
	wantCode(t, "a member who left", err, connect.CodeFailedPrecondition, "closed to new members")
	invites, err := mod.Server.ListInvites(ctx, req(&svcv1.ListInvitesRequest{}))
	if err != nil || invites.Msg.GetInvites()[0].GetUses() != 0 {
		t.Fatalf("the invite after refused joins: %v, %v; want it unused", invites, err)
	}
	// Members and bots go on.
	if res, err := c.tryJoin("bob", ""); err != nil || res.GetCreated() || res.GetMember().GetId() != bob.Member.GetId() {
		t.Fatalf("a member's Join during a lockdown: %v, %v", res, err)
	}
	c.send(bob, general.GetId(), "still here")
	helper := c.s.CreateBot(admin, "helper")
	mustSend(t, helper, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "beep"})

	if err := lock(admin, false); err != nil {
		t.Fatal(err)
	}
	if res, err := c.tryJoin("dave", code); err != nil || !res.GetCreated() {
		t.Fatalf("joining after the lockdown: %v, %v", res, err)
	}
	got := auditNames(auditLog(t, mod, nil), namesOf(admin))
	if !slices.Contains(got, "admin-1 LOCKDOWN_ON") || !slices.Contains(got, "admin-1 LOCKDOWN_OFF") || !slices.Contains(got, "admin-1 SETTINGS_CHANGED: invite_only") {
		t.Fatalf("the audit log %v lacks the lockdown or the settings change", got)
	}
}

// TestFilters: the moderation settings' rank rules and limits, and the filters: blocked words
// as people write them, and the most mentions, for members below moderator, refused with the
// rule named (never the word), nothing stored, the refusal in the audit log.
func TestFilters(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol := c.join("bob"), c.join("carol")
	general := c.channel("general")

	_, err := bob.Server.GetModerationSettings(ctx, req(&svcv1.GetModerationSettingsRequest{}))
	wantCode(t, "a member reading the settings", err, connect.CodePermissionDenied, "needs the moderator rank")
	got, err := mod.Server.GetModerationSettings(ctx, req(&svcv1.GetModerationSettingsRequest{}))
	if err != nil || got.Msg.GetSettings() == nil || len(got.Msg.GetSettings().GetBlockedWords()) != 0 {
		t.Fatalf("the settings of a new community: %v, %v", got, err)
	}
	update := func(by *webtest.Client, r *svcv1.UpdateModerationSettingsRequest) (*svcv1.ModerationSettings, error) {
		res, err := by.Server.UpdateModerationSettings(ctx, req(r))
		if err != nil {
			return nil, err
		}
		return res.Msg.GetSettings(), nil
	}
	_, err = update(mod, &svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"darn"}})
	wantCode(t, "a moderator changing the settings", err, connect.CodePermissionDenied, "needs the admin rank")
	_, err = update(admin, &svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: make([]string, 501)})
	wantCode(t, "501 words", err, connect.CodeInvalidArgument, "blocked_words has 501 words; the limit is 500")
	_, err = update(admin, &svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{strings.Repeat("x", 51)}})
	wantCode(t, "a word of 51 characters", err, connect.CodeInvalidArgument, "blocked_words[0] must be 1 to 50 characters; it is 51")
	two := int32(2)
	s, err := update(admin, &svcv1.UpdateModerationSettingsRequest{
		SetBlockedWords: true, BlockedWords: []string{"darn", " heck* ", "free nitro"},
		MaxMentions: &two, Require_2FaRank: ptr(svcv1.MemberRole_MEMBER_ROLE_MODERATOR),
	})
	if err != nil || !slices.Equal(s.GetBlockedWords(), []string{"darn", "heck*", "free nitro"}) || s.GetMaxMentions() != 2 || s.GetRequire_2FaRank() != svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		t.Fatalf("UpdateModerationSettings: %v, %v", s, err)
	}
	if got, err := mod.Server.GetModerationSettings(ctx, req(&svcv1.GetModerationSettingsRequest{})); err != nil || got.Msg.GetSettings().GetMaxMentions() != 2 {
		t.Fatalf("GetModerationSettings after the update: %v, %v", got, err)
	}
	// Never public.
	info, _ := c.s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if strings.Contains(info.Msg.String(), "darn") {
		t.Fatal("GetServerInfo shows the blocked words")
	}

	ok := c.send(bob, general.GetId(), "a check, hm")
	refusedAs := func(text, rule string) {
		t.Helper()
		c.clock.Advance(time.Second)
		_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text}))
		wantCode(t, "sending "+text, err, connect.CodeInvalidArgument, "("+rule+")")
		if err != nil && strings.Contains(strings.ToLower(err.Error()), "darn") {
			t.Errorf("the refusal names the word: %v", err)
		}
	}
	refusedAs("oh DARN!", "blocked_words")
	refusedAs("Darn, again", "blocked_words")
	refusedAs("heckin' good", "blocked_words")
	refusedAs("get Free-Nitro now", "blocked_words")
	id := func(m *webtest.Client) string { return "<@" + m.Member.GetId() + ">" }
	refusedAs(id(carol)+" "+id(mod)+" <!here>", "max_mentions")
	c.send(bob, general.GetId(), "darnation and checks")
	c.send(bob, general.GetId(), id(carol)+" "+id(carol)+" "+id(carol)+" "+id(mod))
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: ok.GetId(), Text: "darn it"}))
	wantCode(t, "an edit", err, connect.CodeInvalidArgument, "(blocked_words)")
	// Moderators and higher are not filtered.
	c.send(mod, general.GetId(), "darn spammers")
	// Nothing of the refused ones is stored.
	msgs, err := carol.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs.Msg.GetMessages() {
		texts = append(texts, m.GetText())
	}
	if want := []string{"a check, hm", "darnation and checks", id(carol) + " " + id(carol) + " " + id(carol) + " " + id(mod), "darn spammers"}; !slices.Equal(texts, want) {
		t.Fatalf("the channel holds %q, want %q", texts, want)
	}
	// The refusals are in the audit log: the sender as target, no actor, the rule, never the text.
	entries := auditLog(t, admin, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_MESSAGE_REFUSED})
	got2 := auditNames(entries, namesOf(bob))
	want := []string{
		" MESSAGE_REFUSED bob: filter blocked_words: message refused",
		" MESSAGE_REFUSED bob: filter blocked_words: message refused",
		" MESSAGE_REFUSED bob: filter blocked_words: message refused",
		" MESSAGE_REFUSED bob: filter blocked_words: message refused",
		" MESSAGE_REFUSED bob: filter max_mentions: message refused",
		" MESSAGE_REFUSED bob: filter blocked_words: edit refused",
	}
	for i := range got2 {
		got2[i] = " " + got2[i]
	}
	if !slices.Equal(got2, want) {
		t.Fatalf("refusal entries\n\t%q\nwant\n\t%q", got2, want)
	}
	if e := entries[0]; e.GetChannelId() != general.GetId() || e.GetMessageId() != ok.GetId() || e.GetActorId() != "" {
		t.Fatalf("the edit's entry %v", e)
	}
	for _, e := range entries {
		if strings.Contains(e.String(), "arn") || strings.Contains(e.String(), "eck") {
			t.Fatalf("an entry holds the text: %v", e)
		}
	}
	changed := auditNames(auditLog(t, admin, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_MODERATION_SETTINGS_CHANGED}), namesOf(admin))
	if !slices.Equal(changed, []string{"admin-1 MODERATION_SETTINGS_CHANGED: blocked_words (3 words), max_mentions 2, require_2fa_rank MODERATOR"}) {
		t.Fatalf("settings entries %v", changed)
	}
}

// TestAuditLog: every action of the list that this server has is recorded, with the actor, the
// target and the reason; ListAuditLog pages newest first and filters by action and member;
// audit_appended reaches moderators and higher (those who see the entry's channel), never a
// plain member; a restart and a replay keep everything.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol, dave, erin := c.join("bob"), c.join("carol"), c.join("dave"), c.join("erin")
	names := namesOf(owner, admin, mod, bob, carol, dave)
	seq := c.s.Engine.Seq()
	modSees, adminSees, erinSees := auditStream(t, mod, seq), auditStream(t, admin, seq), auditStream(t, erin, seq)

	// The actions.
	general := c.channel("general")
	secret := mustChannel(t, admin, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if _, err := admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: general.GetId(), Topic: ptr("hello")})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: secret.GetId(), Topic: ptr("hush")})); err != nil {
		t.Fatal(err)
	}
	crew, err := admin.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "crew"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: crew.Msg.GetRole().GetId(), Color: ptr("#112233")})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: dave.Member.GetId(), RoleIds: []string{crew.Msg.GetRole().GetId()}})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: dave.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: crew.Msg.GetRole().GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: dave.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})); err != nil {
		t.Fatal(err)
	}
	name := "Den"
	if _, err := admin.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: &name})); err != nil {
		t.Fatal(err)
	}
	inv, err := mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{MaxUses: 5}))
	if err != nil {
		t.Fatal(err)
	}
	code := inv.Msg.GetInvite().GetCode()
	if _, err := mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: code})); err != nil {
		t.Fatal(err)
	}
	if a := postEmoji(t, c.s, mod.Token, part{form: "file", file: "party.png", body: bytes.NewReader(pngImage(t, 8, 8))}); a.status != 200 {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	if _, err := mod.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "party"})); err != nil {
		t.Fatal(err)
	}
	bot, err := admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "helper"}))
	if err != nil {
		t.Fatal(err)
	}
	botID := bot.Msg.GetBot().GetId()
	names[botID] = "helper"
	if _, err := admin.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: botID})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: botID})); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, admin, "quiet", `chat.on('message', m => {})`)
	if _, err := admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "quiet", Enabled: false})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "quiet", Enabled: true})); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "quiet"})); err != nil {
		t.Fatal(err)
	}
	spam := c.send(bob, general.GetId(), "spam")
	if err := report(carol, spam.GetId(), "spam"); err != nil {
		t.Fatal(err)
	}
	r := reportAbout(listReports(t, mod), spam.GetId())
	if _, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: r.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: spam.GetId()})); err != nil {
		t.Fatal(err)
	}
	own := c.send(carol, general.GetId(), "oops")
	if _, err := carol.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: own.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: bob.Member.GetId(), DurationS: 600, Reason: "cool off"})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: carol.Member.GetId(), Reason: "rude"})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: bob.Member.GetId(), Reason: "spammer"})); err != nil {
		t.Fatal(err)
	}
	bans, err := mod.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
	if err != nil || len(bans.Msg.GetBans()) != 1 || bans.Msg.GetBans()[0].GetReason() != "spammer" {
		t.Fatalf("ListBans = %v, %v; want bob's ban with its reason", bans, err)
	}
	if _, err := admin.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: bob.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	_, err = mod.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: dave.Member.GetId(), Reason: strings.Repeat("r", 501)}))
	wantCode(t, "a kick's reason of 501 characters", err, connect.CodeInvalidArgument, "reason is 501 characters; the limit is 500")
	_, err = mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: dave.Member.GetId(), Reason: strings.Repeat("r", 501)}))
	wantCode(t, "a ban's reason of 501 characters", err, connect.CodeInvalidArgument, "reason is 501 characters; the limit is 500")

	want := []string{
		"owner CHANNEL_CREATED: text channel",
		"admin-1 CHANNEL_CREATED: private channel",
		"admin-1 CHANNEL_UPDATED: topic",
		"admin-1 CHANNEL_UPDATED: topic",
		`admin-1 ROLE_CREATED: role "crew"`,
		`admin-1 ROLE_UPDATED: role "crew": color`,
		`admin-1 MEMBER_ROLES_CHANGED dave: roles +"crew"`,
		`admin-1 MEMBER_ROLES_CHANGED dave: roles -"crew"`,
		`admin-1 ROLE_DELETED: role "crew"`,
		"owner MEMBER_RANK_CHANGED dave: rank MEMBER -> MODERATOR",
		"admin-1 SETTINGS_CHANGED: name",
		"moderator-2 INVITE_CREATED: invite " + code + ", 5 uses",
		"moderator-2 INVITE_REVOKED: invite " + code,
		"moderator-2 EMOJI_ADDED: :party:",
		"moderator-2 EMOJI_DELETED: :party:",
		"admin-1 BOT_CREATED helper: bot helper",
		"admin-1 BOT_TOKEN_ROTATED helper: bot helper",
		"admin-1 BOT_DELETED helper: bot helper",
		"admin-1 PLUGIN_INSTALLED: plugin quiet",
		"admin-1 PLUGIN_DISABLED: plugin quiet",
		"admin-1 PLUGIN_ENABLED: plugin quiet",
		"admin-1 PLUGIN_DELETED: plugin quiet",
		"moderator-2 REPORT_RESOLVED bob: 1 report resolved",
		"moderator-2 MESSAGE_DELETED bob",
		"moderator-2 MEMBER_TIMED_OUT bob (cool off): until " + c.clock.Now().Add(10*time.Minute).UTC().Format("2006-01-02 15:04:05 UTC") + " (10m0s)",
		"moderator-2 MEMBER_KICKED carol (rude)",
		"moderator-2 MEMBER_BANNED bob (spammer)",
		"admin-1 MEMBER_UNBANNED bob",
	}
	wantLog := func(who string, got []string, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("%s reads the audit log\n\t%q\nwant\n\t%q", who, got, want)
		}
	}
	// The admin sees it all (after the setup's own entries); the moderator not the entries of
	// the private channel they are not in.
	notSecret := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "admin-1 CHANNEL_CREATED: private channel" })
	notSecret = slices.Delete(notSecret, 2, 3) // the second topic change: #secret's
	setup := []string{
		"owner SETTINGS_CHANGED: setup_complete",
		"owner MEMBER_RANK_CHANGED admin-1: rank MEMBER -> ADMIN",
		"owner MEMBER_RANK_CHANGED moderator-2: rank MEMBER -> MODERATOR",
	}
	wantLog("the admin", auditNames(auditLog(t, admin, nil), names), append(slices.Clone(setup), want...))
	wantLog("the moderator", auditNames(auditLog(t, mod, nil), names), append(slices.Clone(setup), notSecret...))
	// Live: the same, as audit_appended; a member gets none.
	got := auditsUntilMarker(t, owner, adminSees, modSees, erinSees)
	wantLog("the admin's stream", auditNames(reverse(got[0]), names), want)
	wantLog("the moderator's stream", auditNames(reverse(got[1]), names), notSecret)
	if len(got[2]) != 0 {
		t.Fatalf("a member received %d audit entries", len(got[2]))
	}
	_, err = erin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{}))
	wantCode(t, "a member reading the audit log", err, connect.CodePermissionDenied, "reading the audit log needs the moderator rank or higher")

	// Pages, newest first.
	all := auditLog(t, admin, nil)
	var paged []*svcv1.AuditEntry
	before := ""
	for {
		res, err := admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{BeforeId: before, Limit: 7}))
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, res.Msg.GetEntries()...)
		if !res.Msg.GetHasMore() {
			break
		}
		before = res.Msg.GetEntries()[len(res.Msg.GetEntries())-1].GetId()
	}
	if len(paged) != len(all) || paged[0].GetId() != all[0].GetId() || paged[len(paged)-1].GetId() != all[len(all)-1].GetId() {
		t.Fatalf("pages of 7 gave %d entries, want %d in the same order", len(paged), len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].GetAtMs() < all[i].GetAtMs() || all[i-1].GetId() <= all[i].GetId() {
			t.Fatalf("not newest first at %d", i)
		}
	}
	res, err := admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{}))
	if err != nil || len(res.Msg.GetEntries()) != min(50, len(all)) {
		t.Fatalf("the default page: %d entries, %v", len(res.Msg.GetEntries()), err)
	}
	for _, l := range []int32{-1, 201} {
		_, err := admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{Limit: l}))
		wantCode(t, "limit", err, connect.CodeInvalidArgument, "limit must be 1 to 200 (default 50)")
	}
	_, err = admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{BeforeId: "01890000-0000-7000-8000-000000000000"}))
	wantCode(t, "an unknown before_id", err, connect.CodeNotFound, "is not an entry of the audit log")
	_, err = admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{Action: 999}))
	wantCode(t, "an unknown action", err, connect.CodeInvalidArgument, "action 999 is not an AuditAction")
	// By action, and by member (as actor or target), paged too.
	bobs := auditNames(auditLog(t, admin, &svcv1.ListAuditLogRequest{MemberId: bob.Member.GetId(), Limit: 200}), names)
	wantLog("bob's entries", bobs, []string{
		"moderator-2 REPORT_RESOLVED bob: 1 report resolved",
		"moderator-2 MESSAGE_DELETED bob",
		"moderator-2 MEMBER_TIMED_OUT bob (cool off): " + strings.SplitN(want[24], ": ", 2)[1],
		"moderator-2 MEMBER_BANNED bob (spammer)",
		"admin-1 MEMBER_UNBANNED bob",
	})
	res, err = admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{MemberId: mod.Member.GetId(), Action: svcv1.AuditAction_AUDIT_ACTION_MEMBER_KICKED, Limit: 1}))
	if err != nil || len(res.Msg.GetEntries()) != 1 || res.Msg.GetHasMore() || res.Msg.GetEntries()[0].GetTargetMemberId() != carol.Member.GetId() {
		t.Fatalf("the moderator's kicks: %v, %v", res, err)
	}
	res, err = admin.Server.ListAuditLog(ctx, req(&svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_CHANNEL_UPDATED, Limit: 1}))
	if err != nil || len(res.Msg.GetEntries()) != 1 || !res.Msg.GetHasMore() {
		t.Fatalf("a page of one channel update: %v, %v", res, err)
	}

	// A restart keeps the log; a replay brings the entries again, to the same people.
	c.s.Restart()
	wantLog("the admin after a restart", auditNames(auditLog(t, admin, nil), names), append(slices.Clone(setup), want...))
	got = auditsUntilMarker(t, owner, auditStream(t, admin, seq), auditStream(t, mod, seq), auditStream(t, dave, seq))
	wantLog("the admin's replay", auditNames(reverse(got[0]), names), want)
	wantLog("the moderator's replay", auditNames(reverse(got[1]), names), notSecret)
	if len(got[2]) == 0 {
		t.Fatal("dave, a moderator since, got no audit entries on replay")
	}
	bans, err = mod.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
	if err != nil || len(bans.Msg.GetBans()) != 0 {
		t.Fatalf("ListBans after the unban and a restart: %v %v", bans, err)
	}
}

// reverse is a list newest first, for auditNames.
func reverse(es []*svcv1.AuditEntry) []*svcv1.AuditEntry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}

// TestReportsReachModerators: report_filed goes, as the report is filed and as it is replaced,
// to the moderators and higher who may list it (who outrank its author; the owner always,
// without the reporter for a report about the owner), and GetState counts what each may list.
func TestReportsReachModerators(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol := c.join("bob"), c.join("carol")
	general := c.channel("general")
	byBob := c.send(bob, general.GetId(), "by bob")
	byMod := c.send(mod, general.GetId(), "by the moderator")
	byOwner := c.send(owner, general.GetId(), "by the owner")
	seq := c.s.Engine.Seq()
	streams := []*webtest.Stream{owner.Subscribe(t, seq), admin.Subscribe(t, seq), mod.Subscribe(t, seq), bob.Subscribe(t, seq), carol.Subscribe(t, seq)}
	who := []string{"owner", "admin", "moderator", "bob", "carol"}
	filed := func(by *webtest.Client, m *svcv1.Message, note string) [][]*svcv1.Report {
		t.Helper()
		c.clock.Advance(time.Minute)
		if err := report(by, m.GetId(), note); err != nil {
			t.Fatal(err)
		}
		bio := "after " + note
		if _, err := owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
			t.Fatal(err)
		}
		out := make([][]*svcv1.Report, len(streams))
		for i, st := range streams {
			for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio }) {
				if r := ev.GetReportFiled(); r != nil {
					out[i] = append(out[i], r)
				}
			}
		}
		return out
	}
	reached := func(what string, got [][]*svcv1.Report, want ...bool) {
		t.Helper()
		for i := range want {
			if (len(got[i]) == 1) != want[i] || len(got[i]) > 1 {
				t.Errorf("%s: %s got %d report_filed, want %v", what, who[i], len(got[i]), want[i])
			}
		}
	}
	got := filed(carol, byBob, "spam")
	reached("a report about bob", got, true, true, true, false, false)
	if r := got[2][0]; r.GetMessage().GetText() != "by bob" || r.GetNote() != "spam" || r.GetReporter().GetId() != carol.Member.GetId() || r.GetAuthor().GetId() != bob.Member.GetId() || r.GetId() == "" {
		t.Fatalf("the moderator's report_filed = %v", r)
	}
	got = filed(carol, byBob, "spam, twice")
	reached("the same report replaced", got, true, true, true, false, false)
	if got[0][0].GetNote() != "spam, twice" {
		t.Fatalf("the replaced report_filed = %v", got[0][0])
	}
	got = filed(bob, byMod, "rude mod")
	reached("a report about the moderator", got, true, true, false, false, false)
	got = filed(bob, byOwner, "rude owner")
	reached("a report about the owner", got, true, false, false, false, false)
	if r := got[0][0]; r.GetReporter() != nil || r.GetAuthor().GetId() != owner.Member.GetId() {
		t.Fatalf("the owner's report_filed about themselves = %v, want no reporter", r)
	}
	for i, c := range []*webtest.Client{owner, admin, mod, bob, carol} {
		st, err := c.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if want := []int32{3, 2, 1, 0, 0}[i]; st.Msg.GetOpenReports() != want {
			t.Errorf("%s: open_reports %d, want %d", who[i], st.Msg.GetOpenReports(), want)
		}
	}
}

// TestSafetyOutlivesRestartAndRestore: timeouts, slowmode (and when each member last sent),
// the lockdown, the moderation settings, ban reasons and the audit log are state like any other:
// a restart keeps them, and so does a backup restored on a fresh machine.
func TestSafetyOutlivesRestartAndRestore(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol, dave := c.join("bob"), c.join("carol"), c.join("dave")
	slow := c.channel("slow")
	thirty := int32(30)
	if _, err := c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: slow.GetId(), SlowmodeS: &thirty})); err != nil {
		t.Fatal(err)
	}
	c.send(carol, slow.GetId(), "just now")
	if _, err := mod.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: bob.Member.GetId(), DurationS: 3600})); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: dave.Member.GetId(), Reason: "raid"})); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Lockdown: &on})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.owner.Server.UpdateModerationSettings(ctx, req(&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"darn"}})); err != nil {
		t.Fatal(err)
	}
	entries := len(auditLog(t, mod, nil))
	check := func(when string) {
		t.Helper()
		_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: slow.GetId(), Text: "hi"}))
		wantCode(t, when+": bob's timeout", err, connect.CodePermissionDenied, "you are timed out until")
		_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: slow.GetId(), Text: "again"}))
		wantCode(t, when+": carol's slowmode", err, connect.CodeResourceExhausted, "slowmode")
		_, err = c.tryJoin("erin", "")
		wantCode(t, when+": a newcomer", err, connect.CodeFailedPrecondition, "closed to new members")
		_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: c.channel("other-" + strings.ReplaceAll(when, " ", "-")).GetId(), Text: "darn"}))
		wantCode(t, when+": the blocked words", err, connect.CodeInvalidArgument, "(blocked_words)")
		bans, err := mod.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
		if err != nil || len(bans.Msg.GetBans()) != 1 || bans.Msg.GetBans()[0].GetReason() != "raid" {
			t.Errorf("%s: ListBans %v, %v", when, bans, err)
		}
		if n := len(auditLog(t, mod, nil)); n < entries {
			t.Errorf("%s: the audit log has %d entries, had %d", when, n, entries)
		}
	}
	check("before")
	c.s.Restart()
	check("after a restart")
	archive := backupOver(t, c.s.Dir)
	c.s.RestoreFresh(bytes.NewReader(archive))
	check("after a restore")
}
