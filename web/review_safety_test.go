package web_test

import (
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The moderation rules of EXTENSIONS.md 6 at the corners the other tests leave: the rank rule
// (nobody acts on a member of equal or higher rank) on every call of a moderator that acts on
// someone else, and the timeout on voice.

// TestNobodyModeratesAnEqualOrHigherRank: TimeoutMember, DeleteMessage and ClosePoll of
// someone else's message, SetMemberRoles and RemoveChannelMember, for every caller rank and
// every target rank, through HTTP, with the exact code. The owner's own cells are their own
// message, poll, roles and channel seat, which they may always touch.
func TestNobodyModeratesAnEqualOrHigherRank(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	callers := []*webtest.Client{c.owner}
	for _, r := range ranks[1:] {
		callers = append(callers, c.member(r))
	}
	general := c.channel("general")
	crew, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "crew"}))
	if err != nil {
		t.Fatal(err)
	}
	rooms := 0
	own := grid{
		{ok, ok, ok, ok},
		{den, den, ok, ok},
		{den, den, den, ok},
		{den, den, den, den},
	}
	for _, mx := range []struct {
		call string
		want grid
		act  func(caller, target *webtest.Client) error
	}{
		{"TimeoutMember", grid{
			{den, ok, ok, ok},
			{den, den, ok, ok},
			{den, den, den, ok},
			{den, den, den, den},
		}, func(caller, target *webtest.Client) error {
			_, err := caller.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: target.Member.GetId(), DurationS: 60}))
			return err
		}},
		{"DeleteMessage", own, func(caller, target *webtest.Client) error {
			m := c.send(target, general.GetId(), "delete me")
			_, err := caller.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
			return err
		}},
		{"ClosePoll", own, func(caller, target *webtest.Client) error {
			c.clock.Advance(time.Second)
			m := mustSend(t, target, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "Tea?", Options: []string{"yes", "no"}}})
			_, err := caller.Chat.ClosePoll(ctx, req(&svcv1.ClosePollRequest{MessageId: m.GetId()}))
			return err
		}},
		// Admins and the owner set roles; of a lower rank, or their own.
		{"SetMemberRoles", grid{
			{ok, ok, ok, ok},
			{den, den, ok, ok},
			{den, den, den, den},
			{den, den, den, den},
		}, func(caller, target *webtest.Client) error {
			_, err := caller.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: target.Member.GetId(), RoleIds: []string{crew.Msg.GetRole().GetId()}}))
			if err == nil {
				// Taken again, so that the next cell of this target changes something too.
				_, err = c.owner.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: target.Member.GetId()}))
			}
			return err
		}},
		// Both are in a private channel of their own; the caller takes the target out.
		{"RemoveChannelMember", own, func(caller, target *webtest.Client) error {
			rooms++
			ch := mustChannel(t, c.owner, fmt.Sprintf("room-%d", rooms), svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
			var add []*webtest.Client
			for _, m := range []*webtest.Client{caller, target} {
				if m != c.owner && (len(add) == 0 || add[0] != m) {
					add = append(add, m)
				}
			}
			if len(add) > 0 {
				ch = mustAdd(t, c.owner, ch, add...)
			}
			_, err := caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: target.Member.GetId()}))
			return err
		}},
	} {
		for i, caller := range callers {
			for j, r := range ranks {
				target := c.member(r)
				err := mx.act(caller, target)
				if got, want := codeOf(err), mx.want[i][j]; got != want {
					t.Errorf("%s by %s on %s: %v, want %v", mx.call, rankLabel(ranks[i]), rankLabel(r), err, codeName(want))
				}
			}
		}
	}
}

// TestTimedOutMemberCannotJoinVoice: joining a voice channel is refused while the timeout
// runs, saying until when, as every call a timeout stops is; once it ends, the member joins.
func TestTimedOutMemberCannotJoinVoice(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := startVoice(t, nil, webtest.WithClock(clock))
	owner, bob := s.Join("owner"), s.Join("bob")
	lounge := createVoiceChannel(t, owner, "lounge")
	if _, err := owner.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: bob.Member.GetId(), DurationS: 600})); err != nil {
		t.Fatal(err)
	}
	ends := "you are timed out until " + clock.Now().Add(10*time.Minute).UTC().Format("2006-01-02 15:04:05 UTC") + " (10m0s from now)"
	api := voiceClient(s, bob)
	_, err := api.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: lounge.GetId()}))
	wantCode(t, "JoinVoice while timed out", err, connect.CodePermissionDenied, ends, "join voice")
	clock.Advance(601 * time.Second)
	res, err := api.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: lounge.GetId()}))
	if err != nil {
		t.Fatalf("JoinVoice after the timeout ended: %v", err)
	}
	if _, err := api.LeaveVoice(ctx, connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: res.Msg.GetSessionId()})); err != nil {
		t.Fatal(err)
	}
}
