package main

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	"hearth/auth"
	"hearth/engine/voice"
	"hearth/engine/voice/voicetest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// freeVoicePort is a port free for UDP and TCP on every interface, as -voice-port takes it.
func freeVoicePort(t *testing.T) int {
	t.Helper()
	uc, ln, err := voice.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	port := uc.LocalAddr().(*net.UDPAddr).Port
	uc.Close()
	ln.Close()
	return port
}

// TestVoiceInTheBinary: the binary takes -voice-port for UDP and TCP and gives -voice-public-ip
// in its TURN URLs; two people talk through it.
func TestVoiceInTheBinary(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	port := freeVoicePort(t)
	_, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase,
		"-voice-port", strconv.Itoa(port), "-voice-public-ip", "127.0.0.1")
	ctx := context.Background()
	owner := join(t, data, url, "owner", "")
	friend := join(t, data, url, "friend", "")
	ch, err := owner.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "lounge", Kind: svcv1.ChannelKind_CHANNEL_KIND_VOICE}))
	if err != nil {
		t.Fatal(err)
	}
	var peers []*voicetest.Peer
	for _, m := range []*member{owner, friend} {
		me, err := m.server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		api := svcv1connect.NewVoiceServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(m.token)))
		p, err := voicetest.Join(api, me.Msg.GetMember().GetId(), ch.Msg.GetChannel().GetId(), voicetest.Options{OnError: func(err error) { t.Error(err) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		want := []string{"turn:127.0.0.1:" + strconv.Itoa(port) + "?transport=udp", "turn:127.0.0.1:" + strconv.Itoa(port) + "?transport=tcp"}
		if got := p.Join.GetIceServers()[0].GetUrls(); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("TURN URLs %v, want %v", got, want)
		}
		peers = append(peers, p)
	}
	deadline := time.Now().Add(30 * time.Second)
	for peers[0].Packets(peers[1].Member, webrtc.RTPCodecTypeAudio) < 25 || peers[1].Packets(peers[0].Member, webrtc.RTPCodecTypeAudio) < 25 {
		if time.Now().After(deadline) {
			t.Fatal("the two did not hear each other within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
