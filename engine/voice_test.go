package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// voiceHook records the sessions the engine ends.
type voiceHook struct {
	mu    sync.Mutex
	ended []VoiceEnded
}

func (h *voiceHook) hear(x VoiceEnded) {
	h.mu.Lock()
	h.ended = append(h.ended, x)
	h.mu.Unlock()
}

func (h *voiceHook) take() []VoiceEnded {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.ended
	h.ended = nil
	return out
}

func (c *testCommunity) channel(by Caller, name string, kind svcv1.ChannelKind) string {
	c.t.Helper()
	res, err := c.e.CreateChannel(context.Background(), by, &svcv1.CreateChannelRequest{Name: name, Kind: kind})
	if err != nil {
		c.t.Fatal(err)
	}
	return res.GetChannel().GetId()
}

// timeOut stores a member's timeout directly: TimeoutMember is another feature's call.
func (c *testCommunity) timeOut(who Caller, until time.Time) {
	c.t.Helper()
	_, err := submit(c.e, func(tx *Tx) (struct{}, error) {
		m := proto.Clone(tx.Snap().active(who.ID)).(*storepb.MemberRecord)
		m.Member.TimedOutUntilMs = until.UnixMilli()
		return struct{}{}, tx.putMember(m)
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// TestVoiceJoinRules: who may join which voice channel, and what refuses the others.
func TestVoiceJoinRules(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, ann, bob := c.join("owner"), c.join("ann"), c.join("bob")
	voice := c.channel(owner, "lounge", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	text := c.channel(owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := c.channel(owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	role, err := c.e.CreateRole(ctx, owner, &svcv1.CreateRoleRequest{Name: "staff"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.SetChannelAccess(ctx, owner, &svcv1.SetChannelAccessRequest{ChannelId: secret, RoleIds: []string{role.GetRole().GetId()}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		who     Caller
		channel string
		want    Code
	}{
		{"a text channel", ann, text, CodeInvalidArgument},
		{"an unknown channel", ann, "00000000-0000-0000-0000-000000000000", CodeNotFound},
		{"no channel", ann, "", CodeInvalidArgument},
		{"a channel limited to a role the member lacks", ann, secret, CodePermissionDenied},
		{"someone who left", Caller{ID: "gone"}, voice, CodePermissionDenied},
	} {
		if _, _, _, err := c.e.JoinVoice(tc.who, tc.channel, "s-"+tc.name, false, false); CodeOf(err) != tc.want {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.want)
		}
	}
	if _, _, _, err := c.e.JoinVoice(owner, secret, "s-owner", false, false); err != nil {
		t.Errorf("an admin joining a role-limited voice channel: %v", err)
	}
	// A timed-out member may not join until the timeout ends.
	c.timeOut(bob, c.clock.Now().Add(time.Hour))
	if _, _, _, err := c.e.JoinVoice(bob, voice, "s-bob", false, false); CodeOf(err) != CodePermissionDenied {
		t.Errorf("a timed-out member joining: %v", err)
	}
	c.timeOut(bob, c.clock.Now().Add(-time.Second))
	if _, _, _, err := c.e.JoinVoice(bob, voice, "s-bob", false, false); err != nil {
		t.Errorf("a member whose timeout is over joining: %v", err)
	}

	// No messages in a voice channel, and it is joined with JoinVoice only.
	if _, err := c.e.SendMessage(ctx, owner, &svcv1.SendMessageRequest{ChannelId: voice, Text: "hi"}); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("SendMessage in a voice channel: %v", err)
	}
	if _, err := c.e.SetTyping(ctx, owner, &svcv1.SetTypingRequest{ChannelId: voice}); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("SetTyping in a voice channel: %v", err)
	}
	if _, err := c.e.JoinChannel(ctx, owner, &svcv1.JoinChannelRequest{ChannelId: voice}); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("JoinChannel of a voice channel: %v", err)
	}
	if _, err := c.e.LeaveChannel(ctx, owner, &svcv1.LeaveChannelRequest{ChannelId: voice}); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("LeaveChannel of a voice channel: %v", err)
	}
	// Everyone who sees it has it in their sidebar, in both modes.
	st, err := c.e.GetState(ctx, ann, &svcv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ch := range st.GetChannels() {
		names = append(names, ch.GetName())
	}
	if !slices.Contains(names, "lounge") || slices.Contains(names, "secret") {
		t.Errorf("ann's sidebar: %v, want lounge and not secret", names)
	}
}

// TestVoiceSeats: 25 people a channel, one channel a person, and the room as JoinVoice and
// ListVoiceStates answer it.
func TestVoiceSeats(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	a := c.channel(owner, "a", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	b := c.channel(owner, "b", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	var people []Caller
	for i := range VoiceChannelMax {
		p := c.join(fmt.Sprintf("p%02d", i))
		people = append(people, p)
		if _, room, _, err := c.e.JoinVoice(p, a, "s"+p.ID, false, false); err != nil || len(room) != i+1 {
			t.Fatalf("person %d joining: %d in the room, %v", i+1, len(room), err)
		}
	}
	late := c.join("late")
	_, _, _, err := c.e.JoinVoice(late, a, "s-late", false, false)
	if CodeOf(err) != CodeResourceExhausted || err.Error() != "this voice channel is full: 25 people are in it; the limit is 25" {
		t.Fatalf("the 26th: %v", err)
	}
	// Someone in it joining it again keeps their seat (a new session replaces theirs).
	if _, _, replaced, err := c.e.JoinVoice(people[0], a, "s-again", false, false); err != nil || replaced != "s"+people[0].ID {
		t.Fatalf("joining again: replaced %q, %v", replaced, err)
	}
	// Moving to another channel frees the seat.
	if _, _, replaced, err := c.e.JoinVoice(people[1], b, "s-moved", false, false); err != nil || replaced != "s"+people[1].ID {
		t.Fatalf("moving: replaced %q, %v", replaced, err)
	}
	if _, _, _, err := c.e.JoinVoice(late, a, "s-late", false, false); err != nil {
		t.Fatalf("joining a freed seat: %v", err)
	}
	res, err := c.e.ListVoiceStates(context.Background(), owner, &svcv1.ListVoiceStatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	inA, inB := 0, 0
	for _, v := range res.GetStates() {
		switch v.GetChannelId() {
		case a:
			inA++
		case b:
			inB++
		}
		if v.GetVersion() > res.GetVersion() {
			t.Errorf("a state's version %d is above the answer's %d", v.GetVersion(), res.GetVersion())
		}
	}
	if inA != 25 || inB != 1 {
		t.Errorf("ListVoiceStates: %d in a, %d in b; want 25 and 1", inA, inB)
	}
	// A stale session leaves nothing; the current one leaves.
	if c.e.LeaveVoice(people[0].ID, "s"+people[0].ID) {
		t.Error("the replaced session left")
	}
	if !c.e.LeaveVoice(people[0].ID, "s-again") {
		t.Error("the current session did not leave")
	}
}

// TestVoiceRemovals: whoever may no longer be in voice is taken out by the commit that says
// so, and the voice hook hears which session ends.
func TestVoiceRemovals(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	hook := &voiceHook{}
	c.e.SetVoiceHook(hook.hear)
	owner := c.join("owner")
	ch := c.channel(owner, "lounge", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	role, err := c.e.CreateRole(ctx, owner, &svcv1.CreateRoleRequest{Name: "regulars"})
	if err != nil {
		t.Fatal(err)
	}
	roleID := role.GetRole().GetId()
	seat := func(who Caller) {
		t.Helper()
		if _, _, _, err := c.e.JoinVoice(who, ch, "s-"+who.ID, false, false); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, who Caller) {
		t.Helper()
		got := hook.take()
		if len(got) != 1 || got[0].MemberID != who.ID || got[0].SessionID != "s-"+who.ID || got[0].Reason != svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED {
			t.Errorf("%s: the hook heard %+v", what, got)
		}
	}
	kicked, banned, leaver, timed, unroled, hidden := c.join("kicked"), c.join("banned"), c.join("leaver"), c.join("timed"), c.join("unroled"), c.join("hidden")
	for _, p := range []Caller{kicked, banned, leaver, timed, unroled, hidden} {
		seat(p)
	}
	if _, err := c.e.KickMember(ctx, owner, &svcv1.KickMemberRequest{MemberId: kicked.ID}); err != nil {
		t.Fatal(err)
	}
	expect("kicked", kicked)
	if _, err := c.e.BanMember(ctx, owner, &svcv1.BanMemberRequest{MemberId: banned.ID}); err != nil {
		t.Fatal(err)
	}
	expect("banned", banned)
	if _, err := c.e.LeaveCommunity(ctx, leaver, &svcv1.LeaveCommunityRequest{}); err != nil {
		t.Fatal(err)
	}
	expect("left the community", leaver)
	c.timeOut(timed, c.clock.Now().Add(time.Hour))
	expect("timed out", timed)
	// The channel limited to a role: those without it are out, the role's holders stay.
	if _, err := c.e.SetMemberRoles(ctx, owner, &svcv1.SetMemberRolesRequest{MemberId: unroled.ID, RoleIds: []string{roleID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.SetChannelAccess(ctx, owner, &svcv1.SetChannelAccessRequest{ChannelId: ch, RoleIds: []string{roleID}}); err != nil {
		t.Fatal(err)
	}
	expect("the channel limited to a role", hidden)
	if _, err := c.e.SetMemberRoles(ctx, owner, &svcv1.SetMemberRolesRequest{MemberId: unroled.ID}); err != nil {
		t.Fatal(err)
	}
	expect("the role taken", unroled)
	res, err := c.e.ListVoiceStates(ctx, owner, &svcv1.ListVoiceStatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.GetStates()); n != 0 {
		t.Errorf("%d still in voice: %v", n, res.GetStates())
	}
	// Commits that change nothing of it take nobody out.
	seat(owner)
	c.channel(owner, "other", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	if got := hook.take(); len(got) != 0 {
		t.Errorf("an unrelated commit took %+v out", got)
	}
}

// TestVoiceStateEvents: voice_state goes to those who see the channel, ephemeral, with
// growing versions; speaking is never on while muted.
func TestVoiceStateEvents(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, viewer, outsider := c.join("owner"), c.join("viewer"), c.join("outsider")
	ch := c.channel(owner, "lounge", svcv1.ChannelKind_CHANNEL_KIND_VOICE)
	role, err := c.e.CreateRole(ctx, owner, &svcv1.CreateRoleRequest{Name: "friends"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.SetMemberRoles(ctx, owner, &svcv1.SetMemberRolesRequest{MemberId: viewer.ID, RoleIds: []string{role.GetRole().GetId()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.SetChannelAccess(ctx, owner, &svcv1.SetChannelAccessRequest{ChannelId: ch, RoleIds: []string{role.GetRole().GetId()}}); err != nil {
		t.Fatal(err)
	}
	f, err := c.e.Follow(FollowOptions{AfterSeq: c.e.Seq()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	me, _, _, err := c.e.JoinVoice(owner, ch, "s1", false, false)
	if err != nil {
		t.Fatal(err)
	}
	on, off := true, false
	if _, err := c.e.UpdateVoice(owner.ID, "s1", VoiceChange{Speaking: &on}); err != nil {
		t.Fatal(err)
	}
	muted, err := c.e.UpdateVoice(owner.ID, "s1", VoiceChange{Muted: &on})
	if err != nil || muted.GetSpeaking() || !muted.GetMuted() {
		t.Fatalf("muting: %v, %v", muted, err)
	}
	if same, _ := c.e.UpdateVoice(owner.ID, "s1", VoiceChange{Speaking: &on}); same.GetSpeaking() {
		t.Error("a muted member is speaking")
	}
	if _, err := c.e.UpdateVoice(owner.ID, "s1", VoiceChange{Muted: &off, Speaking: &off}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.UpdateVoice(owner.ID, "old", VoiceChange{Muted: &on}); CodeOf(err) != CodeNotFound {
		t.Errorf("changing a session that is over: %v", err)
	}
	c.e.LeaveVoice(owner.ID, "s1")
	var got []*svcv1.VoiceState
	version := me.GetVersion() - 1
	for len(got) < 5 {
		ds, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			v := d.Event().GetVoiceState()
			if v == nil {
				continue
			}
			if d.Event().GetSeq() != 0 {
				t.Errorf("a voice_state with seq %d", d.Event().GetSeq())
			}
			if !d.VisibleTo(owner.ID) || !d.VisibleTo(viewer.ID) || d.VisibleTo(outsider.ID) {
				t.Errorf("voice_state reaches owner %v, viewer %v, outsider %v; want the two who see the channel", d.VisibleTo(owner.ID), d.VisibleTo(viewer.ID), d.VisibleTo(outsider.ID))
			}
			if v.GetVersion() <= version {
				t.Errorf("version %d after %d", v.GetVersion(), version)
			}
			version = v.GetVersion()
			got = append(got, v)
		}
	}
	want := []string{"joined", "speaking", "muted", "joined", "left"}
	for i, v := range got {
		var s string
		switch {
		case !v.GetJoined():
			s = "left"
		case v.GetMuted():
			s = "muted"
		case v.GetSpeaking():
			s = "speaking"
		default:
			s = "joined"
		}
		if s != want[i] {
			t.Errorf("event %d is %s (%v), want %s", i, s, v, want[i])
		}
	}
	st, err := c.e.GetState(ctx, outsider, &svcv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.GetVoiceStates()) != 0 {
		t.Errorf("an outsider's GetState lists %v", st.GetVoiceStates())
	}
}
