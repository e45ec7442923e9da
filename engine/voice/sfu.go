package voice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
	"golang.org/x/time/rate"

	"hearth/engine"
	"hearth/engine/ratelimit"
	svcv1 "hearth/proto/svc/v1"
)

// VoiceService's calls. Each checks its input, finds the caller's session and runs what
// touches the PeerConnection on the session's goroutine. On a nil *Server (voice is off) each
// answers ErrOff.

// ErrOff answers the calls of a server without voice.
var ErrOff = &engine.Error{Code: engine.CodeUnavailable, Msg: "voice is off on this server (-voice-port 0)"}

// Limits of the calls.
const (
	sdpMax       = 64 << 10
	candidateMax = 1024
	fieldMax     = 256
)

// Rate limits, per member: joins, and every other call but Signal.
var (
	joinLimit  = ratelimit.Limit{Every: rate.Every(6 * time.Second), Burst: 10}
	callsLimit = ratelimit.Limit{Every: 20, Burst: 100}
)

func (srv *Server) allow(c engine.Caller, what string, lim ratelimit.Limit) error {
	if wait := srv.limits.Allow(what+":"+c.ID, lim, 1); wait > 0 {
		wait = max(wait.Round(time.Millisecond), time.Millisecond)
		return &engine.Error{Code: engine.CodeResourceExhausted, Msg: fmt.Sprintf("%s: rate limit reached; retry in %s", what, wait), RetryAfter: wait}
	}
	return nil
}

// JoinVoice joins the caller to a voice channel and starts their session.
func (srv *Server) JoinVoice(ctx context.Context, c engine.Caller, req *svcv1.JoinVoiceRequest) (*svcv1.JoinVoiceResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	if req.GetChannelId() == "" {
		return nil, invalid("channel_id is required")
	}
	if err := srv.allow(c, "joining voice", joinLimit); err != nil {
		return nil, err
	}
	s := newSession(srv, newID(), c.ID)
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		return nil, errClosed
	}
	// Known before the engine seats the caller: a removal that comes at once finds it.
	srv.sessions[s.id] = s
	srv.mu.Unlock()
	me, room, replaced, err := srv.eng.JoinVoice(c, req.GetChannelId(), s.id, req.GetMuted(), req.GetDeafened())
	if err != nil {
		srv.mu.Lock()
		delete(srv.sessions, s.id)
		srv.mu.Unlock()
		return nil, err
	}
	if replaced != "" {
		srv.mu.Lock()
		old := srv.sessions[replaced]
		srv.mu.Unlock()
		if old != nil {
			old.end(svcv1.VoiceEndReason_VOICE_END_REASON_REPLACED, "you joined voice again")
		}
	}
	s.channel = me.GetChannelId()
	s.muted.Store(me.GetMuted())
	s.deafened.Store(me.GetDeafened())
	if err := s.open(); err != nil {
		srv.log.Error("voice: could not open a PeerConnection", "err", err)
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_CONNECTION_LOST, "the server could not open the connection")
	}
	srv.wg.Add(1)
	go s.run()
	// In the room with what it should receive, atomically with the publishers' arrivals.
	srv.mu.Lock()
	if !s.isEnded() {
		if srv.rooms[s.channel] == nil {
			srv.rooms[s.channel] = map[*session]struct{}{}
		}
		srv.rooms[s.channel][s] = struct{}{}
	}
	var pubs []*publisher
	for o := range srv.rooms[s.channel] {
		if o == s {
			continue
		}
		if p := o.mic.Load(); p != nil {
			pubs = append(pubs, p)
		}
		if p := o.screen.Load(); p != nil && o.sharing.Load() {
			pubs = append(pubs, p)
		}
	}
	srv.mu.Unlock()
	s.post(func() {
		for _, p := range pubs {
			s.addDown(p)
		}
		s.negotiate()
	})
	if s.isEnded() {
		return nil, &engine.Error{Code: engine.CodeInternal, Msg: "the voice session could not start"}
	}
	return &svcv1.JoinVoiceResponse{SessionId: s.id, IceServers: srv.iceServers(c.ID), State: me, States: room}, nil
}

// session finds the caller's session; not_found for one that is not theirs or is over.
func (srv *Server) session(c engine.Caller, id string) (*session, error) {
	if id == "" {
		return nil, invalid("session_id is required")
	}
	srv.mu.Lock()
	s := srv.sessions[id]
	srv.mu.Unlock()
	if s == nil || s.member != c.ID || s.isEnded() {
		return nil, notFound("voice session %.64s does not exist or is over", id)
	}
	return s, nil
}

// callSession runs op on the caller's session's goroutine, after the rate limit.
func (srv *Server) callSession(c engine.Caller, id string, op func(s *session) error) error {
	s, err := srv.session(c, id)
	if err != nil {
		return err
	}
	if err := srv.allow(c, "voice calls", callsLimit); err != nil {
		return err
	}
	err = s.call(func() error { return op(s) })
	if errors.Is(err, errNoSession) {
		return notFound("voice session %s is over", id)
	}
	return err
}

// Signal streams a session's signalling to send until the session ends (nil, after its ended
// event), the client goes away (ctx), another stream takes over, or the caller's token
// expires.
func (srv *Server) Signal(ctx context.Context, c engine.Caller, req *svcv1.SignalRequest, send func(*svcv1.SignalEvent) error) error {
	if srv == nil {
		return ErrOff
	}
	s, err := srv.session(c, req.GetSessionId())
	if err != nil {
		return err
	}
	st := newSignalStream()
	s.post(func() { s.attach(st) })
	defer s.post(func() { s.detach(st) })
	// A heartbeat at once, as Subscribe does: the client knows the stream is open (after a
	// reopening, say) without waiting for an offer.
	if err := send(&svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Heartbeat{Heartbeat: true}}); err != nil {
		return err
	}
	beat := time.NewTicker(srv.opts.Heartbeat)
	defer beat.Stop()
	var expiry <-chan time.Time
	if !c.Expires.IsZero() {
		t := time.NewTimer(time.Until(c.Expires))
		defer t.Stop()
		expiry = t.C
	}
	for {
		select {
		case ev := <-st.events:
			if err := send(ev); err != nil {
				return err
			}
			if ev.GetEnded() != nil {
				return nil
			}
		case <-st.gone:
			return st.goneErr
		case <-s.finished:
			// What the session queued before it ended, then its end (told here when the session
			// ended before it took this stream).
			for {
				select {
				case ev := <-st.events:
					if err := send(ev); err != nil || ev.GetEnded() != nil {
						return err
					}
				default:
					return send(&svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Ended{Ended: s.ended}})
				}
			}
		case <-beat.C:
			if err := send(&svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Heartbeat{Heartbeat: true}}); err != nil {
				return err
			}
		case <-expiry:
			return engine.ErrTokenExpired
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Answer applies the client's answer to an offer.
func (srv *Server) Answer(ctx context.Context, c engine.Caller, req *svcv1.AnswerRequest) (*svcv1.AnswerResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	if n := len(req.GetSdp()); n == 0 || n > sdpMax {
		return nil, invalid("sdp is %d bytes; it must be 1 to %d", n, sdpMax)
	}
	err := srv.callSession(c, req.GetSessionId(), func(s *session) error { return s.answer(req.GetRevision(), req.GetSdp()) })
	if err != nil {
		return nil, err
	}
	return &svcv1.AnswerResponse{}, nil
}

// AddIceCandidate adds one of the client's candidates.
func (srv *Server) AddIceCandidate(ctx context.Context, c engine.Caller, req *svcv1.AddIceCandidateRequest) (*svcv1.AddIceCandidateResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	if n := len(req.GetCandidate()); n > candidateMax {
		return nil, invalid("candidate is %d bytes; the limit is %d", n, candidateMax)
	}
	if n := len(req.GetSdpMid()); n > fieldMax {
		return nil, invalid("sdp_mid is %d bytes; the limit is %d", n, fieldMax)
	}
	if n := len(req.GetUsernameFragment()); n > fieldMax {
		return nil, invalid("username_fragment is %d bytes; the limit is %d", n, fieldMax)
	}
	if req.GetCandidate() != "" {
		if _, err := ice.UnmarshalCandidate(req.GetCandidate()); err != nil {
			return nil, invalid("candidate does not parse: %v", err)
		}
	}
	cand := webrtc.ICECandidateInit{Candidate: req.GetCandidate()}
	if req.GetSdpMid() != "" {
		mid := req.GetSdpMid()
		cand.SDPMid = &mid
	}
	if req.SdpMlineIndex != nil {
		i := uint16(min(req.GetSdpMlineIndex(), 1<<16-1))
		cand.SDPMLineIndex = &i
	}
	if req.GetUsernameFragment() != "" {
		u := req.GetUsernameFragment()
		cand.UsernameFragment = &u
	}
	err := srv.callSession(c, req.GetSessionId(), func(s *session) error {
		if cand.Candidate == "" {
			return nil
		}
		return s.addCandidate(cand)
	})
	if err != nil {
		return nil, err
	}
	return &svcv1.AddIceCandidateResponse{}, nil
}

// RestartIce sends an offer that restarts ICE, and answers fresh ICE servers.
func (srv *Server) RestartIce(ctx context.Context, c engine.Caller, req *svcv1.RestartIceRequest) (*svcv1.RestartIceResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	err := srv.callSession(c, req.GetSessionId(), func(s *session) error {
		s.restart = true
		s.negotiate()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &svcv1.RestartIceResponse{IceServers: srv.iceServers(c.ID)}, nil
}

// SetVoiceState changes the caller's muted, deafened and sharing_screen.
func (srv *Server) SetVoiceState(ctx context.Context, c engine.Caller, req *svcv1.SetVoiceStateRequest) (*svcv1.SetVoiceStateResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	s, err := srv.session(c, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if err := srv.allow(c, "voice calls", callsLimit); err != nil {
		return nil, err
	}
	// Applied to the forwarding first: muting stops the audio before anyone is told.
	if req.Muted != nil {
		s.muted.Store(req.GetMuted())
	}
	if req.Deafened != nil {
		s.deafened.Store(req.GetDeafened())
	}
	st, err := srv.eng.UpdateVoice(c.ID, s.id, engine.VoiceChange{Muted: req.Muted, Deafened: req.Deafened, SharingScreen: req.SharingScreen})
	if err != nil {
		return nil, err
	}
	if p := s.mic.Load(); p != nil && (st.GetMuted() || st.GetDeafened()) {
		p.speaking.Store(false)
	}
	if req.SharingScreen != nil && s.sharing.Swap(req.GetSharingScreen()) != req.GetSharingScreen() {
		srv.reshare(s)
	}
	return &svcv1.SetVoiceStateResponse{State: st}, nil
}

// LeaveVoice ends the caller's session.
func (srv *Server) LeaveVoice(ctx context.Context, c engine.Caller, req *svcv1.LeaveVoiceRequest) (*svcv1.LeaveVoiceResponse, error) {
	if srv == nil {
		return nil, ErrOff
	}
	if req.GetSessionId() == "" {
		return nil, invalid("session_id is required")
	}
	srv.mu.Lock()
	s := srv.sessions[req.GetSessionId()]
	srv.mu.Unlock()
	if s != nil && s.member == c.ID {
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_LEFT, "you left")
		<-s.finished
	}
	return &svcv1.LeaveVoiceResponse{}, nil
}

// publish registers a track a client started sending and forwards it to the others in the
// room: a microphone at once, a screen while its owner shares.
func (srv *Server) publish(p *publisher) {
	s := p.owner
	srv.mu.Lock()
	defer srv.mu.Unlock()
	var prev *publisher
	if p.kind == webrtc.RTPCodecTypeAudio {
		prev = s.mic.Swap(p)
	} else {
		prev = s.screen.Swap(p)
	}
	if prev != nil {
		prev.closed.Store(true)
		srv.unshareLocked(prev)
	}
	if s.isEnded() {
		p.closed.Store(true)
		return
	}
	if p.kind == webrtc.RTPCodecTypeAudio || s.sharing.Load() {
		srv.shareLocked(p)
	}
}

// reshare starts or stops forwarding a session's screen after its sharing_screen changed.
func (srv *Server) reshare(s *session) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	p := s.screen.Load()
	if p == nil {
		return // forwarded when it arrives
	}
	if s.sharing.Load() {
		srv.shareLocked(p)
	} else {
		srv.unshareLocked(p)
	}
}

// shareLocked forwards p to everyone else in its owner's room. Called with srv.mu held.
func (srv *Server) shareLocked(p *publisher) {
	for o := range srv.rooms[p.owner.channel] {
		if o != p.owner {
			o.post(func() {
				o.addDown(p)
				o.negotiate()
			})
		}
	}
}

// unshareLocked stops forwarding p to the others. Called with srv.mu held.
func (srv *Server) unshareLocked(p *publisher) {
	for o := range srv.rooms[p.owner.channel] {
		if o != p.owner {
			o.post(func() {
				if o.downs[p] != nil {
					o.dropDown(p)
					o.negotiate()
				}
			})
		}
	}
}

// leave takes an ended session out of its room: what it published stops, and the others get
// offers without it.
func (srv *Server) leave(s *session) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	delete(srv.sessions, s.id)
	for _, p := range []*publisher{s.mic.Load(), s.screen.Load()} {
		if p != nil {
			p.closed.Store(true)
			srv.unshareLocked(p)
		}
	}
	if room := srv.rooms[s.channel]; room != nil {
		delete(room, s)
		if len(room) == 0 {
			delete(srv.rooms, s.channel)
		}
	}
}

// Errors of the sessions.

var (
	errTakenOver = &engine.Error{Code: engine.CodeFailedPrecondition, Msg: "another Signal stream took over this voice session"}
	errBehind    = &engine.Error{Code: engine.CodeUnavailable, Msg: "the Signal stream fell behind; open it again"}
	errTooMany   = &engine.Error{Code: engine.CodeResourceExhausted, Msg: fmt.Sprintf("this ICE generation has %d candidates already; the limit is %d (RestartIce starts a new one)", candidatesMax, candidatesMax)}
)

// noOffer is Answer's failed_precondition.
func noOffer(revision, waiting int64) error {
	msg := fmt.Sprintf("no offer waits for an answer (revision %d was answered or replaced)", revision)
	if waiting != 0 {
		msg = fmt.Sprintf("revision %d is not the offer waiting for an answer (that is revision %d)", revision, waiting)
	}
	return &engine.Error{Code: engine.CodeFailedPrecondition, Msg: msg}
}
