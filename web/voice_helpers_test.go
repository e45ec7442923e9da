package web_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	"hearth/auth"
	"hearth/engine/voice"
	"hearth/engine/voice/voicetest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// Voice tests drive the server as a browser would, with voicetest's pion clients on loopback:
// they join with VoiceService over HTTP, answer the server's offers from the Signal stream,
// trickle their candidates, send synthetic Opus and VP8, and count what they receive.

// startVoice starts a server with voice on a free loopback port; change, if not nil, changes
// the voice options.
func startVoice(t *testing.T, change func(*voice.Options), options ...webtest.Option) *webtest.Server {
	t.Helper()
	return webtest.StartConfig(t, func(c *web.Config) {
		c.Voice = voice.Options{Addr: "127.0.0.1:0"}
		if change != nil {
			change(&c.Voice)
		}
	}, options...)
}

func voiceClient(s *webtest.Server, c *webtest.Client) svcv1connect.VoiceServiceClient {
	return svcv1connect.NewVoiceServiceClient(webtest.HTTPClient(), s.URL, connect.WithInterceptors(auth.WithBearer(c.Token)))
}

// createVoiceChannel has an admin make a voice channel.
func createVoiceChannel(t *testing.T, admin *webtest.Client, name string) *svcv1.Channel {
	t.Helper()
	res, err := admin.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_VOICE}))
	if err != nil {
		t.Fatalf("create voice channel: %v", err)
	}
	return res.Msg.GetChannel()
}

// voicePeer is a voicetest.Peer whose failures fail the test.
type voicePeer struct {
	*voicetest.Peer
	t   *testing.T
	api svcv1connect.VoiceServiceClient
}

// joinVoice has c join a voice channel and connect; a refused JoinVoice fails the test.
func joinVoice(t *testing.T, s *webtest.Server, c *webtest.Client, channelID string, o voicetest.Options) *voicePeer {
	t.Helper()
	api := voiceClient(s, c)
	o.OnError = func(err error) { t.Error(err) }
	p, err := voicetest.Join(api, c.Member.GetId(), channelID, o)
	if err != nil {
		t.Fatalf("JoinVoice: %v", err)
	}
	t.Cleanup(p.Close)
	return &voicePeer{Peer: p, t: t, api: api}
}

// endedWith waits for the session's ended event.
func (p *voicePeer) endedWith() *svcv1.VoiceEnded {
	p.t.Helper()
	e, err := p.Ended(webtest.Wait)
	if err != nil {
		p.t.Fatal(err)
	}
	return e
}

func (p *voicePeer) setState(req *svcv1.SetVoiceStateRequest) *svcv1.VoiceState {
	p.t.Helper()
	st, err := p.SetState(req)
	if err != nil {
		p.t.Fatalf("SetVoiceState: %v", err)
	}
	return st
}

func (p *voicePeer) selectedPair() *webrtc.ICECandidatePair {
	p.t.Helper()
	pair, err := p.SelectedPair()
	if err != nil {
		p.t.Fatal(err)
	}
	return pair
}

// nextVoice returns the next voice_state event of a stream opened with Ephemeral set.
func nextVoice(t *testing.T, st *webtest.Stream) *svcv1.VoiceState {
	t.Helper()
	for {
		if v := st.Next().GetVoiceState(); v != nil {
			return v
		}
	}
}

// voiceUntil returns the next voice_state event that matches, skipping the others.
func voiceUntil(t *testing.T, st *webtest.Stream, match func(*svcv1.VoiceState) bool) *svcv1.VoiceState {
	t.Helper()
	for {
		if v := nextVoice(t, st); match(v) {
			return v
		}
	}
}
