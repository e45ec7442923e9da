package web_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Helpers of the tests of DMs, private channels, roles, channel access and channel modes.

// cast is a community with someone of every rank, two of each below the owner so that equal
// ranks can be tried, and two bots. Ranks are seeded (no call makes them yet); the owner creates
// the bots.
type cast struct {
	s                                                *webtest.Server
	owner, admin, admin2, mod, mod2, member, member2 *webtest.Client
	bot, bot2                                        *webtest.Client
	labels                                           labels
}

func newCast(t *testing.T, options ...webtest.Option) *cast {
	t.Helper()
	s := webtest.Start(t, options...)
	c := &cast{s: s, labels: labels{}}
	c.owner = s.Join("owner")
	c.admin, c.admin2 = s.Join("admin"), s.Join("admin2")
	c.mod, c.mod2 = s.Join("mod"), s.Join("mod2")
	c.member, c.member2 = s.Join("member"), s.Join("member2")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{
		c.admin:  svcv1.MemberRole_MEMBER_ROLE_ADMIN,
		c.admin2: svcv1.MemberRole_MEMBER_ROLE_ADMIN,
		c.mod:    svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
		c.mod2:   svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
	})
	c.bot, c.bot2 = s.CreateBot(c.owner, "bot"), s.CreateBot(c.owner, "bot2")
	return c
}

func memberIDs(cs ...*webtest.Client) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Member.GetId()
	}
	return out
}

// labels name channels and roles by id, so that failures read "#secret", not a UUID.
type labels map[string]string

func (l labels) of(id string) string {
	if s, ok := l[id]; ok {
		return s
	}
	return id
}

// describe is an event in a few words, channels and roles by label.
func (l labels) describe(ev *svcv1.Event) string {
	switch k := ev.GetKind().(type) {
	case *svcv1.Event_ChannelCreated:
		return "channel_created:" + l.of(k.ChannelCreated.GetId())
	case *svcv1.Event_ChannelUpdated:
		return "channel_updated:" + l.of(k.ChannelUpdated.GetId())
	case *svcv1.Event_ChannelDeleted:
		return "channel_deleted:" + l.of(k.ChannelDeleted)
	case *svcv1.Event_RoleUpdated:
		return fmt.Sprintf("role_updated:%s@%d", k.RoleUpdated.GetName(), k.RoleUpdated.GetPosition())
	case *svcv1.Event_RoleDeleted:
		return "role_deleted:" + l.of(k.RoleDeleted)
	case *svcv1.Event_ChannelModeChanged:
		return "channel_mode_changed:" + k.ChannelModeChanged.String()
	case *svcv1.Event_Typing:
		return "typing:" + l.of(k.Typing.GetChannelId())
	case *svcv1.Event_MessageDeleted:
		return "message_deleted:" + l.of(k.MessageDeleted.GetChannelId())
	}
	return kind(ev)
}

// received makes a marker event every member gets (by changes their bio) and returns, per
// stream, the events it got before the marker, described: exactly what each member received in
// between, in order.
func (l labels) received(t *testing.T, by *webtest.Client, streams ...*webtest.Stream) [][]string {
	t.Helper()
	bio := fmt.Sprintf("marker %d", markers.Add(1))
	if _, err := by.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(streams))
	for i, st := range streams {
		evs := st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio })
		out[i] = []string{}
		for _, ev := range evs[:len(evs)-1] {
			out[i] = append(out[i], l.describe(ev))
		}
	}
	return out
}

// expect checks what each stream received since the last check against want (one list per
// stream, in the same order as the streams).
func (l labels) expect(t *testing.T, by *webtest.Client, streams []*webtest.Stream, names []string, want ...[]string) {
	t.Helper()
	got := l.received(t, by, streams...)
	for i := range streams {
		w := want[i]
		if w == nil {
			w = []string{}
		}
		if !slices.Equal(got[i], w) {
			t.Errorf("%s received\n  %s\nwant\n  %s", names[i], strings.Join(got[i], " | "), strings.Join(w, " | "))
		}
	}
}

func (c *cast) channel(t *testing.T, by *webtest.Client, name string, kind svcv1.ChannelKind) *svcv1.Channel {
	t.Helper()
	ch := mustChannel(t, by, name, kind)
	c.labels[ch.GetId()] = "#" + ch.GetName()
	return ch
}

func (c *cast) role(t *testing.T, name string) *svcv1.Role {
	t.Helper()
	res, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: name}))
	if err != nil {
		t.Fatal(err)
	}
	c.labels[res.Msg.GetRole().GetId()] = name
	return res.Msg.GetRole()
}

func mustAdd(t *testing.T, by *webtest.Client, ch *svcv1.Channel, who ...*webtest.Client) *svcv1.Channel {
	t.Helper()
	res, err := by.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: memberIDs(who...)}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetChannel()
}

func mustSetRoles(t *testing.T, by, who *webtest.Client, roles ...*svcv1.Role) {
	t.Helper()
	var rids []string
	for _, r := range roles {
		rids = append(rids, r.GetId())
	}
	if _, err := by.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: who.Member.GetId(), RoleIds: rids})); err != nil {
		t.Fatal(err)
	}
}

func mustAccess(t *testing.T, by *webtest.Client, ch *svcv1.Channel, isDefault bool, roles ...*svcv1.Role) *svcv1.Channel {
	t.Helper()
	var rids []string
	for _, r := range roles {
		rids = append(rids, r.GetId())
	}
	res, err := by.Chat.SetChannelAccess(ctx, req(&svcv1.SetChannelAccessRequest{ChannelId: ch.GetId(), RoleIds: rids, IsDefault: isDefault}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetChannel()
}

func setMode(t *testing.T, by *webtest.Client, mode svcv1.ChannelMode) {
	t.Helper()
	if _, err := by.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{ChannelMode: mode.Enum()})); err != nil {
		t.Fatal(err)
	}
}

// sidebar is the labels of the channels in a member's GetState, sorted.
func (c *cast) sidebar(t *testing.T, who *webtest.Client) []string {
	t.Helper()
	return sidebarOf(t, c.labels, who)
}

// wantCode checks an error's Connect code (0: no error) and that its message contains every part.
func wantCode(t *testing.T, what string, err error, code connect.Code, parts ...string) {
	t.Helper()
	if codeOf(err) != code {
		t.Errorf("%s: got %v, want %v", what, err, code)
		return
	}
	for _, p := range parts {
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("%s: message %q does not say %q", what, err.Error(), p)
		}
	}
}

// wantOK fails the test on an error.
func wantOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
}
