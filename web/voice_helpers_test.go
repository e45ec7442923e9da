package web_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"

	"hearth/auth"
	"hearth/engine/voice"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// Voice tests drive the server as a browser would: pion PeerConnections on loopback that join
// with VoiceService over HTTP, answer the server's offers from the Signal stream, trickle
// their candidates, send synthetic Opus (50 packets a second, with the audio level) and VP8,
// and count the packets they receive from each other participant.

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

type peerOptions struct {
	// relay forces ICE through the TURN server (relay candidates only), reached over turn
	// ("udp" or "tcp"); tcp uses ICE-TCP only.
	relay, tcp bool
	turn       string
	muted      bool
}

// voicePeer is one participant: a pion PeerConnection and its signalling.
type voicePeer struct {
	t      *testing.T
	member string
	api    svcv1connect.VoiceServiceClient
	join   *svcv1.JoinVoiceResponse
	pc     *webrtc.PeerConnection
	mic    *webrtc.TrackLocalStaticRTP
	screen *webrtc.TrackLocalStaticRTP
	ctx    context.Context
	cancel context.CancelFunc
	// level is the audio level the microphone sends (-dBov: 0 loud, 127 silent).
	level atomic.Int32
	// sharing makes the screen send frames.
	sharing atomic.Bool

	mu       sync.Mutex
	got      map[string]*received // by "<member id>:audio" or ":video"
	offers   int
	ended    *svcv1.VoiceEnded
	endedCh  chan struct{}
	signalMu sync.Mutex
}

// received counts the packets of one incoming track.
type received struct {
	packets atomic.Int64
	done    atomic.Bool
}

func clientAPI(o peerOptions) *webrtc.API {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		panic(err)
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: sdp.AudioLevelURI}, webrtc.RTPCodecTypeAudio); err != nil {
		panic(err)
	}
	ir := &interceptor.Registry{}
	if err := webrtc.RegisterDefaultInterceptors(m, ir); err != nil {
		panic(err)
	}
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	switch {
	case o.tcp:
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeTCP4})
	default:
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	}
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(se))
}

// joinVoice has c join a voice channel and connects its PeerConnection; it fails the test if
// JoinVoice fails.
func joinVoice(t *testing.T, s *webtest.Server, c *webtest.Client, channelID string, o peerOptions) *voicePeer {
	t.Helper()
	p, err := tryJoinVoice(t, s, c, channelID, o)
	if err != nil {
		t.Fatalf("JoinVoice: %v", err)
	}
	return p
}

func tryJoinVoice(t *testing.T, s *webtest.Server, c *webtest.Client, channelID string, o peerOptions) (*voicePeer, error) {
	t.Helper()
	api := voiceClient(s, c)
	res, err := api.JoinVoice(context.Background(), connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: channelID, Muted: o.muted}))
	if err != nil {
		return nil, err
	}
	p := &voicePeer{t: t, member: c.Member.GetId(), api: api, join: res.Msg, got: map[string]*received{}, endedCh: make(chan struct{})}
	p.level.Store(20)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	t.Cleanup(p.close)
	cfg := webrtc.Configuration{}
	for _, is := range res.Msg.GetIceServers() {
		var urls []string
		for _, u := range is.GetUrls() {
			if o.turn == "" || strings.HasSuffix(u, "?transport="+o.turn) {
				urls = append(urls, u)
			}
		}
		cfg.ICEServers = append(cfg.ICEServers, webrtc.ICEServer{URLs: urls, Username: is.GetUsername(), Credential: is.GetCredential()})
	}
	if o.relay {
		cfg.ICETransportPolicy = webrtc.ICETransportPolicyRelay
	}
	if p.pc, err = clientAPI(o).NewPeerConnection(cfg); err != nil {
		t.Fatal(err)
	}
	if p.mic, err = webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "mic", "me"); err != nil {
		t.Fatal(err)
	}
	if p.screen, err = webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, "screen", "me"); err != nil {
		t.Fatal(err)
	}
	session := res.Msg.GetSessionId()
	p.pc.OnICECandidate(func(cand *webrtc.ICECandidate) {
		if cand == nil {
			return
		}
		init := cand.ToJSON()
		req := &svcv1.AddIceCandidateRequest{SessionId: session, Candidate: init.Candidate}
		if init.SDPMid != nil {
			req.SdpMid = *init.SDPMid
		}
		if init.SDPMLineIndex != nil {
			i := uint32(*init.SDPMLineIndex)
			req.SdpMlineIndex = &i
		}
		if _, err := api.AddIceCandidate(p.ctx, connect.NewRequest(req)); err != nil && p.ctx.Err() == nil && connect.CodeOf(err) != connect.CodeNotFound {
			t.Logf("%s: AddIceCandidate: %v", p.member, err)
		}
	})
	p.pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		key := tr.StreamID() + ":" + tr.Kind().String()
		r := &received{}
		p.mu.Lock()
		p.got[key] = r
		p.mu.Unlock()
		go func() {
			for {
				if _, _, err := tr.ReadRTP(); err != nil {
					r.done.Store(true)
					return
				}
				r.packets.Add(1)
			}
		}()
	})
	stream, err := api.Signal(p.ctx, connect.NewRequest(&svcv1.SignalRequest{SessionId: session}))
	if err != nil {
		t.Fatal(err)
	}
	go p.signal(stream)
	go p.send()
	return p, nil
}

// signal reads the Signal stream: it answers each offer.
func (p *voicePeer) signal(stream *connect.ServerStreamForClient[svcv1.SignalEvent]) {
	defer stream.Close()
	for stream.Receive() {
		ev := stream.Msg()
		switch {
		case ev.GetOffer() != nil:
			// A session that ended meanwhile is not found: its ended event follows.
			if err := p.answer(ev.GetOffer()); err != nil && p.ctx.Err() == nil && connect.CodeOf(err) != connect.CodeNotFound {
				p.t.Errorf("%s: answering offer %d: %v", p.member, ev.GetOffer().GetRevision(), err)
			}
		case ev.GetEnded() != nil:
			p.mu.Lock()
			p.ended = ev.GetEnded()
			p.mu.Unlock()
			close(p.endedCh)
			return
		}
	}
}

// answer applies an offer as a browser client does: the first time it puts the microphone and
// the screen on the two slots the offer names.
func (p *voicePeer) answer(o *svcv1.VoiceOffer) error {
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: o.GetSdp()}); err != nil {
		return err
	}
	p.mu.Lock()
	first := p.offers == 0
	p.offers++
	p.mu.Unlock()
	if first {
		for _, tr := range []*webrtc.TrackLocalStaticRTP{p.mic, p.screen} {
			if _, err := p.pc.AddTrack(tr); err != nil {
				return err
			}
		}
		for _, tc := range p.pc.GetTransceivers() {
			if s := tc.Sender(); s != nil && s.Track() == p.mic && tc.Mid() != o.GetAudioMid() {
				return fmt.Errorf("the microphone went on m-line %s, not the audio slot %s", tc.Mid(), o.GetAudioMid())
			}
			if s := tc.Sender(); s != nil && s.Track() == p.screen && tc.Mid() != o.GetScreenMid() {
				return fmt.Errorf("the screen went on m-line %s, not the screen slot %s", tc.Mid(), o.GetScreenMid())
			}
		}
	}
	ans, err := p.pc.CreateAnswer(nil)
	if err != nil {
		return err
	}
	if err := p.pc.SetLocalDescription(ans); err != nil {
		return err
	}
	_, err = p.api.Answer(p.ctx, connect.NewRequest(&svcv1.AnswerRequest{SessionId: p.join.GetSessionId(), Sdp: ans.SDP, Revision: o.GetRevision()}))
	return err
}

// send writes Opus-sized packets at 50 a second with the audio level, and while sharing,
// VP8 frames at 30 a second.
func (p *voicePeer) send() {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var seq, vseq uint16
	var ts, vts uint32
	payload := make([]byte, 80)
	frame := make([]byte, 900)
	frame[0] = 0x10 // VP8 payload descriptor: start of a partition
	levelID := uint8(0)
	for n := 0; ; n++ {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
		}
		if levelID == 0 {
			for _, tc := range p.pc.GetTransceivers() {
				if s := tc.Sender(); s != nil && s.Track() == p.mic {
					for _, h := range s.GetParameters().HeaderExtensions {
						if h.URI == sdp.AudioLevelURI {
							levelID = uint8(h.ID)
						}
					}
				}
			}
		}
		seq++
		ts += 960
		pkt := &rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: seq, Timestamp: ts}, Payload: payload}
		if levelID != 0 {
			_ = pkt.Header.SetExtension(levelID, []byte{byte(p.level.Load())})
		}
		_ = p.mic.WriteRTP(pkt)
		if p.sharing.Load() && n%3 == 0 {
			vseq++
			vts += 3000
			_ = p.screen.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: vseq, Timestamp: vts, Marker: true}, Payload: frame})
		}
	}
}

// packets is how many packets of a kind p received from member (-1: no such track).
func (p *voicePeer) packets(member string, kind webrtc.RTPCodecType) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.got[member+":"+kind.String()]
	if r == nil {
		return -1
	}
	return r.packets.Load()
}

// trackDone reports whether p's track of a kind from member ended (the server removed it).
func (p *voicePeer) trackDone(member string, kind webrtc.RTPCodecType) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.got[member+":"+kind.String()]
	return r != nil && r.done.Load()
}

// endedWith waits for the session's ended event.
func (p *voicePeer) endedWith() *svcv1.VoiceEnded {
	p.t.Helper()
	select {
	case <-p.endedCh:
	case <-time.After(webtest.Wait):
		p.t.Fatalf("%s: no ended event within %s", p.member, webtest.Wait)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

func (p *voicePeer) setState(req *svcv1.SetVoiceStateRequest) *svcv1.VoiceState {
	p.t.Helper()
	req.SessionId = p.join.GetSessionId()
	res, err := p.api.SetVoiceState(context.Background(), connect.NewRequest(req))
	if err != nil {
		p.t.Fatalf("SetVoiceState: %v", err)
	}
	return res.Msg.GetState()
}

// selectedPair is the candidate pair the client's ICE selected.
func (p *voicePeer) selectedPair() *webrtc.ICECandidatePair {
	p.t.Helper()
	pair, err := p.pc.SCTP().Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil {
		p.t.Fatalf("no selected candidate pair: %v", err)
	}
	return pair
}

func (p *voicePeer) close() {
	p.cancel()
	p.pc.Close()
}

// eventually waits until cond holds, failing the test after webtest.Wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(webtest.Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, webtest.Wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
