package web_test

import (
	"testing"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	"hearth/engine/voice/voicetest"
	svcv1 "hearth/proto/svc/v1"
)

// TestVoiceTimeoutAndBanTakeOutAtOnce: TimeoutMember and BanMember, called over HTTP, end the
// member's voice session at once (REMOVED, saying why), those who see the channel hear they
// left, and the others stop receiving their audio. A timed-out member may not join again
// (permission_denied, with the time it ends) until the timeout is lifted.
func TestVoiceTimeoutAndBanTakeOutAtOnce(t *testing.T) {
	t.Parallel()
	s := startVoice(t, nil)
	owner := s.Join("owner")
	quiet, rowdy := s.Join("quiet"), s.Join("rowdy")
	ch := createVoiceChannel(t, owner, "lounge")
	st := owner.Subscribe(t, 0)
	st.Ephemeral = true
	o := joinVoice(t, s, owner, ch.GetId(), voicetest.Options{})
	q := joinVoice(t, s, quiet, ch.GetId(), voicetest.Options{})
	r := joinVoice(t, s, rowdy, ch.GetId(), voicetest.Options{})
	waitFor(t, "the owner hears both", func() bool {
		return o.Packets(q.Member, webrtc.RTPCodecTypeAudio) > 10 && o.Packets(r.Member, webrtc.RTPCodecTypeAudio) > 10
	})

	if _, err := owner.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: q.Member, DurationS: 600, Reason: "cool off"})); err != nil {
		t.Fatal(err)
	}
	if e := q.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED || e.GetMessage() != "you are timed out" {
		t.Errorf("the timed-out member's session ended with %v", e)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == q.Member && !v.GetJoined() })
	waitFor(t, "the owner loses the timed-out one's track", func() bool { return o.TrackDone(q.Member, webrtc.RTPCodecTypeAudio) })

	api := voiceClient(s, quiet)
	_, err := api.JoinVoice(ctx, req(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	wantCode(t, "JoinVoice while timed out", err, connect.CodePermissionDenied, "you are timed out until ")
	if _, err := owner.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: q.Member})); err != nil {
		t.Fatal(err)
	}
	back := joinVoice(t, s, quiet, ch.GetId(), voicetest.Options{})
	waitFor(t, "the owner hears the one whose timeout was lifted", func() bool { return o.Packets(back.Member, webrtc.RTPCodecTypeAudio) > 10 })

	// A ban takes the member out of voice too, and keeps them out.
	if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: r.Member, Reason: "spam"})); err != nil {
		t.Fatal(err)
	}
	if e := r.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED || e.GetMessage() != "you are no longer a member of this community" {
		t.Errorf("the banned member's session ended with %v", e)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == r.Member && !v.GetJoined() })
	waitFor(t, "the owner loses the banned one's track", func() bool { return o.TrackDone(r.Member, webrtc.RTPCodecTypeAudio) })
	_, err = voiceClient(s, rowdy).JoinVoice(ctx, req(&svcv1.JoinVoiceRequest{ChannelId: ch.GetId()}))
	wantCode(t, "JoinVoice by the banned member", err, connect.CodePermissionDenied, "you are banned from this community")
	list, err := voiceClient(s, owner).ListVoiceStates(ctx, req(&svcv1.ListVoiceStatesRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, v := range list.Msg.GetStates() {
		in = append(in, v.GetMemberId())
	}
	if len(in) != 2 || !(in[0] == o.Member || in[1] == o.Member) || !(in[0] == back.Member || in[1] == back.Member) {
		t.Errorf("in voice after the ban: %v; want the owner and the one whose timeout was lifted", in)
	}
}
