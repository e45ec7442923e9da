package web_test

import (
	"net/http"

	"connectrpc.com/connect"
	"fmt"
	"google.golang.org/protobuf/proto"
	"slices"
	"strings"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The events audit: for every call that changes something, which events it sends and to whom,
// live and on replay. Each step of a table runs one call in a community with someone of every
// rank, a role-limited channel, a private channel and a DM, and checks what each observer's
// stream received (live, opened before the call), then that a stream subscribed afterwards from
// the seq before the call replays exactly the same to the same observers.

// auditScene is the community the steps run in.
type auditScene struct {
	*cast
	crew             *svcv1.Role
	general, limited *svcv1.Channel // TEXT; limited is seen by crew holders, admins and the owner
	priv             *svcv1.Channel // PRIVATE: admin and member
	dm               *svcv1.Channel // DM: member and member2
	observers        []*webtest.Client
	names            []string
	// ephemeral has the streams keep typing events (presence and heartbeats are left out).
	ephemeral bool
	// restart restarts the server between the live check and the replay.
	restart bool
}

func newAuditScene(t *testing.T) *auditScene {
	t.Helper()
	a := &auditScene{cast: newCast(t)}
	a.crew = a.role(t, "crew")
	a.general = a.channel(t, a.admin, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	a.limited = a.channel(t, a.admin, "limited", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustAccess(t, a.admin, a.limited, false, a.crew)
	mustSetRoles(t, a.admin, a.member, a.crew)
	a.priv = a.channel(t, a.admin, "priv", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustAdd(t, a.admin, a.priv, a.member)
	a.dm = dmOf(t, a.labels, a.member, "#dm", a.member2)
	a.observers = []*webtest.Client{a.owner, a.admin, a.mod, a.member, a.member2, a.bot}
	a.names = []string{"owner", "admin", "mod", "member", "member2", "bot"}
	return a
}

// auditStep is one call and what each observer must receive from it, by name (an observer
// left out receives nothing). gone names observers the call takes out of the community: their
// streams must end with nothing more.
type auditStep struct {
	name string
	call func(t *testing.T)
	want func() map[string][]string
	gone []string
	// out names observers who are not in the community when the call is made: not watched.
	out []string
	// stale, when set, says why a client that applies this step's events to its GetState
	// sidebar does not have the sidebar GetState gives after it (the sidebar is not checked).
	stale string
}

// run runs the steps in order, each against the community the ones before it left.
func (a *auditScene) run(t *testing.T, steps []auditStep) {
	t.Helper()
	for _, st := range steps {
		var watched []*webtest.Client
		var names []string
		for i, o := range a.observers {
			if !slices.Contains(st.gone, a.names[i]) && !slices.Contains(st.out, a.names[i]) {
				watched, names = append(watched, o), append(names, a.names[i])
			}
		}
		before := a.s.Engine.Seq()
		var sidebars [][]string
		for _, o := range watched {
			sidebars = append(sidebars, sidebarOf(t, a.labels, o))
		}
		var live []*webtest.Stream
		for _, o := range watched {
			live = append(live, a.subscribe(t, o, before))
		}
		var leaving []*webtest.Stream
		var leavers []string
		for i, o := range a.observers {
			if slices.Contains(st.gone, a.names[i]) {
				leaving, leavers = append(leaving, o.Subscribe(t, before)), append(leavers, a.names[i])
			}
		}
		st.call(t)
		// Whoever the call takes out of the community gets nothing of it: their streams end.
		for i, l := range leaving {
			for _, ev := range l.Rest() {
				t.Errorf("%s: %s, taken out of the community, received %s", st.name, leavers[i], a.labels.describe(ev))
			}
		}
		want := st.want()
		got := a.received(t, live)
		for _, s := range live {
			s.Close()
		}
		if a.restart {
			a.s.Restart()
		}
		// The replay runs up to the marker the live check sent, then to a second one.
		var replay []*webtest.Stream
		for _, o := range watched {
			replay = append(replay, a.subscribe(t, o, before))
		}
		replayed := a.received(t, replay)
		for _, s := range replay {
			s.Close()
		}
		for i, n := range names {
			// A client that applies the events to the sidebar of its GetState has the sidebar
			// GetState now gives: channel_created and channel_updated add, channel_deleted drops.
			if wantBar, gotBar := sidebarOf(t, a.labels, watched[i]), applySidebar(sidebars[i], got[i]); st.stale == "" && !slices.Equal(gotBar, wantBar) {
				t.Errorf("%s: %s's sidebar with the events applied is %v; GetState says %v", st.name, n, gotBar, wantBar)
			}
			w := want[n]
			if w == nil {
				w = []string{}
			}
			if !slices.Equal(got[i], w) {
				t.Errorf("%s: %s received live\n  %s\nwant\n  %s", st.name, n, strings.Join(got[i], " | "), strings.Join(w, " | "))
			}
			r := replayed[i]
			if len(r) == 0 || r[len(r)-1] != "member_updated:owner" {
				t.Errorf("%s: %s's replay did not end with the marker: %s", st.name, n, strings.Join(r, " | "))
				continue
			}
			// Ephemeral events are not logged: a replay has none of them.
			logged := slices.DeleteFunc(slices.Clone(got[i]), func(s string) bool { return strings.HasPrefix(s, "typing:") })
			if r = r[:len(r)-1]; !slices.Equal(r, logged) {
				t.Errorf("%s: %s received on replay\n  %s\nlive\n  %s", st.name, n, strings.Join(r, " | "), strings.Join(got[i], " | "))
			}
		}
	}
}

func (a *auditScene) subscribe(t *testing.T, o *webtest.Client, after int64) *webtest.Stream {
	st := o.Subscribe(t, after)
	st.Ephemeral = a.ephemeral
	return st
}

// received is labels.received without heartbeats and presence changes (which streams opening
// and closing make).
func (a *auditScene) received(t *testing.T, streams []*webtest.Stream) [][]string {
	t.Helper()
	got := a.labels.received(t, a.owner, streams...)
	for i := range got {
		got[i] = slices.DeleteFunc(got[i], func(s string) bool {
			return s == "*svcv1.Event_Heartbeat" || s == "*svcv1.Event_Presence" || s == "*svcv1.Event_PresenceBatch"
		})
	}
	return got
}

// applySidebar applies described channel events to a sidebar of channel labels.
func applySidebar(bar, events []string) []string {
	out := slices.Clone(bar)
	for _, e := range events {
		k, label, _ := strings.Cut(e, ":")
		switch k {
		case "channel_created", "channel_updated":
			if !slices.Contains(out, label) {
				out = append(out, label)
			}
		case "channel_deleted":
			out = slices.DeleteFunc(out, func(s string) bool { return s == label })
		}
	}
	slices.Sort(out)
	return out
}

// to gives every named observer the same events.
func to(events []string, names ...string) map[string][]string {
	out := map[string][]string{}
	for _, n := range names {
		out[n] = events
	}
	return out
}

// everyone names every observer.
var everyone = []string{"owner", "admin", "mod", "member", "member2", "bot"}

func ev(s ...string) []string { return s }

func fixed(m map[string][]string) func() map[string][]string {
	return func() map[string][]string { return m }
}

// TestEventsAuditChannelsAndMessages: channel and message calls in ROLES mode.
func TestEventsAuditChannelsAndMessages(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	a.run(t, channelAndMessageSteps(a))
}

// TestEventsAuditReplayAfterRestart: the same calls, each replayed after a restart: who may
// receive a logged event is stored with it.
func TestEventsAuditReplayAfterRestart(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	a.restart = true
	a.run(t, channelAndMessageSteps(a))
}

func channelAndMessageSteps(a *auditScene) []auditStep {
	var root *svcv1.Message
	var dmMsg *svcv1.Message
	var readSeq int64
	limitedViewers := []string{"owner", "admin", "member"}
	return []auditStep{
		{name: "CreateChannel TEXT", call: func(t *testing.T) {
			a.channel(t, a.admin, "open", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
		}, want: fixed(to(ev("channel_created:#open"), everyone...))},
		{name: "CreateChannel PRIVATE", call: func(t *testing.T) {
			a.channel(t, a.admin, "closed", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
		}, want: fixed(to(ev("channel_created:#closed"), "admin"))},
		{name: "UpdateChannel limited", call: func(t *testing.T) {
			topic := "t"
			_, err := a.admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: a.limited.GetId(), Topic: &topic}))
			wantOK(t, "UpdateChannel", err)
		}, want: fixed(to(ev("channel_updated:#limited"), limitedViewers...))},
		{name: "UpdateChannel private", call: func(t *testing.T) {
			topic := "t"
			_, err := a.admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: a.priv.GetId(), Topic: &topic}))
			wantOK(t, "UpdateChannel", err)
		}, want: fixed(to(ev("channel_updated:#priv"), "admin", "member"))},
		{name: "SendMessage TEXT", call: func(t *testing.T) {
			mustSend(t, a.member2, &svcv1.SendMessageRequest{ChannelId: a.general.GetId(), Text: "in general"})
		}, want: fixed(to(ev("message_created:in general"), everyone...))},
		{name: "SendMessage limited", call: func(t *testing.T) {
			root = mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.limited.GetId(), Text: "in limited"})
		}, want: fixed(to(ev("message_created:in limited"), limitedViewers...))},
		{name: "thread reply limited", call: func(t *testing.T) {
			mustSend(t, a.admin, &svcv1.SendMessageRequest{ChannelId: a.limited.GetId(), Text: "reply", ThreadRootId: root.GetId()})
		}, want: fixed(to(ev("message_created:reply", "message_updated:in limited"), limitedViewers...))},
		{name: "EditMessage limited", call: func(t *testing.T) {
			_, err := a.member.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: root.GetId(), Text: "edited"}))
			wantOK(t, "EditMessage", err)
		}, want: fixed(to(ev("message_updated:edited"), limitedViewers...))},
		{name: "React limited", call: func(t *testing.T) {
			_, err := a.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: "👍"}))
			wantOK(t, "React", err)
		}, want: fixed(to(ev("message_updated:edited"), limitedViewers...))},
		{name: "React again changes nothing", call: func(t *testing.T) {
			_, err := a.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: "👍"}))
			wantOK(t, "React", err)
		}, want: fixed(nil)},
		{name: "DeleteMessage limited", call: func(t *testing.T) {
			_, err := a.member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: root.GetId()}))
			wantOK(t, "DeleteMessage", err)
		}, want: fixed(to(ev("message_deleted:#limited"), limitedViewers...))},
		{name: "DeleteMessage again", call: func(t *testing.T) {
			_, err := a.member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: root.GetId()}))
			wantOK(t, "DeleteMessage again", err)
		}, want: fixed(nil)},
		{name: "refused calls", call: func(t *testing.T) {
			_, err := a.member2.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: a.priv.GetId(), MemberIds: memberIDs(a.member2)}))
			wantCode(t, "AddChannelMembers by an outsider", err, connect.CodePermissionDenied)
			_, err = a.member.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: a.general.GetId(), Text: strings.Repeat("x", 8001)}))
			wantCode(t, "SendMessage too long", err, connect.CodeInvalidArgument)
			_, err = a.member.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: a.general.GetId(), Text: "x", AttachmentIds: []string{"nope"}}))
			wantCode(t, "SendMessage with an unknown attachment", err, connect.CodeNotFound)
			_, err = a.mod.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: a.general.GetId()}))
			wantCode(t, "UpdateChannel by a moderator", err, connect.CodePermissionDenied)
		}, want: fixed(nil)},
		{name: "SendMessage with client_id", call: func(t *testing.T) {
			mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.priv.GetId(), Text: "once", ClientId: "k1"})
		}, want: fixed(to(ev("message_created:once"), "admin", "member"))},
		{name: "SendMessage repeated client_id", call: func(t *testing.T) {
			mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.priv.GetId(), Text: "once", ClientId: "k1"})
		}, want: fixed(nil)},
		{name: "SendMessage private", call: func(t *testing.T) {
			mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.priv.GetId(), Text: "in priv"})
		}, want: fixed(to(ev("message_created:in priv"), "admin", "member"))},
		{name: "SendMessage DM", call: func(t *testing.T) {
			dmMsg = mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.dm.GetId(), Text: "in dm"})
		}, want: fixed(to(ev("message_created:in dm"), "member", "member2"))},
		{name: "React DM", call: func(t *testing.T) {
			_, err := a.member2.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: dmMsg.GetId(), Emoji: "👍"}))
			wantOK(t, "React", err)
		}, want: fixed(to(ev("message_updated:in dm"), "member", "member2"))},
		{name: "MarkRead", call: func(t *testing.T) {
			res, err := a.member.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: a.general.GetId(), Seq: a.s.Engine.Seq()}))
			wantOK(t, "MarkRead", err)
			readSeq = res.Msg.GetReadState().GetLastReadSeq()
		}, want: func() map[string][]string { return to(ev(fmt.Sprintf("read_state:%d", readSeq)), "member") }},
		{name: "hide DM", call: func(t *testing.T) {
			_, err := a.member.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: a.dm.GetId(), MemberId: a.member.Member.GetId()}))
			wantOK(t, "RemoveChannelMember DM", err)
		}, want: fixed(to(ev("channel_deleted:#dm"), "member"))},
		{name: "message into a hidden DM", call: func(t *testing.T) {
			mustSend(t, a.member2, &svcv1.SendMessageRequest{ChannelId: a.dm.GetId(), Text: "back"})
		}, want: fixed(map[string][]string{"member": ev("channel_updated:#dm", "message_created:back"), "member2": ev("message_created:back")})},
		{name: "hide DM again", call: func(t *testing.T) {
			_, err := a.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: a.dm.GetId()}))
			wantOK(t, "LeaveChannel DM", err)
		}, want: fixed(to(ev("channel_deleted:#dm"), "member"))},
		{name: "OpenDM puts the caller back", call: func(t *testing.T) {
			dmOf(t, a.labels, a.member, "#dm", a.member2)
		}, want: fixed(to(ev("channel_updated:#dm"), "member"))},
		{name: "OpenDM new", call: func(t *testing.T) {
			dmOf(t, a.labels, a.member2, "#dm2", a.bot)
		}, want: fixed(to(ev("channel_created:#dm2"), "member2", "bot"))},
		{name: "AddChannelMembers", call: func(t *testing.T) {
			mustAdd(t, a.member, a.priv, a.member2)
		}, want: fixed(to(ev("channel_updated:#priv"), "admin", "member", "member2"))},
		{name: "RemoveChannelMember other", call: func(t *testing.T) {
			_, err := a.admin.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: a.priv.GetId(), MemberId: a.member2.Member.GetId()}))
			wantOK(t, "RemoveChannelMember", err)
		}, want: fixed(map[string][]string{"admin": ev("channel_updated:#priv"), "member": ev("channel_updated:#priv"), "member2": ev("channel_deleted:#priv")})},
		{name: "LeaveChannel private", call: func(t *testing.T) {
			_, err := a.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: a.priv.GetId()}))
			wantOK(t, "LeaveChannel", err)
		}, want: fixed(map[string][]string{"admin": ev("channel_updated:#priv"), "member": ev("channel_deleted:#priv")})},
		{name: "SetChannelAccess narrows", call: func(t *testing.T) {
			mustAccess(t, a.admin, a.general, false, a.crew)
		}, want: fixed(map[string][]string{
			"owner": ev("channel_updated:#general"), "admin": ev("channel_updated:#general"), "member": ev("channel_updated:#general"),
			"mod": ev("channel_deleted:#general"), "member2": ev("channel_deleted:#general"), "bot": ev("channel_deleted:#general"),
		})},
		{name: "SetChannelAccess opens", call: func(t *testing.T) {
			mustAccess(t, a.admin, a.general, false)
		}, want: fixed(map[string][]string{
			"owner": ev("channel_updated:#general"), "admin": ev("channel_updated:#general"), "member": ev("channel_updated:#general"),
			"mod": ev("channel_created:#general"), "member2": ev("channel_created:#general"), "bot": ev("channel_created:#general"),
		})},
		{name: "SetMemberRoles grants sight", call: func(t *testing.T) {
			mustSetRoles(t, a.admin, a.member2, a.crew)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:member2"), everyone...)
			m["member2"] = ev("member_updated:member2", "channel_created:#limited")
			return m
		}},
		{name: "SetMemberRole to admin grants sight", call: func(t *testing.T) {
			_, err := a.owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: a.mod.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_ADMIN}))
			wantOK(t, "SetMemberRole", err)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:mod"), everyone...)
			m["mod"] = ev("member_updated:mod", "channel_created:#limited")
			return m
		}},
		{name: "SetMemberRole from admin takes sight", call: func(t *testing.T) {
			_, err := a.owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: a.mod.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR}))
			wantOK(t, "SetMemberRole", err)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:mod"), everyone...)
			m["mod"] = ev("member_updated:mod", "channel_deleted:#limited")
			return m
		}},
	}
}

// TestEventsAuditCommunity: members, roles, settings (images included), blocks and mutes,
// emoji, bots, invites, reports and uploads, then the OPT_IN mode and a kick.
func TestEventsAuditCommunity(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	var newRole *svcv1.Role
	var newBot *webtest.Client
	var newcomer *webtest.Client
	var code string
	up := func(label string) []string { return ev("channel_updated:" + label) }
	all := func(e ...string) func() map[string][]string { return fixed(to(e, everyone...)) }
	msg := mustSend(t, a.member2, &svcv1.SendMessageRequest{ChannelId: a.general.GetId(), Text: "report me"})
	a.run(t, []auditStep{
		{name: "UpdateProfile", call: func(t *testing.T) {
			bio := "hi"
			_, err := a.member2.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio}))
			wantOK(t, "UpdateProfile", err)
		}, want: all("member_updated:member2")},
		{name: "UpdateProfile avatar upload", call: func(t *testing.T) {
			img := mustUpload(t, a.s, a.member2, "me.png", pngImage(t, 8, 8))
			_, err := a.member2.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: &img.Url}))
			wantOK(t, "UpdateProfile avatar_url", err)
		}, want: all("member_updated:member2")},
		{name: "POST /upload", call: func(t *testing.T) {
			mustUpload(t, a.s, a.member, "notes.txt", []byte("notes"))
		}, want: fixed(nil)},
		{name: "UpdateServerSettings", call: func(t *testing.T) {
			d := "about us"
			_, err := a.admin.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Description: &d}))
			wantOK(t, "UpdateServerSettings", err)
		}, want: all("server_updated")},
		{name: "UpdateServerSettings icon upload", call: func(t *testing.T) {
			img := mustUpload(t, a.s, a.admin, "icon.png", pngImage(t, 8, 8))
			_, err := a.admin.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: &img.Id}))
			wantOK(t, "UpdateServerSettings icon_id", err)
		}, want: all("server_updated")},
		{name: "UpdateChannel header image", call: func(t *testing.T) {
			img := mustUpload(t, a.s, a.admin, "header.png", pngImage(t, 8, 8))
			_, err := a.admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: a.priv.GetId(), HeaderImageId: &img.Id}))
			wantOK(t, "UpdateChannel header_image_id", err)
		}, want: fixed(to(up("#priv"), "admin", "member"))},
		{name: "CreateRole", call: func(t *testing.T) {
			newRole = a.role(t, "cooks")
		}, want: all("role_updated:cooks@1")},
		{name: "UpdateRole", call: func(t *testing.T) {
			name := "chefs"
			_, err := a.admin.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: newRole.GetId(), Name: &name}))
			wantOK(t, "UpdateRole", err)
		}, want: all("role_updated:chefs@1")},
		{name: "DeleteRole", call: func(t *testing.T) {
			_, err := a.admin.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: newRole.GetId()}))
			wantOK(t, "DeleteRole", err)
		}, want: all("role_deleted:cooks")},
		{name: "BlockMember", call: func(t *testing.T) {
			_, err := a.member.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "BlockMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberBlocked"), "member"))},
		{name: "BlockMember again", call: func(t *testing.T) {
			_, err := a.member.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "BlockMember", err)
		}, want: fixed(nil)},
		{name: "UnblockMember", call: func(t *testing.T) {
			_, err := a.member.Server.UnblockMember(ctx, req(&svcv1.UnblockMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "UnblockMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberUnblocked"), "member"))},
		{name: "MuteMember", call: func(t *testing.T) {
			_, err := a.member2.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: a.member.Member.GetId()}))
			wantOK(t, "MuteMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberMuted"), "member2"))},
		{name: "UnmuteMember", call: func(t *testing.T) {
			_, err := a.member2.Server.UnmuteMember(ctx, req(&svcv1.UnmuteMemberRequest{MemberId: a.member.Member.GetId()}))
			wantOK(t, "UnmuteMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberUnmuted"), "member2"))},
		{name: "POST /emoji", call: func(t *testing.T) {
			mustAddEmoji(t, a.s, a.mod, filePart("party.png", pngImage(t, 8, 8)))
		}, want: all("*svcv1.Event_EmojiChanged")},
		{name: "DeleteEmoji", call: func(t *testing.T) {
			_, err := a.mod.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "party"}))
			wantOK(t, "DeleteEmoji", err)
		}, want: all("*svcv1.Event_EmojiChanged")},
		{name: "ReportMessage", call: func(t *testing.T) {
			_, err := a.member.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: msg.GetId(), Note: "rude"}))
			wantOK(t, "ReportMessage", err)
		}, want: fixed(to([]string{"report_filed:report me"}, "owner", "admin", "mod"))}, // those who may list it
		{name: "ResolveReport", call: func(t *testing.T) {
			list, err := a.mod.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
			if err != nil || len(list.Msg.GetReports()) != 1 {
				t.Fatalf("ListReports: %v %v", list, err)
			}
			_, err = a.mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: list.Msg.GetReports()[0].GetId()}))
			wantOK(t, "ResolveReport", err)
		}, want: fixed(nil)},
		{name: "CreateInvite", call: func(t *testing.T) {
			res, err := a.mod.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{}))
			wantOK(t, "CreateInvite", err)
			code = res.Msg.GetInvite().GetCode()
		}, want: fixed(nil)},
		{name: "RevokeInvite", call: func(t *testing.T) {
			_, err := a.mod.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: code}))
			wantOK(t, "RevokeInvite", err)
		}, want: fixed(nil)},
		{name: "CreateBot", call: func(t *testing.T) {
			newBot = a.s.CreateBot(a.admin, "helper")
		}, want: all("member_joined:helper")},
		{name: "RotateBotToken", call: func(t *testing.T) {
			_, err := a.admin.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: newBot.Member.GetId()}))
			wantOK(t, "RotateBotToken", err)
		}, want: fixed(nil)},
		{name: "DeleteBot", call: func(t *testing.T) {
			_, err := a.admin.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: newBot.Member.GetId()}))
			wantOK(t, "DeleteBot", err)
		}, want: all("*svcv1.Event_MemberLeft")},
		{name: "Join", call: func(t *testing.T) {
			newcomer = a.s.Join("newcomer")
		}, want: all("member_joined:newcomer")},
		{name: "LeaveCommunity", call: func(t *testing.T) {
			_, err := newcomer.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			wantOK(t, "LeaveCommunity", err)
		}, want: all("*svcv1.Event_MemberLeft")},
		{name: "BanMember of one who left", call: func(t *testing.T) {
			_, err := a.mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: newcomer.Member.GetId()}))
			wantOK(t, "BanMember", err)
		}, want: fixed(nil)},
		{name: "UnbanMember", call: func(t *testing.T) {
			_, err := a.mod.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: newcomer.Member.GetId()}))
			wantOK(t, "UnbanMember", err)
		}, want: fixed(nil)},
		{name: "switch to OPT_IN", call: func(t *testing.T) {
			setMode(t, a.admin, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
		}, want: all("channel_mode_changed:CHANNEL_MODE_OPT_IN", "server_updated")},
		{name: "LeaveChannel OPT_IN", call: func(t *testing.T) {
			_, err := a.member2.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: a.general.GetId()}))
			wantOK(t, "LeaveChannel", err)
		}, want: fixed(to(ev("channel_deleted:#general"), "member2"))},
		{name: "SendMessage OPT_IN", call: func(t *testing.T) {
			mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.general.GetId(), Text: "joined only"})
		}, want: fixed(to(ev("message_created:joined only"), "owner", "admin", "mod", "member", "bot"))},
		{name: "JoinChannel OPT_IN", call: func(t *testing.T) {
			_, err := a.member2.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: a.general.GetId()}))
			wantOK(t, "JoinChannel", err)
		}, want: fixed(to(up("#general"), "member2"))},
		{name: "CreateChannel OPT_IN", stale: "channel_created goes to every member who sees a channel, joined or not (DECISIONS.md); in OPT_IN mode the sidebar is the joined channels", call: func(t *testing.T) {
			a.channel(t, a.admin, "later", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
		}, want: all("channel_created:#later")},
		// member was joined to #limited by the switch (it kept everyone in what they saw).
		{name: "SetMemberRoles takes sight of a joined channel", call: func(t *testing.T) {
			mustSetRoles(t, a.admin, a.member)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:member"), everyone...)
			m["member"] = ev("member_updated:member", "channel_deleted:#limited")
			return m
		}},
		// The same channel_created goes to a member who starts seeing a channel they have not
		// joined (not in their sidebar) and to one who sees again a channel they joined (back in
		// it): a client cannot tell the two apart.
		{name: "SetMemberRoles gives sight of a channel not joined", stale: "channel_created goes to every member who starts seeing a channel, joined or not (DECISIONS.md); in OPT_IN mode the sidebar is the joined channels", call: func(t *testing.T) {
			mustSetRoles(t, a.admin, a.member2, a.crew)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:member2"), everyone...)
			m["member2"] = ev("member_updated:member2", "channel_created:#limited")
			return m
		}},
		{name: "SetMemberRoles gives back sight of a joined channel", call: func(t *testing.T) {
			mustSetRoles(t, a.admin, a.member, a.crew)
		}, want: func() map[string][]string {
			m := to(ev("member_updated:member"), everyone...)
			m["member"] = ev("member_updated:member", "channel_created:#limited")
			return m
		}},
		{name: "switch to ROLES", stale: "a change of channel mode sends channel_mode_changed only: clients call GetState (docs/decisions.md)", call: func(t *testing.T) {
			setMode(t, a.admin, svcv1.ChannelMode_CHANNEL_MODE_ROLES)
		}, want: all("channel_mode_changed:CHANNEL_MODE_ROLES", "server_updated")},
		{name: "AddChannelMembers", call: func(t *testing.T) {
			mustAdd(t, a.member, a.priv, a.member2)
		}, want: fixed(to(up("#priv"), "admin", "member", "member2"))},
		{name: "KickMember", gone: []string{"member2"}, call: func(t *testing.T) {
			_, err := a.mod.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "KickMember", err)
		}, want: func() map[string][]string {
			m := to(ev("*svcv1.Event_MemberLeft"), everyone...)
			m["admin"] = ev("channel_updated:#priv", "*svcv1.Event_MemberLeft")
			m["member"] = m["admin"]
			return m
		}},
		{name: "Join after a kick", out: []string{"member2"}, call: func(t *testing.T) {
			a.s.Join("member2")
		}, want: fixed(to(ev("member_joined:member2"), "owner", "admin", "mod", "member", "bot"))},
		{name: "BanMember", gone: []string{"member2"}, call: func(t *testing.T) {
			_, err := a.mod.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "BanMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberLeft"), "owner", "admin", "mod", "member", "bot"))},
	})
}

// TestEventsAuditTyping: typing goes to the channel's other members only (a hidden DM's
// members included; blocks hide nothing outside DMs), never to the typist, and is not logged.
func TestEventsAuditTyping(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	a.ephemeral = true
	typing := func(by *webtest.Client, ch *svcv1.Channel) func(t *testing.T) {
		return func(t *testing.T) {
			_, err := by.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId()}))
			wantOK(t, "SetTyping", err)
		}
	}
	typed := func(label string, names ...string) func() map[string][]string {
		return fixed(to(ev("typing:"+label), names...))
	}
	a.run(t, []auditStep{
		{name: "TEXT", call: typing(a.member, a.general), want: typed("#general", "owner", "admin", "mod", "member2", "bot")},
		{name: "limited", call: typing(a.member, a.limited), want: typed("#limited", "owner", "admin")},
		{name: "private", call: typing(a.member, a.priv), want: typed("#priv", "admin")},
		{name: "DM", call: typing(a.member, a.dm), want: typed("#dm", "member2")},
		{name: "hide DM", call: func(t *testing.T) {
			_, err := a.member2.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: a.dm.GetId()}))
			wantOK(t, "LeaveChannel DM", err)
		}, want: fixed(to(ev("channel_deleted:#dm"), "member2"))},
		{name: "hidden DM", call: typing(a.member2, a.dm), want: typed("#dm", "member")},
		{name: "block", call: func(t *testing.T) {
			_, err := a.member.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: a.member2.Member.GetId()}))
			wantOK(t, "BlockMember", err)
		}, want: fixed(to(ev("*svcv1.Event_MemberBlocked"), "member"))},
		{name: "blocked in a DM", call: func(t *testing.T) {
			_, err := a.member2.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: a.dm.GetId()}))
			wantCode(t, "SetTyping in a DM with a block", err, 7)
		}, want: fixed(nil)},
		{name: "blocked in TEXT", call: typing(a.member2, a.general), want: typed("#general", "owner", "admin", "mod", "member", "bot")},
	})
}

// TestEventsAuditPayloads: the payload of each event is the whole object as the call answered
// it, with the seqs the API names: a message's seq is the seq of the event that last changed it,
// created_seq that of its message_created; a channel's last_message_seq its newest message's.
func TestEventsAuditPayloads(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	st := a.admin.Subscribe(t, a.s.Engine.Seq())
	next := func(what string) *svcv1.Event {
		t.Helper()
		ev := st.Next()
		// (An audit entry the call made may follow it: the stream passes audit_appended by.)
		if ev.GetSeq() != a.s.Engine.Seq() && !auditedAfter(t, a.s, ev.GetSeq()) {
			t.Fatalf("%s: event seq %d (%s), server at %d: not the newest", what, ev.GetSeq(), kind(ev), a.s.Engine.Seq())
		}
		return ev
	}
	same := func(what string, got, want proto.Message) {
		t.Helper()
		if !proto.Equal(got, want) {
			t.Errorf("%s: the event carries\n  %v\nthe call answered\n  %v", what, got, want)
		}
	}
	file := mustUpload(t, a.s, a.member, "a.txt", []byte("file"))
	root := mustSend(t, a.member, &svcv1.SendMessageRequest{ChannelId: a.priv.GetId(), Text: "root", AttachmentIds: []string{file.GetId()}, ClientId: "c1"})
	ev := next("SendMessage")
	m := ev.GetMessageCreated()
	if m.GetSeq() != ev.GetSeq() || m.GetCreatedSeq() != ev.GetSeq() || root.GetCreatedSeq() != ev.GetSeq() || m.GetClientId() != "c1" {
		t.Errorf("message_created at seq %d carries seq %d created_seq %d client_id %q; the answer created_seq %d", ev.GetSeq(), m.GetSeq(), m.GetCreatedSeq(), m.GetClientId(), root.GetCreatedSeq())
	}
	if len(m.GetAttachments()) != 1 || m.GetAttachments()[0].GetUrl() == "" {
		t.Fatalf("message_created attachments %v, want the file with a signed url", m.GetAttachments())
	}
	if got := fetch(t, a.s, http.MethodGet, m.GetAttachments()[0].GetUrl()); got.status != http.StatusOK || string(got.body) != "file" {
		t.Errorf("the attachment url of message_created gives %d %q", got.status, got.body)
	}

	reply := mustSend(t, a.admin, &svcv1.SendMessageRequest{ChannelId: a.priv.GetId(), Text: "reply", ThreadRootId: root.GetId()})
	if ev := st.Next(); ev.GetMessageCreated().GetId() != reply.GetId() {
		t.Fatalf("after a reply: %s, want its message_created", kind(ev))
	}
	ev = next("the root's update")
	r := ev.GetMessageUpdated()
	if r.GetId() != root.GetId() || r.GetSeq() != ev.GetSeq() || r.GetCreatedSeq() != root.GetCreatedSeq() || r.GetReplyCount() != 1 ||
		r.GetLastReplyAtMs() != reply.GetCreatedAtMs() || r.GetText() != "root" || len(r.GetAttachments()) != 1 {
		t.Errorf("the root's message_updated at seq %d: %v", ev.GetSeq(), r)
	}

	reacted, err := a.admin.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: "👍"}))
	wantOK(t, "React", err)
	ev = next("React")
	if ev.GetMessageUpdated().GetSeq() != ev.GetSeq() || ev.GetMessageUpdated().GetReplyCount() != 1 {
		t.Errorf("React's message_updated at seq %d: %v", ev.GetSeq(), ev.GetMessageUpdated())
	}
	same("React", ev.GetMessageUpdated(), reacted.Msg.GetMessage())

	edited, err := a.member.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: root.GetId(), Text: "root!"}))
	wantOK(t, "EditMessage", err)
	ev = next("EditMessage")
	if ev.GetMessageUpdated().GetSeq() != ev.GetSeq() || ev.GetMessageUpdated().GetEditedAtMs() == 0 || len(ev.GetMessageUpdated().GetReactions()) != 1 {
		t.Errorf("EditMessage's message_updated at seq %d: %v", ev.GetSeq(), ev.GetMessageUpdated())
	}
	same("EditMessage", ev.GetMessageUpdated(), edited.Msg.GetMessage())

	_, err = a.member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: root.GetId()}))
	wantOK(t, "DeleteMessage", err)
	ev = next("DeleteMessage")
	d := ev.GetMessageDeleted()
	if !d.GetDeleted() || d.GetText() != "" || len(d.GetAttachments()) != 0 || len(d.GetReactions()) != 0 || d.GetSeq() != ev.GetSeq() ||
		d.GetCreatedSeq() != root.GetCreatedSeq() || d.GetId() != root.GetId() || d.GetChannelId() != a.priv.GetId() {
		t.Errorf("message_deleted at seq %d: %v", ev.GetSeq(), d)
	}

	added := mustAdd(t, a.admin, a.priv, a.member2)
	ev = next("AddChannelMembers")
	same("AddChannelMembers", ev.GetChannelUpdated(), added)
	if got := ev.GetChannelUpdated(); !slices.Equal(got.GetMemberIds(), memberIDs(a.admin, a.member, a.member2)) || got.GetLastMessageSeq() != reply.GetCreatedSeq() {
		t.Errorf("channel_updated after an add: members %v last_message_seq %d, want all three and %d", got.GetMemberIds(), got.GetLastMessageSeq(), reply.GetCreatedSeq())
	}

	img := mustUpload(t, a.s, a.admin, "h.png", pngImage(t, 8, 8))
	upd, err := a.admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: a.priv.GetId(), HeaderImageId: &img.Id}))
	wantOK(t, "UpdateChannel", err)
	ev = next("UpdateChannel")
	if h := ev.GetChannelUpdated().GetHeaderImage(); h.GetId() != img.GetId() || h.GetWidth() != 8 || h.GetUrl() == "" || fetch(t, a.s, http.MethodGet, h.GetUrl()).status != http.StatusOK {
		t.Errorf("channel_updated header_image %v, want the upload with a signed url", h)
	}
	if got, want := ev.GetChannelUpdated(), upd.Msg.GetChannel(); got.GetTopic() != want.GetTopic() || got.GetLastMessageSeq() != want.GetLastMessageSeq() || !slices.Equal(got.GetMemberIds(), want.GetMemberIds()) {
		t.Errorf("UpdateChannel: event %v, answer %v", got, want)
	}

	roles, err := a.admin.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: a.member2.Member.GetId(), RoleIds: []string{a.crew.GetId()}}))
	wantOK(t, "SetMemberRoles", err)
	ev = st.Next() // then channel_created of #limited, which member2 now sees
	got := proto.Clone(ev.GetMemberUpdated()).(*svcv1.Member)
	want := proto.Clone(roles.Msg.GetMember()).(*svcv1.Member)
	got.Presence, want.Presence = 0, 0 // logged member events carry no presence (docs/decisions.md)
	same("SetMemberRoles", got, want)
}

// TestEventsAuditPresence: a presence change goes to every member, the member's own devices
// included, and is never logged: a replay has none.
func TestEventsAuditPresence(t *testing.T) {
	t.Parallel()
	a := newAuditScene(t)
	before := a.s.Engine.Seq()
	own := a.member.Subscribe(t, before) // member is ONLINE from here
	var streams []*webtest.Stream
	for _, o := range a.observers {
		st := o.Subscribe(t, before)
		st.Ephemeral = true
		streams = append(streams, st)
	}
	_, err := a.member.Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY}))
	wantOK(t, "SetPresence", err)
	away := func(ev *svcv1.Event) bool {
		changes := ev.GetPresenceBatch().GetChanges()
		if p := ev.GetPresence(); p != nil {
			changes = append(changes, p)
		}
		for _, c := range changes {
			if c.GetMemberId() == a.member.Member.GetId() && c.GetPresence() == svcv1.Presence_PRESENCE_AWAY {
				return ev.GetSeq() == 0
			}
		}
		return false
	}
	for _, st := range streams {
		st.Until(away) // fails the test if it never comes
	}
	own.Close()
	// Replayed from before the change: no presence event is in the log.
	replay := a.member2.Subscribe(t, before)
	replay.Ephemeral = true
	bio := "after presence"
	if _, err := a.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	for _, ev := range replay.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio }) {
		if (ev.GetPresence() != nil || ev.GetPresenceBatch() != nil || ev.GetTyping() != nil) && ev.GetSeq() != 0 {
			t.Errorf("a logged ephemeral event: %v", ev)
		}
	}
}
