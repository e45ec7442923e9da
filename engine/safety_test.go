package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

var safetyRanks = []svcv1.MemberRole{
	svcv1.MemberRole_MEMBER_ROLE_OWNER,
	svcv1.MemberRole_MEMBER_ROLE_ADMIN,
	svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
	svcv1.MemberRole_MEMBER_ROLE_MEMBER,
}

// rankedCast joins one member of each rank (the owner first) and returns them by rank.
func (c *testCommunity) rankedCast(tag string) map[svcv1.MemberRole]Caller {
	c.t.Helper()
	out := map[svcv1.MemberRole]Caller{}
	for _, r := range safetyRanks {
		if r == svcv1.MemberRole_MEMBER_ROLE_OWNER {
			out[r] = c.join("owner")
			continue
		}
		m := c.join(fmt.Sprintf("%s-%d", tag, r))
		if r != svcv1.MemberRole_MEMBER_ROLE_MEMBER {
			if err := c.setRole(out[svcv1.MemberRole_MEMBER_ROLE_OWNER], m, r); err != nil {
				c.t.Fatal(err)
			}
		}
		out[r] = m
	}
	return out
}

// TestTimeoutRankGrid: moderators and higher time out members of lower rank only, as for a
// kick; nobody acts on an equal or a higher rank, nor on themselves.
func TestTimeoutRankGrid(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	cast := c.rankedCast("m")
	for _, by := range safetyRanks {
		for _, on := range safetyRanks {
			_, err := c.e.TimeoutMember(ctx, cast[by], &svcv1.TimeoutMemberRequest{MemberId: cast[on].ID, DurationS: 60})
			allowed := by >= svcv1.MemberRole_MEMBER_ROLE_MODERATOR && on < by
			if allowed && err != nil || !allowed && CodeOf(err) != CodePermissionDenied {
				t.Errorf("%s times out %s: %v (allowed %v)", rankName(by), rankName(on), err, allowed)
			}
			if allowed {
				// End it again, so that the timed-out member can act in the next rows.
				if _, err := c.e.TimeoutMember(ctx, cast[by], &svcv1.TimeoutMemberRequest{MemberId: cast[on].ID}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestTimedOutMembersReadButDoNotWrite: every call a timeout stops answers permission_denied
// saying until when, through the one check (checkNotTimedOut); reading, marking read, deleting
// one's own message and taking one's reaction back still work; the timeout ends by itself.
func TestTimedOutMembersReadButDoNotWrite(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, bob, carol := c.join("owner"), c.join("bob"), c.join("carol")
	general, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	ch := general.GetChannel().GetId()
	send := func(by Caller, text string) (*svcv1.Message, error) {
		c.clock.Advance(time.Second)
		res, err := c.e.SendMessage(ctx, by, &svcv1.SendMessageRequest{ChannelId: ch, Text: text})
		return res.GetMessage(), err
	}
	mine, err := send(bob, "mine")
	if err != nil {
		t.Fatal(err)
	}
	theirs, _ := send(carol, "theirs")
	if _, err := c.e.React(ctx, bob, &svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "👍"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.e.TimeoutMember(ctx, owner, &svcv1.TimeoutMemberRequest{MemberId: bob.ID, DurationS: 600, Reason: "cool off"})
	if err != nil {
		t.Fatal(err)
	}
	until := c.clock.Now().Add(10 * time.Minute).UnixMilli()
	if got := res.GetMember().GetTimedOutUntilMs(); got != until {
		t.Fatalf("timed_out_until_ms = %d, want %d", got, until)
	}
	refused := map[string]error{}
	_, refused["SendMessage"] = send(bob, "hello")
	_, refused["EditMessage"] = c.e.EditMessage(ctx, bob, &svcv1.EditMessageRequest{MessageId: mine.GetId(), Text: "edited"})
	_, refused["React"] = c.e.React(ctx, bob, &svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "🎉"})
	_, refused["OpenDM"] = c.e.OpenDM(ctx, bob, &svcv1.OpenDMRequest{MemberIds: []string{carol.ID}})
	_, refused["SetTyping"] = c.e.SetTyping(ctx, bob, &svcv1.SetTypingRequest{ChannelId: ch})
	_, refused["ReportMessage"] = c.e.ReportMessage(ctx, bob, &svcv1.ReportMessageRequest{MessageId: theirs.GetId()})
	for call, err := range refused {
		if CodeOf(err) != CodePermissionDenied || !strings.Contains(err.Error(), "timed out until "+auditTime(until)) {
			t.Errorf("%s while timed out: %v", call, err)
		}
	}
	if _, err := c.e.GetState(ctx, bob, &svcv1.GetStateRequest{}); err != nil {
		t.Errorf("GetState while timed out: %v", err)
	}
	if _, err := c.e.ListMessages(ctx, bob, &svcv1.ListMessagesRequest{ChannelId: ch}); err != nil {
		t.Errorf("ListMessages while timed out: %v", err)
	}
	if _, err := c.e.React(ctx, bob, &svcv1.ReactRequest{MessageId: theirs.GetId(), Emoji: "👍", Remove: true}); err != nil {
		t.Errorf("taking a reaction back while timed out: %v", err)
	}
	if _, err := c.e.DeleteMessage(ctx, bob, &svcv1.DeleteMessageRequest{MessageId: mine.GetId()}); err != nil {
		t.Errorf("deleting one's own message while timed out: %v", err)
	}
	// Leaving and coming back keeps it.
	if _, err := c.e.LeaveCommunity(ctx, bob, &svcv1.LeaveCommunityRequest{}); err != nil {
		t.Fatal(err)
	}
	bob = c.join("bob")
	if _, err := send(bob, "back"); CodeOf(err) != CodePermissionDenied {
		t.Errorf("sending after coming back: %v", err)
	}
	// It ends by itself; the views then show 0.
	c.clock.Advance(10 * time.Minute)
	if _, err := send(bob, "free"); err != nil {
		t.Errorf("sending once the timeout ended: %v", err)
	}
	me, _ := c.e.GetMe(ctx, bob, &svcv1.GetMeRequest{})
	if me.GetMember().GetTimedOutUntilMs() != 0 {
		t.Errorf("GetMe after the timeout shows %d", me.GetMember().GetTimedOutUntilMs())
	}
}

// TestWordFilter: blocked words as people write them.
func TestWordFilter(t *testing.T) {
	f := newWordFilter([]string{"darn", "heck*", "free nitro", "Café", "馬鹿", "🍆", "x"})
	for _, c := range []struct {
		text string
		want bool
	}{
		{"darn", true},
		{"Darn!", true},
		{"oh DARN, again", true},
		{"d\u0430rn", false}, // a Cyrillic а: another word (lookalikes are not folded)
		{"darnation", false},
		{"undarn", false},
		{"heck", true},
		{"HECKIN' good", true},
		{"oh heckity", true},
		{"check", false},
		{"get free nitro now", true},
		{"Free\tNitro!", true},
		{"free-nitro", true},
		{"free the nitro", false},
		{"nitro free", false},
		{"un café s'il vous plaît", true},
		{"CAFE", true},
		{"お前は馬鹿だ", true},
		{"馬", false},
		{"look 🍆", true},
		{"🍆🍆", true},
		{"<@01890000-0000-7000-8000-000000000000> hi", false},
		{"x", true},
		{"xx", false},
		{"", false},
	} {
		if got := f.matches(c.text); got != c.want {
			t.Errorf("matches(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestModerationSettingsLimits: every limit of UpdateModerationSettings.
func TestModerationSettingsLimits(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	many := make([]string, blockedWordsMax+1)
	for i := range many {
		many[i] = fmt.Sprintf("w%d", i)
	}
	for _, tc := range []struct {
		req  *svcv1.UpdateModerationSettingsRequest
		want string
	}{
		{&svcv1.UpdateModerationSettingsRequest{BlockedWords: []string{"a"}}, "only applied with set_blocked_words true"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: many}, "blocked_words has 501 words; the limit is 500"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{strings.Repeat("é", 51)}}, "blocked_words[0] must be 1 to 50 characters; it is 51"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"ok", "  "}}, "blocked_words[1] must be 1 to 50 characters; it is 0"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"a*b"}}, "`*` may only end a word"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"!!!"}}, "has no letter, digit or emoji"},
		{&svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: []string{"\xff"}}, "not valid UTF-8"},
		{&svcv1.UpdateModerationSettingsRequest{MaxMentions: ptr(int32(-1))}, "max_mentions must be 0 (off) to 1,000; got -1"},
		{&svcv1.UpdateModerationSettingsRequest{MaxMentions: ptr(int32(1001))}, "max_mentions must be 0 (off) to 1,000; got 1001"},
		{&svcv1.UpdateModerationSettingsRequest{Require_2FaRank: ptr(svcv1.MemberRole(9))}, "require_2fa_rank must be"},
	} {
		_, err := c.e.UpdateModerationSettings(ctx, owner, tc.req)
		if CodeOf(err) != CodeInvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want invalid_argument saying %q", tc.req, err, tc.want)
		}
	}
	// At the limits, and trimmed without repeats.
	words := append([]string{" spaced "}, many[:blockedWordsMax-1]...)
	words = append(words, "spaced", strings.Repeat("é", 50))
	res, err := c.e.UpdateModerationSettings(ctx, owner, &svcv1.UpdateModerationSettingsRequest{SetBlockedWords: true, BlockedWords: words[:blockedWordsMax], MaxMentions: ptr(int32(1000)), Require_2FaRank: ptr(svcv1.MemberRole_MEMBER_ROLE_OWNER)})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.GetSettings(); len(s.GetBlockedWords()) != blockedWordsMax || s.GetBlockedWords()[0] != "spaced" || s.GetMaxMentions() != 1000 || s.GetRequire_2FaRank() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("settings = %v", s)
	}
}

func ptr[T any](v T) *T { return &v }

// TestAuditIDsSortByTime: an entry's id is a UUIDv7 of its time whose order is the log's.
func TestAuditIDsSortByTime(t *testing.T) {
	ids := []string{auditID(1_000, 5), auditID(1_000, 6), auditID(1_001, 7), auditID(2_000_000_000_000, 1<<40)}
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Fatalf("%s !< %s", ids[i-1], ids[i])
		}
	}
	if !strings.HasPrefix(ids[0], "00000000-03e8-7000-8") {
		t.Fatalf("id %s is not a UUIDv7 of 1000 ms", ids[0])
	}
}

// TestAuditPurgeKeepsAYearAndRetention: entries are kept 365 days, or as long as retention
// keeps messages when that is longer, or for ever when messages are.
func TestAuditPurgeKeepsAYearAndRetention(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	entries := func() int {
		res, err := c.e.ListAuditLog(ctx, owner, &svcv1.ListAuditLogRequest{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.GetEntries())
	}
	if _, err := c.e.CreateInvite(ctx, owner, &svcv1.CreateInviteRequest{}); err != nil {
		t.Fatal(err)
	}
	// Forever: nothing goes.
	c.clock.Advance(1000 * 24 * time.Hour)
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 1 {
		t.Fatalf("with messages kept forever: %d entries, %v", entries(), err)
	}
	days := int32(30)
	if _, err := c.e.UpdateServerSettings(ctx, owner, &svcv1.UpdateServerSettingsRequest{RetentionDays: &days}); err != nil {
		t.Fatal(err)
	}
	// A retention of 30 days keeps the log 365: the entry of 1,000 days ago goes, the
	// settings change of now stays.
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 1 {
		t.Fatalf("after the purge: %d entries, %v", entries(), err)
	}
	c.clock.Advance(364 * 24 * time.Hour)
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 1 {
		t.Fatalf("after 364 days: %d entries, %v", entries(), err)
	}
	c.clock.Advance(2 * 24 * time.Hour)
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 0 {
		t.Fatalf("after 366 days: %d entries, %v", entries(), err)
	}
	// A retention of 400 days keeps it 400.
	days = 400
	if _, err := c.e.UpdateServerSettings(ctx, owner, &svcv1.UpdateServerSettingsRequest{RetentionDays: &days}); err != nil {
		t.Fatal(err)
	}
	c.clock.Advance(390 * 24 * time.Hour)
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 1 {
		t.Fatalf("after 390 days of 400: %d entries, %v", entries(), err)
	}
	c.clock.Advance(11 * 24 * time.Hour)
	if err := c.e.PurgeAuditNow(); err != nil || entries() != 0 {
		t.Fatalf("after 401 days of 400: %d entries, %v", entries(), err)
	}
	// Its index rows went with the entries.
	var left int
	err := c.db.View(func(r *store.Reader) error {
		for _, q := range []store.AuditQuery{{Action: svcv1.AuditAction_AUDIT_ACTION_SETTINGS_CHANGED, Limit: 10}, {Member: owner.ID, Limit: 10}} {
			es, _, err := r.Audit(q)
			left += len(es)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || left != 0 {
		t.Fatalf("index rows left: %d, %v", left, err)
	}
}

// TestModeratorAudience: an event to the moderators reaches moderators and higher; one about a
// member reaches only those who outrank them, and the owner.
func TestModeratorAudience(t *testing.T) {
	c := openTestCommunity(t)
	cast := c.rankedCast("a")
	d := c.e.Snapshot()
	for _, above := range append([]svcv1.MemberRole{svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED}, safetyRanks...) {
		aud := &storepb.Audience{Kind: storepb.Audience_KIND_MODERATORS}
		if above != svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED {
			aud.AboveMemberId = cast[above].ID
		}
		for _, who := range safetyRanks {
			want := who >= svcv1.MemberRole_MEMBER_ROLE_MODERATOR &&
				(above == svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED || who == svcv1.MemberRole_MEMBER_ROLE_OWNER || above < who)
			if got := d.receives(cast[who].ID, aud); got != want {
				t.Errorf("above %s, %s receives %v, want %v", rankName(above), rankName(who), got, want)
			}
		}
	}
}
