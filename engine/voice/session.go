package voice

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4"

	svcv1 "hearth/proto/svc/v1"
)

// session is one participant: their PeerConnection, its signalling, and what they publish and
// receive. Everything that touches the PeerConnection's signalling runs as an op on the
// session's goroutine (run), one at a time; the forwarding goroutines read only the atomics.
type session struct {
	srv     *Server
	id      string
	member  string
	channel string
	pc      *webrtc.PeerConnection
	// The client's two slots: the server receives its microphone and its screen on them.
	audioSlot, screenSlot *webrtc.RTPTransceiver

	opsMu sync.Mutex
	ops   []func()
	wake  chan struct{}
	// done closes when the session ends; finished once it is torn down (its Signal stream has
	// its ended event).
	done     chan struct{}
	finished chan struct{}
	endOnce  sync.Once
	ended    *svcv1.VoiceEnded

	// Signalling, owned by the session's goroutine.
	revision int64
	offer    *svcv1.VoiceOffer // the offer waiting for its answer, nil when none
	offerAt  time.Time
	again    bool // negotiate again once the offer is answered
	restart  bool // the next offer restarts ICE
	answered bool // an answer was applied: the client's slots are set
	// early are the candidates that came while an offer was out, for after its answer.
	early      []webrtc.ICECandidateInit
	candidates int // this ICE generation's
	stream     *signalStream
	streamless time.Time // since when no Signal stream is open (zero while one is)
	// Transceivers whose sender was removed: in the next offer (removed), in the offer out
	// (freeing), and negotiated inactive, free to carry another track (free).
	removed, freeing, free []*webrtc.RTPTransceiver
	downs                  map[*publisher]*downTrack

	// Shared with the forwarding goroutines and the callbacks of pion.
	muted, deafened, sharing atomic.Bool
	mic, screen              atomic.Pointer[publisher]
	// downSince is when the media connection stopped being connected (Unix nanoseconds), 0
	// while it is.
	downSince atomic.Int64
}

func newSession(srv *Server, id, member string) *session {
	return &session{
		srv: srv, id: id, member: member,
		wake: make(chan struct{}, 1), done: make(chan struct{}), finished: make(chan struct{}),
		downs: map[*publisher]*downTrack{},
	}
}

// post queues an op for the session's goroutine. Ops queued after the session ended never run.
func (s *session) post(op func()) {
	s.opsMu.Lock()
	s.ops = append(s.ops, op)
	s.opsMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// call runs op on the session's goroutine and waits for its error; errNoSession when the
// session ends first.
func (s *session) call(op func() error) error {
	res := make(chan error, 1)
	s.post(func() { res <- op() })
	select {
	case err := <-res:
		return err
	case <-s.done:
		return errNoSession
	}
}

// end ends the session, once: the goroutine tears it down.
func (s *session) end(reason svcv1.VoiceEndReason, msg string) {
	s.endOnce.Do(func() {
		s.ended = &svcv1.VoiceEnded{Reason: reason, Message: msg}
		close(s.done)
	})
}

func (s *session) isEnded() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// open makes the PeerConnection and its two slots.
func (s *session) open() error {
	pc, err := s.srv.api.NewPeerConnection(webrtc.Configuration{
		Certificates:  []webrtc.Certificate{s.srv.cert},
		BundlePolicy:  webrtc.BundlePolicyMaxBundle,
		RTCPMuxPolicy: webrtc.RTCPMuxPolicyRequire,
	})
	if err != nil {
		return err
	}
	s.pc = pc
	recv := webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}
	if s.audioSlot, err = pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, recv); err != nil {
		return err
	}
	if s.screenSlot, err = pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo, recv); err != nil {
		return err
	}
	s.downSince.Store(time.Now().UnixNano())
	pc.OnICEConnectionStateChange(func(st webrtc.ICEConnectionState) {
		if st == webrtc.ICEConnectionStateConnected || st == webrtc.ICEConnectionStateCompleted {
			s.downSince.Store(0)
		} else {
			s.downSince.CompareAndSwap(0, time.Now().UnixNano())
		}
	})
	pc.OnTrack(s.received)
	return nil
}

// tickEvery is how often a session checks its timers and whether its speaker went quiet.
const tickEvery = 200 * time.Millisecond

// run is the session's goroutine: its ops, its timers, then its teardown.
func (s *session) run() {
	defer s.srv.wg.Done()
	defer s.teardown()
	s.streamless = time.Now()
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
			s.opsMu.Lock()
			ops := s.ops
			s.ops = nil
			s.opsMu.Unlock()
			for _, op := range ops {
				if s.isEnded() {
					return
				}
				op()
			}
		case now := <-t.C:
			s.tick(now)
		}
	}
}

// tick ends a session whose client went away, and notices a speaker who went quiet.
func (s *session) tick(now time.Time) {
	o := s.srv.opts
	switch {
	case s.stream == nil && now.Sub(s.streamless) > o.SignalGrace:
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_CONNECTION_LOST, "no Signal stream was open for "+o.SignalGrace.String())
		return
	case s.offer != nil && now.Sub(s.offerAt) > o.AnswerTimeout:
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_CONNECTION_LOST, "the server's offer was not answered within "+o.AnswerTimeout.String())
		return
	}
	if since := s.downSince.Load(); since != 0 && now.Sub(time.Unix(0, since)) > o.ConnectTimeout {
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_CONNECTION_LOST, "the media connection was not connected for "+o.ConnectTimeout.String())
		return
	}
	if p := s.mic.Load(); p != nil {
		p.quietCheck(now)
	}
}

// negotiate sends a new offer, or marks that one is needed once the offer out is answered.
func (s *session) negotiate() {
	if s.offer != nil {
		s.again = true
		return
	}
	s.again = false
	offer, err := s.pc.CreateOffer(&webrtc.OfferOptions{ICERestart: s.restart})
	if err != nil {
		s.fail("create an offer", err)
		return
	}
	gathered := webrtc.GatheringCompletePromise(s.pc)
	if err := s.pc.SetLocalDescription(offer); err != nil {
		s.fail("apply the offer", err)
		return
	}
	// The media port's candidates are known at once: gathering takes no time.
	select {
	case <-gathered:
	case <-time.After(5 * time.Second):
	case <-s.done:
		return
	}
	s.revision++
	s.offer = &svcv1.VoiceOffer{
		Sdp:        s.pc.LocalDescription().SDP,
		Revision:   s.revision,
		AudioMid:   s.audioSlot.Mid(),
		ScreenMid:  s.screenSlot.Mid(),
		IceRestart: s.restart,
	}
	if s.restart {
		s.restart = false
		s.candidates = 0
	}
	s.offerAt = time.Now()
	s.freeing = append(s.freeing, s.removed...)
	s.removed = nil
	s.push(&svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Offer{Offer: s.offer}})
}

// fail ends a session whose PeerConnection refused what the server asked of it.
func (s *session) fail(what string, err error) {
	s.srv.log.Warn("voice: a session failed", "member", s.member, "session", s.id, "step", what, "err", err)
	s.end(svcv1.VoiceEndReason_VOICE_END_REASON_CONNECTION_LOST, "the server could not "+what)
}

// answer applies the client's answer to the offer of that revision.
func (s *session) answer(revision int64, sdp string) error {
	if s.offer == nil || s.offer.GetRevision() != revision {
		return noOffer(revision, s.offer.GetRevision())
	}
	if err := s.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: sdp}); err != nil {
		return invalid("the answer does not apply to the offer of revision %d: %v", revision, err)
	}
	s.offer = nil
	s.answered = true
	s.free = append(s.free, s.freeing...)
	s.freeing = nil
	for _, c := range s.early {
		_ = s.pc.AddICECandidate(c)
	}
	s.early = nil
	if s.again {
		s.negotiate()
	}
	return nil
}

// addCandidate adds one of the client's candidates, or keeps it until the offer out is
// answered (the client trickles as soon as it applied its answer, which may arrive after).
func (s *session) addCandidate(c webrtc.ICECandidateInit) error {
	if s.candidates >= candidatesMax {
		return errTooMany
	}
	s.candidates++
	if s.offer != nil || s.pc.RemoteDescription() == nil {
		s.early = append(s.early, c)
		return nil
	}
	if err := s.pc.AddICECandidate(c); err != nil {
		return invalid("candidate does not apply: %v", err)
	}
	return nil
}

// candidatesMax bounds the candidates of one ICE generation.
const candidatesMax = 64

// attach makes st the session's Signal stream, ending the one before; st gets the offer
// waiting for an answer first.
func (s *session) attach(st *signalStream) {
	if s.stream != nil {
		s.stream.drop(errTakenOver)
	}
	s.stream = st
	s.streamless = time.Time{}
	if s.offer != nil {
		s.push(&svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Offer{Offer: s.offer}})
	}
}

// detach forgets st when it is still the session's stream.
func (s *session) detach(st *signalStream) {
	if s.stream == st {
		s.stream = nil
		s.streamless = time.Now()
	}
}

// push sends an event on the Signal stream; a stream that does not read is dropped (the
// client opens another and gets the offer waiting).
func (s *session) push(ev *svcv1.SignalEvent) {
	if s.stream == nil {
		return
	}
	select {
	case s.stream.events <- ev:
	default:
		s.stream.drop(errBehind)
		s.stream = nil
		s.streamless = time.Now()
	}
}

// received is pion's OnTrack: the client's microphone or screen arrived on a slot.
func (s *session) received(t *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
	var slot *webrtc.RTPTransceiver
	switch t.Kind() {
	case webrtc.RTPCodecTypeAudio:
		slot = s.audioSlot
	case webrtc.RTPCodecTypeVideo:
		slot = s.screenSlot
	}
	if slot == nil || slot.Receiver() != r {
		return
	}
	p := newPublisher(s, t, r)
	s.srv.publish(p)
	go p.forward()
	go p.drainRTCP()
}

// addDown starts forwarding a publisher's track to this session (a new offer follows).
func (s *session) addDown(p *publisher) {
	if s.downs[p] != nil || p.closed.Load() {
		return
	}
	d := newDownTrack(p, s)
	var sender *webrtc.RTPSender
	for i, t := range s.free {
		if t.Kind() != p.kind {
			continue
		}
		s.free = append(s.free[:i], s.free[i+1:]...)
		snd, err := s.srv.api.NewRTPSender(d, s.pc.SCTP().Transport())
		if err == nil {
			err = t.SetSender(snd, d)
		}
		if err != nil {
			s.fail("reuse an m-line", err)
			return
		}
		sender = snd
		break
	}
	if sender == nil {
		t, err := s.pc.AddTransceiverFromTrack(d, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly})
		if err != nil {
			s.fail("add a track", err)
			return
		}
		sender = t.Sender()
	}
	d.sender = sender
	s.downs[p] = d
	p.addSub(d)
	go d.readRTCP()
}

// dropDown stops forwarding a publisher's track to this session (a new offer follows).
func (s *session) dropDown(p *publisher) {
	d := s.downs[p]
	if d == nil {
		return
	}
	delete(s.downs, p)
	p.removeSub(d)
	for _, t := range s.pc.GetTransceivers() {
		if t.Sender() == d.sender {
			if err := s.pc.RemoveTrack(d.sender); err != nil {
				s.fail("remove a track", err)
				return
			}
			s.removed = append(s.removed, t)
			break
		}
	}
}

// teardown runs once the session ended: it leaves the room and the engine, stops what it
// publishes (the others get new offers), closes the PeerConnection and tells the Signal
// stream.
func (s *session) teardown() {
	s.srv.leave(s)
	s.srv.eng.LeaveVoice(s.member, s.id)
	for _, d := range s.downs {
		d.pub.removeSub(d)
	}
	if s.pc != nil {
		s.pc.Close()
	}
	if s.stream != nil {
		select {
		case s.stream.events <- &svcv1.SignalEvent{Kind: &svcv1.SignalEvent_Ended{Ended: s.ended}}:
		default:
			s.stream.drop(errBehind)
		}
	}
	close(s.finished)
}

// signalStream is one open Signal stream of a session.
type signalStream struct {
	events chan *svcv1.SignalEvent
	// gone closes when the session drops the stream (another took over, or it fell behind).
	gone    chan struct{}
	goneErr error
	once    sync.Once
}

func newSignalStream() *signalStream {
	return &signalStream{events: make(chan *svcv1.SignalEvent, 8), gone: make(chan struct{})}
}

func (st *signalStream) drop(err error) {
	st.once.Do(func() {
		st.goneErr = err
		close(st.gone)
	})
}
