package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	"hearth/engine/voice"
	"hearth/engine/voice/voicetest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/webtest"
)

// TestVoiceThreePeople: three people join a voice channel and each receives the others'
// audio; one mutes and the others stop receiving theirs; one shares a screen and the others
// receive its video; one leaves and the others lose their track and hear of it.
func TestVoiceThreePeople(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	alice := s.Join("alice")
	bob := s.Join("bob")
	carol := s.Join("carol")
	watcher := s.Join("watcher")
	ch := createVoiceChannel(t, alice, "Lounge")
	st := watcher.Subscribe(t, 0)
	st.Ephemeral = true

	a := joinVoice(t, s, alice, ch.GetId(), voicetest.Options{})
	b := joinVoice(t, s, bob, ch.GetId(), voicetest.Options{})
	c := joinVoice(t, s, carol, ch.GetId(), voicetest.Options{})
	peers := []*voicePeer{a, b, c}
	for _, who := range peers {
		v := voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == who.Member && v.GetJoined() })
		if v.GetChannelId() != ch.GetId() {
			t.Fatalf("voice_state of %s names channel %s, want %s", who.Member, v.GetChannelId(), ch.GetId())
		}
	}
	if n := len(c.Join.GetStates()); n != 3 {
		t.Errorf("the third to join saw %d in the channel, want 3", n)
	}
	for _, to := range peers {
		for _, from := range peers {
			if to != from {
				waitFor(t, to.Member+" hears "+from.Member, func() bool { return to.Packets(from.Member, webrtc.RTPCodecTypeAudio) > 25 })
			}
		}
	}
	// The server hears who speaks from the audio level, and when they go quiet.
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.Member && v.GetSpeaking() })
	b.Level.Store(127)
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.Member && !v.GetSpeaking() })
	b.Level.Store(20)

	// Bob mutes: the others stop receiving his audio, and still receive each other's.
	if got := b.setState(&svcv1.SetVoiceStateRequest{Muted: ptr(true)}); !got.GetMuted() || got.GetSpeaking() {
		t.Fatalf("after muting: %v", got)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.Member && v.GetMuted() })
	time.Sleep(200 * time.Millisecond) // what was on the way arrives
	fromBob, fromCarol := a.Packets(b.Member, webrtc.RTPCodecTypeAudio), a.Packets(c.Member, webrtc.RTPCodecTypeAudio)
	// While 15 more of carol's packets (300 ms of her audio) reach alice, none of bob's does.
	waitFor(t, "alice hears carol on", func() bool { return a.Packets(c.Member, webrtc.RTPCodecTypeAudio)-fromCarol >= 15 })
	if n := a.Packets(b.Member, webrtc.RTPCodecTypeAudio) - fromBob; n != 0 {
		t.Errorf("alice received %d packets of muted bob's audio", n)
	}
	b.setState(&svcv1.SetVoiceStateRequest{Muted: ptr(false)})
	n := a.Packets(b.Member, webrtc.RTPCodecTypeAudio)
	waitFor(t, "alice hears bob again", func() bool { return a.Packets(b.Member, webrtc.RTPCodecTypeAudio) > n+10 })

	// Carol shares her screen: alice and bob receive it.
	c.Sharing.Store(true)
	if got := c.setState(&svcv1.SetVoiceStateRequest{SharingScreen: ptr(true)}); !got.GetSharingScreen() {
		t.Fatalf("after sharing: %v", got)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == c.Member && v.GetSharingScreen() })
	for _, to := range []*voicePeer{a, b} {
		waitFor(t, to.Member+" sees carol's screen", func() bool { return to.Packets(c.Member, webrtc.RTPCodecTypeVideo) > 10 })
	}
	if n := c.Packets(c.Member, webrtc.RTPCodecTypeVideo); n != -1 {
		t.Errorf("carol receives her own screen (%d packets)", n)
	}

	// Bob leaves: the others lose his track, and those who see the channel hear of it.
	if _, err := b.api.LeaveVoice(context.Background(), connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: b.Join.GetSessionId()})); err != nil {
		t.Fatal(err)
	}
	if e := b.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_LEFT {
		t.Errorf("bob's session ended with %v, want LEFT", e)
	}
	v := voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.Member && !v.GetJoined() })
	if v.GetChannelId() != ch.GetId() {
		t.Errorf("bob left channel %s, want %s", v.GetChannelId(), ch.GetId())
	}
	for _, to := range []*voicePeer{a, c} {
		waitFor(t, to.Member+" loses bob's track", func() bool { return to.TrackDone(b.Member, webrtc.RTPCodecTypeAudio) })
	}
	res, err := alice.Chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, v := range res.Msg.GetVoiceStates() {
		in = append(in, v.GetMemberId())
	}
	if len(in) != 2 || in[0] != a.Member || in[1] != c.Member {
		t.Errorf("GetState.voice_states = %v, want alice then carol", in)
	}
}

// TestVoiceThroughTURN: a client that may only relay (ICE through the server's TURN, over UDP
// or over TCP) and a client on ICE-TCP each talk with one on plain UDP.
func TestVoiceThroughTURN(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	owner := s.Join("owner")
	ch := createVoiceChannel(t, owner, "lounge")
	direct := joinVoice(t, s, owner, ch.GetId(), voicetest.Options{})
	for _, tc := range []struct {
		name string
		o    voicetest.Options
	}{
		{"relayed over UDP", voicetest.Options{Relay: true, TURN: "udp"}},
		{"relayed over TCP", voicetest.Options{Relay: true, TURN: "tcp"}},
		{"on ICE-TCP", voicetest.Options{TCP: true}},
	} {
		c := s.Join(tc.name[:7] + tc.o.TURN)
		p := joinVoice(t, s, c, ch.GetId(), tc.o)
		waitFor(t, tc.name+": hears the direct client", func() bool { return p.Packets(direct.Member, webrtc.RTPCodecTypeAudio) > 25 })
		waitFor(t, tc.name+": is heard", func() bool { return direct.Packets(p.Member, webrtc.RTPCodecTypeAudio) > 25 })
		pair := p.selectedPair()
		switch {
		case tc.o.Relay && pair.Local.Typ != webrtc.ICECandidateTypeRelay:
			t.Errorf("%s: the selected pair's local candidate is %s", tc.name, pair.Local)
		case tc.o.TCP && pair.Local.Protocol != webrtc.ICEProtocolTCP:
			t.Errorf("%s: the selected pair is on %s", tc.name, pair.Local.Protocol)
		}
		p.Close()
		if _, err := p.api.LeaveVoice(context.Background(), connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: p.Join.GetSessionId()})); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVoiceRefusals: every refusal of VoiceService, and bad input.
func TestVoiceRefusals(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	ctx := context.Background()
	owner := s.Join("owner")
	member := s.Join("member")
	voice := createVoiceChannel(t, owner, "lounge")
	text, err := owner.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	hidden := createVoiceChannel(t, owner, "staff-room")
	role, err := owner.Server.CreateRole(ctx, connect.NewRequest(&svcv1.CreateRoleRequest{Name: "staff"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SetChannelAccess(ctx, connect.NewRequest(&svcv1.SetChannelAccessRequest{ChannelId: hidden.GetId(), RoleIds: []string{role.Msg.GetRole().GetId()}})); err != nil {
		t.Fatal(err)
	}
	api := voiceClient(s, member)
	for _, tc := range []struct {
		name    string
		channel string
		want    connect.Code
	}{
		{"a channel the member cannot see", hidden.GetId(), connect.CodePermissionDenied},
		{"a text channel", text.Msg.GetChannel().GetId(), connect.CodeInvalidArgument},
		{"an unknown channel", "0190a0a0-0000-7000-8000-000000000000", connect.CodeNotFound},
		{"no channel", "", connect.CodeInvalidArgument},
	} {
		if _, err := api.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: tc.channel})); connect.CodeOf(err) != tc.want {
			t.Errorf("JoinVoice of %s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := member.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: voice.GetId(), Text: "hello"})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("SendMessage in a voice channel: %v", err)
	}

	p := joinVoice(t, s, member, voice.GetId(), voicetest.Options{})
	session := p.Join.GetSessionId()
	waitFor(t, "the first answer", func() bool { return p.Offers() > 0 })
	ownerAPI := voiceClient(s, owner)
	// Someone else's session is not found, as an unknown one.
	if _, err := ownerAPI.SetVoiceState(ctx, connect.NewRequest(&svcv1.SetVoiceStateRequest{SessionId: session, Muted: ptr(true)})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("SetVoiceState on someone else's session: %v", err)
	}
	if _, err := ownerAPI.Answer(ctx, connect.NewRequest(&svcv1.AnswerRequest{SessionId: session, Sdp: "v=0", Revision: 1})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("Answer on someone else's session: %v", err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want connect.Code
		msg  string
	}{
		{"an answer to an offer answered already", func() error {
			_, err := api.Answer(ctx, connect.NewRequest(&svcv1.AnswerRequest{SessionId: session, Sdp: "v=0", Revision: 1}))
			return err
		}, connect.CodeFailedPrecondition, "failed_precondition: no offer waits for an answer (revision 1 was answered or replaced)"},
		{"an SDP over 64 KiB", func() error {
			_, err := api.Answer(ctx, connect.NewRequest(&svcv1.AnswerRequest{SessionId: session, Sdp: strings.Repeat("a", 64<<10+1), Revision: 2}))
			return err
		}, connect.CodeInvalidArgument, "invalid_argument: sdp is 65537 bytes; it must be 1 to 65536"},
		{"a candidate over 1 KiB", func() error {
			_, err := api.AddIceCandidate(ctx, connect.NewRequest(&svcv1.AddIceCandidateRequest{SessionId: session, Candidate: strings.Repeat("a", 1025)}))
			return err
		}, connect.CodeInvalidArgument, "invalid_argument: candidate is 1025 bytes; the limit is 1024"},
		{"a candidate that does not parse", func() error {
			_, err := api.AddIceCandidate(ctx, connect.NewRequest(&svcv1.AddIceCandidateRequest{SessionId: session, Candidate: "candidate:nonsense"}))
			return err
		}, connect.CodeInvalidArgument, ""},
		{"no session", func() error {
			_, err := api.RestartIce(ctx, connect.NewRequest(&svcv1.RestartIceRequest{}))
			return err
		}, connect.CodeInvalidArgument, "invalid_argument: session_id is required"},
	} {
		err := tc.call()
		if connect.CodeOf(err) != tc.want || (tc.msg != "" && err.Error() != tc.msg) {
			t.Errorf("%s: %v, want %v %q", tc.name, err, tc.want, tc.msg)
		}
	}
	// At most 64 candidates in one ICE generation (the client trickled a few of its own).
	var last error
	n := 0
	for n = 0; n < 100 && last == nil; n++ {
		_, last = api.AddIceCandidate(ctx, connect.NewRequest(&svcv1.AddIceCandidateRequest{
			SessionId: session, Candidate: fmt.Sprintf("candidate:%d 1 udp 2130706431 127.0.0.1 %d typ host", n, 20000+n),
		}))
	}
	if connect.CodeOf(last) != connect.CodeResourceExhausted || n > candidateLimit+1 || n < candidateLimit-8 ||
		last.Error() != "resource_exhausted: this ICE generation has 64 candidates already; the limit is 64 (RestartIce starts a new one)" {
		t.Errorf("candidate %d: %v, want resource_exhausted at %d at most", n, last, candidateLimit+1)
	}
	// The session still works; leaving twice is fine; after leaving, the session is gone.
	for range 2 {
		if _, err := api.LeaveVoice(ctx, connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: session})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := api.SetVoiceState(ctx, connect.NewRequest(&svcv1.SetVoiceStateRequest{SessionId: session, Muted: ptr(true)})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("SetVoiceState after leaving: %v", err)
	}
}

// candidateLimit is the server's candidates per ICE generation.
const candidateLimit = 64

// TestVoiceOff: without -voice-port the calls answer unavailable, ListVoiceStates works.
func TestVoiceOff(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	ch := createVoiceChannel(t, owner, "lounge")
	api := voiceClient(s, owner)
	_, err := api.JoinVoice(context.Background(), connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	if connect.CodeOf(err) != connect.CodeUnavailable || err.Error() != "unavailable: voice is off on this server (-voice-port 0)" {
		t.Errorf("JoinVoice without voice: %v", err)
	}
	if _, err := api.ListVoiceStates(context.Background(), connect.NewRequest(&svcv1.ListVoiceStatesRequest{})); err != nil {
		t.Errorf("ListVoiceStates without voice: %v", err)
	}
}

// TestVoiceChannelFull: the 26th person is refused; when one leaves, they get in.
func TestVoiceChannelFull(t *testing.T) {
	t.Parallel()
	// Joins are 10 a minute from one address: the clock lets a minute pass between each ten.
	clock := webtest.NewClockAt(time.Now())
	s := startVoice(t, nil, webtest.WithClock(clock))
	ctx := context.Background()
	owner := s.Join("owner")
	ch := createVoiceChannel(t, owner, "lounge")
	var sessions []string
	var apis []svcv1connect.VoiceServiceClient
	for i := range 25 {
		if i%9 == 8 {
			clock.Advance(time.Minute)
		}
		c := s.Join(fmt.Sprintf("person%02d", i))
		api := voiceClient(s, c)
		res, err := api.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
		if err != nil {
			t.Fatalf("person %d: %v", i+1, err)
		}
		sessions, apis = append(sessions, res.Msg.GetSessionId()), append(apis, api)
	}
	late := voiceClient(s, s.Join("late"))
	_, err := late.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	if connect.CodeOf(err) != connect.CodeResourceExhausted || err.Error() != "resource_exhausted: this voice channel is full: 25 people are in it; the limit is 25" {
		t.Fatalf("the 26th: %v", err)
	}
	if _, err := apis[3].LeaveVoice(ctx, connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: sessions[3]})); err != nil {
		t.Fatal(err)
	}
	if _, err := late.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()})); err != nil {
		t.Fatalf("joining once someone left: %v", err)
	}
}

// TestVoiceRemovedAtOnce: a kicked member's session ends (REMOVED), the others lose their track
// and those who see the channel hear they left; so for a member who stops seeing the channel.
func TestVoiceRemovedAtOnce(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	ctx := context.Background()
	owner := s.Join("owner")
	kicked := s.Join("kicked")
	unseen := s.Join("unseen")
	ch := createVoiceChannel(t, owner, "lounge")
	st := owner.Subscribe(t, 0)
	st.Ephemeral = true
	o := joinVoice(t, s, owner, ch.GetId(), voicetest.Options{})
	k := joinVoice(t, s, kicked, ch.GetId(), voicetest.Options{})
	u := joinVoice(t, s, unseen, ch.GetId(), voicetest.Options{})
	waitFor(t, "the owner hears the kicked one", func() bool { return o.Packets(k.Member, webrtc.RTPCodecTypeAudio) > 10 })
	if _, err := owner.Server.KickMember(ctx, connect.NewRequest(&svcv1.KickMemberRequest{MemberId: k.Member})); err != nil {
		t.Fatal(err)
	}
	if e := k.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED || e.GetMessage() != "you are no longer a member of this community" {
		t.Errorf("the kicked member's session ended with %v", e)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == k.Member && !v.GetJoined() })
	waitFor(t, "the owner loses the kicked one's track", func() bool { return o.TrackDone(k.Member, webrtc.RTPCodecTypeAudio) })

	role, err := owner.Server.CreateRole(ctx, connect.NewRequest(&svcv1.CreateRoleRequest{Name: "inner"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SetChannelAccess(ctx, connect.NewRequest(&svcv1.SetChannelAccessRequest{ChannelId: ch.GetId(), RoleIds: []string{role.Msg.GetRole().GetId()}})); err != nil {
		t.Fatal(err)
	}
	if e := u.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED || e.GetMessage() != "you can no longer see this voice channel" {
		t.Errorf("the session of one who lost sight ended with %v", e)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == u.Member && !v.GetJoined() })
	waitFor(t, "the owner loses the unseen one's track", func() bool { return o.TrackDone(u.Member, webrtc.RTPCodecTypeAudio) })
}

// TestVoiceEventsToViewers: voice_state reaches those who see the channel only, through the
// real stream, and GetState and ListVoiceStates list voice for them only.
func TestVoiceEventsToViewers(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	ctx := context.Background()
	owner := s.Join("owner")
	insider := s.Join("insider")
	outsider := s.Join("outsider")
	ch := createVoiceChannel(t, owner, "club")
	role, err := owner.Server.CreateRole(ctx, connect.NewRequest(&svcv1.CreateRoleRequest{Name: "club"}))
	if err != nil {
		t.Fatal(err)
	}
	roleID := role.Msg.GetRole().GetId()
	if _, err := owner.Server.SetMemberRoles(ctx, connect.NewRequest(&svcv1.SetMemberRolesRequest{MemberId: insider.Member.GetId(), RoleIds: []string{roleID}})); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SetChannelAccess(ctx, connect.NewRequest(&svcv1.SetChannelAccessRequest{ChannelId: ch.GetId(), RoleIds: []string{roleID}})); err != nil {
		t.Fatal(err)
	}
	in, out := insider.Subscribe(t, 0), outsider.Subscribe(t, 0)
	in.Ephemeral, out.Ephemeral = true, true
	p := joinVoice(t, s, insider, ch.GetId(), voicetest.Options{})
	v := voiceUntil(t, in, func(v *svcv1.VoiceState) bool { return v.GetJoined() })
	if v.GetMemberId() != p.Member || v.GetChannelId() != ch.GetId() {
		t.Fatalf("the insider heard %v", v)
	}
	p.setState(&svcv1.SetVoiceStateRequest{Deafened: ptr(true)})
	voiceUntil(t, in, func(v *svcv1.VoiceState) bool { return v.GetDeafened() })
	// A message after the voice events: the outsider's stream carries it, and no voice event
	// before it.
	general, err := owner.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev := out.Next()
		if ev.GetVoiceState() != nil {
			t.Fatalf("the outsider received %v", ev)
		}
		if ev.GetChannelCreated().GetId() == general.Msg.GetChannel().GetId() {
			break
		}
	}
	for who, want := range map[*webtest.Client]int{insider: 1, owner: 1, outsider: 0} {
		st, err := who.Chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		list, err := voiceClient(s, who).ListVoiceStates(ctx, connect.NewRequest(&svcv1.ListVoiceStatesRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Msg.GetVoiceStates()) != want || len(list.Msg.GetStates()) != want {
			t.Errorf("%s: GetState lists %d, ListVoiceStates %d; want %d", who.Member.GetUsername(), len(st.Msg.GetVoiceStates()), len(list.Msg.GetStates()), want)
		}
		if want == 1 && (!st.Msg.GetVoiceStates()[0].GetDeafened() || st.Msg.GetVoiceVersion() < st.Msg.GetVoiceStates()[0].GetVersion()) {
			t.Errorf("%s: GetState's voice: %v, version %d", who.Member.GetUsername(), st.Msg.GetVoiceStates(), st.Msg.GetVoiceVersion())
		}
	}
}

// TestVoiceOneChannelAtATime: joining another channel (or the same again, from another
// device) ends the first session; those who see the first channel hear the member left it.
func TestVoiceOneChannelAtATime(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	owner := s.Join("owner")
	one := createVoiceChannel(t, owner, "one")
	two := createVoiceChannel(t, owner, "two")
	st := owner.Subscribe(t, 0)
	st.Ephemeral = true
	first := joinVoice(t, s, owner, one.GetId(), voicetest.Options{})
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetJoined() && v.GetChannelId() == one.GetId() })
	second := joinVoice(t, s, owner, two.GetId(), voicetest.Options{})
	if e := first.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REPLACED {
		t.Errorf("the first session ended with %v", e)
	}
	left := nextVoice(t, st)
	joined := nextVoice(t, st)
	if left.GetJoined() || left.GetChannelId() != one.GetId() || !joined.GetJoined() || joined.GetChannelId() != two.GetId() {
		t.Errorf("moving: %v then %v; want left one, joined two", left, joined)
	}
	// The same channel again from another device: one seat, no left event.
	third := joinVoice(t, s, owner, two.GetId(), voicetest.Options{})
	if e := second.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REPLACED {
		t.Errorf("the second session ended with %v", e)
	}
	if v := nextVoice(t, st); !v.GetJoined() || v.GetChannelId() != two.GetId() {
		t.Errorf("joining again: %v", v)
	}
	if n := len(third.Join.GetStates()); n != 1 {
		t.Errorf("joining again, the room has %d", n)
	}
}

// TestVoiceDeafened: a deafened member receives no audio, and is not heard.
func TestVoiceDeafened(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	owner, friend := s.Join("owner"), s.Join("friend")
	ch := createVoiceChannel(t, owner, "lounge")
	a := joinVoice(t, s, owner, ch.GetId(), voicetest.Options{})
	b := joinVoice(t, s, friend, ch.GetId(), voicetest.Options{})
	waitFor(t, "both hear", func() bool {
		return a.Packets(b.Member, webrtc.RTPCodecTypeAudio) > 10 && b.Packets(a.Member, webrtc.RTPCodecTypeAudio) > 10
	})
	if st := b.setState(&svcv1.SetVoiceStateRequest{Deafened: ptr(true)}); !st.GetDeafened() || st.GetMuted() {
		t.Fatalf("deafened: %v", st)
	}
	time.Sleep(200 * time.Millisecond)
	heard, got := a.Packets(b.Member, webrtc.RTPCodecTypeAudio), b.Packets(a.Member, webrtc.RTPCodecTypeAudio)
	time.Sleep(600 * time.Millisecond)
	if n := a.Packets(b.Member, webrtc.RTPCodecTypeAudio) - heard; n != 0 {
		t.Errorf("the deafened member was heard: %d packets", n)
	}
	if n := b.Packets(a.Member, webrtc.RTPCodecTypeAudio) - got; n != 0 {
		t.Errorf("the deafened member received %d packets", n)
	}
}

// TestVoiceSignalGrace: a Signal stream that closes may be opened again within the grace, and
// the session carries on; a session without one past the grace ends.
func TestVoiceSignalGrace(t *testing.T) {
	t.Parallel()
	s := startVoice(t, func(o *voice.Options) { o.SignalGrace = 700 * time.Millisecond })
	ctx := context.Background()
	owner, friend := s.Join("owner"), s.Join("friend")
	ch := createVoiceChannel(t, owner, "lounge")
	st := owner.Subscribe(t, 0)
	st.Ephemeral = true
	a := joinVoice(t, s, owner, ch.GetId(), voicetest.Options{})
	api := voiceClient(s, friend)
	res, err := api.JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	// Open, read the heartbeat that says it is open and the offer, close; open again: the offer
	// waiting comes again.
	for range 2 {
		sctx, cancel := context.WithCancel(ctx)
		stream, err := api.Signal(sctx, connect.NewRequest(&svcv1.SignalRequest{SessionId: res.Msg.GetSessionId()}))
		if err != nil {
			t.Fatal(err)
		}
		if !stream.Receive() || !stream.Msg().GetHeartbeat() {
			t.Fatalf("the first event: %v, %v; want the heartbeat", stream.Msg(), stream.Err())
		}
		if !stream.Receive() || stream.Msg().GetOffer().GetRevision() != 1 {
			t.Fatalf("the second event: %v, %v; want the offer", stream.Msg(), stream.Err())
		}
		cancel()
		stream.Close()
		time.Sleep(300 * time.Millisecond)
	}
	// No stream now: the session ends after the grace, and the others hear the member left.
	v := voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == friend.Member.GetId() && !v.GetJoined() })
	if v.GetChannelId() != ch.GetId() {
		t.Errorf("left %v", v)
	}
	// The connected one is still in.
	list, err := api.ListVoiceStates(ctx, connect.NewRequest(&svcv1.ListVoiceStatesRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Msg.GetStates()) != 1 || list.Msg.GetStates()[0].GetMemberId() != a.Member {
		t.Errorf("in voice: %v", list.Msg.GetStates())
	}
}

// TestVoiceJoinRateLimit: JoinVoice is 10 a minute per member, burst 10.
func TestVoiceJoinRateLimit(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	owner := s.Join("owner")
	ch := createVoiceChannel(t, owner, "lounge")
	api := voiceClient(s, owner)
	var err error
	n := 0
	for ; n < 11 && err == nil; n++ {
		_, err = api.JoinVoice(context.Background(), connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	}
	if n != 11 || connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.HasPrefix(err.Error(), "resource_exhausted: joining voice: rate limit reached; retry in ") {
		t.Fatalf("join %d: %v", n, err)
	}
}
