// Package voicetest is a voice client for tests and the load tool: a pion PeerConnection that
// joins a voice channel through VoiceService as the browser client does (JoinVoice, the
// Signal stream, Answer, Trickle ICE), sends synthetic Opus at 50 packets a second with the
// audio level (and VP8 frames while sharing a screen), and counts the packets it receives from
// each other participant. It talks to loopback addresses only.
package voicetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"

	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// Options shape a Peer.
type Options struct {
	// Relay forces ICE through the server's TURN (relay candidates only).
	Relay bool
	// TURN keeps only the TURN URLs of this transport ("udp" or "tcp"); empty keeps both.
	TURN string
	// TCP uses ICE-TCP only.
	TCP bool
	// Muted and Deafened are the state JoinVoice starts with.
	Muted, Deafened bool
	// Quiet sends at the level of silence (127) instead of speech (20); Silent sends no audio
	// at all (a microphone off, or Opus's discontinuous transmission in a long silence).
	Quiet, Silent bool
	// OnError hears what went wrong while signalling (an offer that could not be answered, a
	// candidate refused), but for a session that is over.
	OnError func(error)
}

// Peer is one participant.
type Peer struct {
	Member string
	Join   *svcv1.JoinVoiceResponse
	PC     *webrtc.PeerConnection
	// Level is the audio level the microphone sends (-dBov: 0 loud, 127 silent).
	Level atomic.Int32
	// Sharing makes the screen send VP8 frames, 30 a second.
	Sharing atomic.Bool
	// Sent counts the microphone's packets.
	Sent atomic.Int64

	api     svcv1connect.VoiceServiceClient
	mic     *webrtc.TrackLocalStaticRTP
	screen  *webrtc.TrackLocalStaticRTP
	ctx     context.Context
	cancel  context.CancelFunc
	onError func(error)
	silent  bool

	mu     sync.Mutex
	got    map[string]*received
	offers int // received
	// answered: the offers whose answer the server took.
	answered int
	ended    *svcv1.VoiceEnded
	endedCh  chan struct{}
}

type received struct {
	packets atomic.Int64
	done    atomic.Bool
}

// newAPI is the client side's pion API: loopback candidates only, no mDNS.
func newAPI(o Options) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		return nil, err
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: sdp.AudioLevelURI}, webrtc.RTPCodecTypeAudio); err != nil {
		return nil, err
	}
	// RTCP reports only: what a load tool can afford for 25 peers on one core.
	ir := &interceptor.Registry{}
	if err := webrtc.ConfigureRTCPReports(ir); err != nil {
		return nil, err
	}
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	if o.TCP {
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeTCP4})
	} else {
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(se)), nil
}

// Join joins member to a voice channel through api and connects; it returns JoinVoice's error
// as it is.
func Join(api svcv1connect.VoiceServiceClient, member, channelID string, o Options) (*Peer, error) {
	res, err := api.JoinVoice(context.Background(), connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: channelID, Muted: o.Muted, Deafened: o.Deafened}))
	if err != nil {
		return nil, err
	}
	p := &Peer{Member: member, Join: res.Msg, api: api, got: map[string]*received{}, endedCh: make(chan struct{}), onError: o.OnError, silent: o.Silent}
	if p.onError == nil {
		p.onError = func(error) {}
	}
	p.Level.Store(20)
	if o.Quiet {
		p.Level.Store(127)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if err := p.connect(o); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Peer) connect(o Options) error {
	wapi, err := newAPI(o)
	if err != nil {
		return err
	}
	cfg := webrtc.Configuration{}
	for _, is := range p.Join.GetIceServers() {
		var urls []string
		for _, u := range is.GetUrls() {
			if o.TURN == "" || strings.HasSuffix(u, "?transport="+o.TURN) {
				urls = append(urls, u)
			}
		}
		cfg.ICEServers = append(cfg.ICEServers, webrtc.ICEServer{URLs: urls, Username: is.GetUsername(), Credential: is.GetCredential()})
	}
	if o.Relay {
		cfg.ICETransportPolicy = webrtc.ICETransportPolicyRelay
	}
	if p.PC, err = wapi.NewPeerConnection(cfg); err != nil {
		return err
	}
	if p.mic, err = webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "mic", "me"); err != nil {
		return err
	}
	if p.screen, err = webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, "screen", "me"); err != nil {
		return err
	}
	session := p.Join.GetSessionId()
	p.PC.OnICECandidate(func(cand *webrtc.ICECandidate) {
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
		_, err := p.api.AddIceCandidate(p.ctx, connect.NewRequest(req))
		p.report("AddIceCandidate", err)
	})
	p.PC.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		r := &received{}
		p.mu.Lock()
		p.got[tr.StreamID()+":"+tr.Kind().String()] = r
		p.mu.Unlock()
		go func() {
			buf := make([]byte, 1600)
			for {
				if _, _, err := tr.Read(buf); err != nil {
					r.done.Store(true)
					return
				}
				r.packets.Add(1)
			}
		}()
	})
	stream, err := p.api.Signal(p.ctx, connect.NewRequest(&svcv1.SignalRequest{SessionId: session}))
	if err != nil {
		return err
	}
	go p.signal(stream)
	go p.send()
	return nil
}

// report passes an error on, but for a session that is over (its ended event follows) or a
// peer that closed.
func (p *Peer) report(what string, err error) {
	if err != nil && p.ctx.Err() == nil && connect.CodeOf(err) != connect.CodeNotFound {
		if what != "" {
			err = fmt.Errorf("%s: %w", what, err)
		}
		p.onError(fmt.Errorf("%s: %w", p.Member, err))
	}
}

// signal reads the Signal stream and answers each offer. An answer refused for want of
// permission is reported unless the session's end comes next, saying the member was removed:
// a member removed while answering an offer (kicked, or out of the channel's sight) is refused
// the answer, the session's end being on its way.
func (p *Peer) signal(stream *connect.ServerStreamForClient[svcv1.SignalEvent]) {
	defer stream.Close()
	var refused error
	defer func() { p.report("", refused) }()
	for stream.Receive() {
		ev := stream.Msg()
		switch {
		case ev.GetOffer() != nil:
			p.report("", refused)
			refused = nil
			what := fmt.Sprintf("answering offer %d", ev.GetOffer().GetRevision())
			if err := p.answer(ev.GetOffer()); connect.CodeOf(err) == connect.CodePermissionDenied {
				refused = fmt.Errorf("%s: %w", what, err)
			} else {
				p.report(what, err)
			}
		case ev.GetEnded() != nil:
			if ev.GetEnded().GetReason() == svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED {
				refused = nil
			}
			p.mu.Lock()
			p.ended = ev.GetEnded()
			p.mu.Unlock()
			close(p.endedCh)
			return
		}
	}
}

// answer applies an offer as the browser client does: the first time, it puts the microphone
// and the screen on the two slots the offer names.
func (p *Peer) answer(o *svcv1.VoiceOffer) error {
	if err := p.PC.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: o.GetSdp()}); err != nil {
		return err
	}
	p.mu.Lock()
	first := p.offers == 0
	p.offers++
	p.mu.Unlock()
	if first {
		for _, tr := range []*webrtc.TrackLocalStaticRTP{p.mic, p.screen} {
			if _, err := p.PC.AddTrack(tr); err != nil {
				return err
			}
		}
		for _, tc := range p.PC.GetTransceivers() {
			s := tc.Sender()
			switch {
			case s == nil:
			case s.Track() == p.mic && tc.Mid() != o.GetAudioMid():
				return fmt.Errorf("the microphone went on m-line %s, not the audio slot %s", tc.Mid(), o.GetAudioMid())
			case s.Track() == p.screen && tc.Mid() != o.GetScreenMid():
				return fmt.Errorf("the screen went on m-line %s, not the screen slot %s", tc.Mid(), o.GetScreenMid())
			}
		}
	}
	ans, err := p.PC.CreateAnswer(nil)
	if err != nil {
		return err
	}
	if err := p.PC.SetLocalDescription(ans); err != nil {
		return err
	}
	if _, err := p.api.Answer(p.ctx, connect.NewRequest(&svcv1.AnswerRequest{SessionId: p.Join.GetSessionId(), Sdp: ans.SDP, Revision: o.GetRevision()})); err != nil {
		return err
	}
	p.mu.Lock()
	p.answered++
	p.mu.Unlock()
	return nil
}

// send writes an Opus-sized packet (80 bytes: speech at ~32 kbit/s) every 20 ms with the audio
// level, and while sharing a 900-byte VP8 frame every 60 ms.
func (p *Peer) send() {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var seq, vseq uint16
	var ts, vts uint32
	payload := make([]byte, 80)
	frame := make([]byte, 900)
	frame[0] = 0x10 // VP8 payload descriptor: the start of a partition
	var levelID uint8
	for n := 0; ; n++ {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
		}
		if levelID == 0 {
			levelID = p.levelID()
		}
		seq++
		ts += 960
		pkt := &rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: seq, Timestamp: ts}, Payload: payload}
		if levelID != 0 {
			_ = pkt.Header.SetExtension(levelID, []byte{byte(p.Level.Load())})
		}
		if !p.silent && p.mic.WriteRTP(pkt) == nil {
			p.Sent.Add(1)
		}
		if p.Sharing.Load() && n%3 == 0 {
			vseq++
			vts += 5400
			_ = p.screen.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, SequenceNumber: vseq, Timestamp: vts, Marker: true}, Payload: frame})
		}
	}
}

// levelID is the audio level extension's id the microphone negotiated (0 before).
func (p *Peer) levelID() uint8 {
	for _, tc := range p.PC.GetTransceivers() {
		if s := tc.Sender(); s != nil && s.Track() == p.mic {
			for _, h := range s.GetParameters().HeaderExtensions {
				if h.URI == sdp.AudioLevelURI {
					return uint8(h.ID)
				}
			}
		}
	}
	return 0
}

// Packets is how many packets of a kind the peer received from member (-1: no such track).
func (p *Peer) Packets(member string, kind webrtc.RTPCodecType) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.got[member+":"+kind.String()]
	if r == nil {
		return -1
	}
	return r.packets.Load()
}

// Received is how many packets the peer received in all.
func (p *Peer) Received() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, r := range p.got {
		n += r.packets.Load()
	}
	return n
}

// TrackDone reports whether the peer's track of a kind from member ended (the server removed
// it).
func (p *Peer) TrackDone(member string, kind webrtc.RTPCodecType) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.got[member+":"+kind.String()]
	return r != nil && r.done.Load()
}

// Offers is how many offers the peer answered, the server having taken the answer.
func (p *Peer) Offers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answered
}

// Ended waits up to wait for the session's ended event.
func (p *Peer) Ended(wait time.Duration) (*svcv1.VoiceEnded, error) {
	select {
	case <-p.endedCh:
	case <-time.After(wait):
		return nil, fmt.Errorf("%s: no ended event within %s", p.Member, wait)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended, nil
}

// SetState calls SetVoiceState on the peer's session.
func (p *Peer) SetState(req *svcv1.SetVoiceStateRequest) (*svcv1.VoiceState, error) {
	req.SessionId = p.Join.GetSessionId()
	res, err := p.api.SetVoiceState(context.Background(), connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetState(), nil
}

// Leave calls LeaveVoice on the peer's session.
func (p *Peer) Leave() error {
	_, err := p.api.LeaveVoice(context.Background(), connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: p.Join.GetSessionId()}))
	return err
}

// SelectedPair is the candidate pair the peer's ICE selected.
func (p *Peer) SelectedPair() (*webrtc.ICECandidatePair, error) {
	pair, err := p.PC.SCTP().Transport().ICETransport().GetSelectedCandidatePair()
	if err == nil && pair == nil {
		err = errors.New("no candidate pair is selected")
	}
	return pair, err
}

// Close stops the peer (its session ends on the server when the stream's grace runs out, or
// at once with Leave).
func (p *Peer) Close() {
	p.cancel()
	if p.PC != nil {
		p.PC.Close()
	}
}
