package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// community is a test server on a clock with an owner, for tests that need many members: each
// join moves the clock past the Join rate limit (10 a minute per address).
type community struct {
	t     *testing.T
	s     *webtest.Server
	clock *webtest.Clock
	owner *webtest.Client
	n     int
}

func newCommunity(t *testing.T, opts ...webtest.Option) *community {
	clock := webtest.NewClock()
	s := webtest.Start(t, append([]webtest.Option{webtest.WithClock(clock)}, opts...)...)
	c := &community{t: t, s: s, clock: clock}
	c.owner = c.join("owner")
	return c
}

func (c *community) join(sub string) *webtest.Client {
	c.t.Helper()
	c.clock.Advance(6 * time.Second)
	return c.s.Join(sub)
}

// member joins a new member and has the owner give them rank.
func (c *community) member(rank svcv1.MemberRole) *webtest.Client {
	c.t.Helper()
	if rank == svcv1.MemberRole_MEMBER_ROLE_OWNER {
		return c.owner
	}
	c.n++
	m := c.join(fmt.Sprintf("%s-%d", rankLabel(rank), c.n))
	if rank != svcv1.MemberRole_MEMBER_ROLE_MEMBER {
		res, err := c.owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: m.Member.GetId(), Role: rank}))
		if err != nil {
			c.t.Fatal(err)
		}
		m.Member = res.Msg.GetMember()
	}
	return m
}

// channel creates a TEXT channel as the owner.
func (c *community) channel(name string) *svcv1.Channel {
	c.t.Helper()
	return mustChannel(c.t, c.owner, name, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
}

// send posts as by, moving the clock past the send rate limit.
func (c *community) send(by *webtest.Client, channelID, text string) *svcv1.Message {
	c.t.Helper()
	c.clock.Advance(time.Second)
	return mustSend(c.t, by, &svcv1.SendMessageRequest{ChannelId: channelID, Text: text})
}

// ranks in the order of the rank matrices: rows are callers, columns targets.
var ranks = []svcv1.MemberRole{
	svcv1.MemberRole_MEMBER_ROLE_OWNER,
	svcv1.MemberRole_MEMBER_ROLE_ADMIN,
	svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
	svcv1.MemberRole_MEMBER_ROLE_MEMBER,
}

func rankLabel(r svcv1.MemberRole) string {
	return strings.ToLower(strings.TrimPrefix(r.String(), "MEMBER_ROLE_"))
}

// evName names an event with its payload's id where kind() has none.
func evName(ev *svcv1.Event) string {
	switch k := ev.GetKind().(type) {
	case *svcv1.Event_MemberLeft:
		return "member_left:" + k.MemberLeft
	case *svcv1.Event_MemberBlocked:
		return "member_blocked:" + k.MemberBlocked
	case *svcv1.Event_MemberUnblocked:
		return "member_unblocked:" + k.MemberUnblocked
	case *svcv1.Event_MemberMuted:
		return "member_muted:" + k.MemberMuted
	case *svcv1.Event_MemberUnmuted:
		return "member_unmuted:" + k.MemberUnmuted
	case *svcv1.Event_ChannelUpdated:
		return "channel_updated:" + k.ChannelUpdated.GetId() + ":" + strings.Join(k.ChannelUpdated.GetMemberIds(), ",")
	case *svcv1.Event_ChannelDeleted:
		return "channel_deleted:" + k.ChannelDeleted
	case *svcv1.Event_ChannelCreated:
		return "channel_created:" + k.ChannelCreated.GetId()
	case *svcv1.Event_ChannelModeChanged:
		return "channel_mode_changed:" + k.ChannelModeChanged.String()
	case *svcv1.Event_MemberUpdated:
		return "member_updated:" + k.MemberUpdated.GetId() + ":" + k.MemberUpdated.GetRole().String()
	}
	return kind(ev)
}

// between runs do, then returns the events each stream received in between (marker excluded),
// named by evName.
func between(t *testing.T, by *webtest.Client, do func(), streams ...*webtest.Stream) [][]string {
	t.Helper()
	do()
	bio := fmt.Sprintf("marker %d", markers.Add(1))
	if _, err := by.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(streams))
	for i, st := range streams {
		evs := st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio })
		for _, ev := range evs[:len(evs)-1] {
			out[i] = append(out[i], evName(ev))
		}
	}
	return out
}

// wantEvents compares what each stream got with what it should have, in order.
func wantEvents(t *testing.T, got, want [][]string, names ...string) {
	t.Helper()
	for i := range want {
		if strings.Join(got[i], " | ") != strings.Join(want[i], " | ") {
			t.Errorf("%s got\n\t%v\nwant\n\t%v", names[i], got[i], want[i])
		}
	}
}

// openDM opens the DM of a and b.
func openDM(t *testing.T, s *webtest.Server, a, b *webtest.Client) *svcv1.Channel {
	t.Helper()
	res, err := a.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{b.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetChannel()
}
