package web_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	svcv1 "hearth/proto/svc/v1"
)

// TestVoiceThreePeople: three people join a voice channel and each receives the others'
// audio; one mutes and the others stop receiving theirs; one shares a screen and the others
// receive its video; one leaves and the others lose their track and hear of it.
func TestVoiceThreePeople(t *testing.T) {
	t.Parallel()
	s := startVoice(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	carol := s.Join("carol")
	watcher := s.Join("watcher")
	ch := createVoiceChannel(t, alice, "Lounge")
	st := watcher.Subscribe(t, 0)
	st.Ephemeral = true

	a := joinVoice(t, s, alice, ch.GetId(), peerOptions{})
	b := joinVoice(t, s, bob, ch.GetId(), peerOptions{})
	c := joinVoice(t, s, carol, ch.GetId(), peerOptions{})
	peers := []*voicePeer{a, b, c}
	for _, who := range peers {
		v := voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == who.member && v.GetJoined() })
		if v.GetChannelId() != ch.GetId() {
			t.Fatalf("voice_state of %s names channel %s, want %s", who.member, v.GetChannelId(), ch.GetId())
		}
	}
	if n := len(c.join.GetStates()); n != 3 {
		t.Errorf("the third to join saw %d in the channel, want 3", n)
	}
	for _, to := range peers {
		for _, from := range peers {
			if to != from {
				eventually(t, to.member+" hears "+from.member, func() bool { return to.packets(from.member, webrtc.RTPCodecTypeAudio) > 25 })
			}
		}
	}
	// The server hears who speaks from the audio level.
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.member && v.GetSpeaking() })

	// Bob mutes: the others stop receiving his audio, and still receive each other's.
	if got := b.setState(&svcv1.SetVoiceStateRequest{Muted: ptr(true)}); !got.GetMuted() || got.GetSpeaking() {
		t.Fatalf("after muting: %v", got)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.member && v.GetMuted() })
	time.Sleep(200 * time.Millisecond) // what was on the way arrives
	fromBob, fromCarol := a.packets(b.member, webrtc.RTPCodecTypeAudio), a.packets(c.member, webrtc.RTPCodecTypeAudio)
	time.Sleep(600 * time.Millisecond)
	if n := a.packets(b.member, webrtc.RTPCodecTypeAudio) - fromBob; n != 0 {
		t.Errorf("alice received %d packets of muted bob's audio", n)
	}
	if n := a.packets(c.member, webrtc.RTPCodecTypeAudio) - fromCarol; n < 15 {
		t.Errorf("alice received %d packets of carol's audio in 600 ms, want ~30", n)
	}
	b.setState(&svcv1.SetVoiceStateRequest{Muted: ptr(false)})
	n := a.packets(b.member, webrtc.RTPCodecTypeAudio)
	eventually(t, "alice hears bob again", func() bool { return a.packets(b.member, webrtc.RTPCodecTypeAudio) > n+10 })

	// Carol shares her screen: alice and bob receive it.
	c.sharing.Store(true)
	if got := c.setState(&svcv1.SetVoiceStateRequest{SharingScreen: ptr(true)}); !got.GetSharingScreen() {
		t.Fatalf("after sharing: %v", got)
	}
	voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == c.member && v.GetSharingScreen() })
	for _, to := range []*voicePeer{a, b} {
		eventually(t, to.member+" sees carol's screen", func() bool { return to.packets(c.member, webrtc.RTPCodecTypeVideo) > 10 })
	}
	if n := c.packets(c.member, webrtc.RTPCodecTypeVideo); n != -1 {
		t.Errorf("carol receives her own screen (%d packets)", n)
	}

	// Bob leaves: the others lose his track, and those who see the channel hear of it.
	if _, err := b.api.LeaveVoice(context.Background(), connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: b.join.GetSessionId()})); err != nil {
		t.Fatal(err)
	}
	if e := b.endedWith(); e.GetReason() != svcv1.VoiceEndReason_VOICE_END_REASON_LEFT {
		t.Errorf("bob's session ended with %v, want LEFT", e)
	}
	v := voiceUntil(t, st, func(v *svcv1.VoiceState) bool { return v.GetMemberId() == b.member && !v.GetJoined() })
	if v.GetChannelId() != ch.GetId() {
		t.Errorf("bob left channel %s, want %s", v.GetChannelId(), ch.GetId())
	}
	for _, to := range []*voicePeer{a, c} {
		eventually(t, to.member+" loses bob's track", func() bool { return to.trackDone(b.member, webrtc.RTPCodecTypeAudio) })
	}
	res, err := alice.Chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, v := range res.Msg.GetVoiceStates() {
		in = append(in, v.GetMemberId())
	}
	if len(in) != 2 || in[0] != a.member || in[1] != c.member {
		t.Errorf("GetState.voice_states = %v, want alice then carol", in)
	}
}
