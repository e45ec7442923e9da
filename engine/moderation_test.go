package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// addBot stores a bot member directly: there is no CreateBot yet to make one.
func (c *testCommunity) addBot(username string) Caller {
	c.t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	_, err := submit(c.e, func(tx *Tx) (struct{}, error) {
		return struct{}{}, tx.putMember(&storepb.MemberRecord{
			Member: &svcv1.Member{Id: id, Kind: svcv1.MemberKind_MEMBER_KIND_BOT, Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER, Username: username},
			State:  storepb.MemberState_MEMBER_STATE_ACTIVE,
		})
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return Caller{ID: id}
}

func (c *testCommunity) setRole(by, who Caller, role svcv1.MemberRole) error {
	_, err := c.e.SetMemberRole(context.Background(), by, &svcv1.SetMemberRoleRequest{MemberId: who.ID, Role: role})
	return err
}

// TestModerationOfBots: bots are not kicked or banned (DeleteBot removes them), whoever tries;
// everything else treats them as members of their rank.
func TestModerationOfBots(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, mod, member := c.join("owner"), c.join("mod"), c.join("member")
	if err := c.setRole(owner, mod, svcv1.MemberRole_MEMBER_ROLE_MODERATOR); err != nil {
		t.Fatal(err)
	}
	bot := c.addBot("helper")
	for _, by := range []struct {
		name string
		c    Caller
		want Code
	}{{"owner", owner, CodeFailedPrecondition}, {"moderator", mod, CodeFailedPrecondition}, {"member", member, CodePermissionDenied}} {
		_, err := c.e.KickMember(ctx, by.c, &svcv1.KickMemberRequest{MemberId: bot.ID})
		if CodeOf(err) != by.want {
			t.Errorf("KickMember of a bot by the %s: %v, want code %d", by.name, err, by.want)
		}
		_, err = c.e.BanMember(ctx, by.c, &svcv1.BanMemberRequest{MemberId: bot.ID})
		if CodeOf(err) != by.want {
			t.Errorf("BanMember of a bot by the %s: %v, want code %d", by.name, err, by.want)
		}
	}
	if _, err := c.e.KickMember(ctx, owner, &svcv1.KickMemberRequest{MemberId: bot.ID}); err == nil || err.Error() != fmt.Sprintf("member %s is a bot: bots are removed with DeleteBot", bot.ID) {
		t.Fatalf("the refusal says %v", err)
	}
	if err := c.setRole(owner, bot, svcv1.MemberRole_MEMBER_ROLE_MODERATOR); err != nil {
		t.Fatalf("giving a bot a rank: %v", err)
	}
	// A moderator bot is out of a moderator's reach like any moderator.
	if _, err := c.e.KickMember(ctx, mod, &svcv1.KickMemberRequest{MemberId: bot.ID}); CodeOf(err) != CodePermissionDenied {
		t.Fatalf("a moderator kicking a moderator bot: %v", err)
	}
	if _, err := c.e.MuteMember(ctx, member, &svcv1.MuteMemberRequest{MemberId: bot.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.BlockMember(ctx, member, &svcv1.BlockMemberRequest{MemberId: bot.ID}); err != nil {
		t.Fatal(err)
	}
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	m := c.send(bot, ch.GetChannel().GetId(), "beep", "")
	if _, err := c.e.ReportMessage(ctx, member, &svcv1.ReportMessageRequest{MessageId: m.GetId()}); err != nil {
		t.Fatal(err)
	}
	// The bot is a moderator now: its reports are for admins and the owner.
	res, err := c.e.ListReports(ctx, owner, &svcv1.ListReportsRequest{})
	if err != nil || len(res.GetReports()) != 1 || res.GetReports()[0].GetAuthor().GetKind() != svcv1.MemberKind_MEMBER_KIND_BOT {
		t.Fatalf("the owner's reports: %v %v", res, err)
	}
	if res, err := c.e.ListReports(ctx, mod, &svcv1.ListReportsRequest{}); err != nil || len(res.GetReports()) != 0 {
		t.Fatalf("the moderator's reports about a moderator bot: %v %v", res, err)
	}
}

// TestRankChangesWhatAMemberSees: admins see every TEXT channel, so becoming admin shows a
// role-limited channel (channel_created to the member's devices only) and stepping down hides
// it again (channel_deleted).
func TestRankChangesWhatAMemberSees(t *testing.T) {
	c := openTestCommunity(t)
	owner, bob := c.join("owner"), c.join("bob")
	limited := &svcv1.Channel{Id: uuid.Must(uuid.NewV7()).String(), Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: "staff", RoleIds: []string{"staff-role"}}
	_, err := submit(c.e, func(tx *Tx) (struct{}, error) {
		return struct{}{}, tx.putChannel(&storepb.ChannelRecord{Channel: limited})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		role svcv1.MemberRole
		want string
	}{
		{svcv1.MemberRole_MEMBER_ROLE_ADMIN, "created"},
		{svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "deleted"},
	} {
		from := c.e.Seq()
		if err := c.setRole(owner, bob, step.role); err != nil {
			t.Fatal(err)
		}
		var got []string
		err := c.db.View(func(r *store.Reader) error {
			return r.Events(from, c.e.Seq(), func(le *storepb.LoggedEvent) (bool, error) {
				ev, aud := le.GetEvent(), le.GetAudience()
				switch {
				case ev.GetMemberUpdated() != nil && aud.GetKind() == storepb.Audience_KIND_EVERYONE:
					got = append(got, "member_updated to everyone")
				case ev.GetChannelCreated().GetId() == limited.Id && aud.GetMemberIds()[0] == bob.ID && len(aud.GetMemberIds()) == 1:
					got = append(got, "created to bob")
				case ev.GetChannelDeleted() == limited.Id && aud.GetMemberIds()[0] == bob.ID && len(aud.GetMemberIds()) == 1:
					got = append(got, "deleted to bob")
				case ev.GetAuditAppended().GetAction() == svcv1.AuditAction_AUDIT_ACTION_MEMBER_RANK_CHANGED && aud.GetKind() == storepb.Audience_KIND_MODERATORS:
					got = append(got, "audit to moderators")
				default:
					got = append(got, fmt.Sprint(ev, aud))
				}
				return true, nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != "member_updated to everyone" || got[1] != step.want+" to bob" || got[2] != "audit to moderators" {
			t.Fatalf("to %s: events %v", step.role, got)
		}
	}
}
