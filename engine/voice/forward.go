package voice

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"

	"hearth/engine"
)

// Forwarding: one goroutine per received track reads its packets and writes each to the
// track of every other participant who receives it (a downTrack), under that track's SSRC and
// payload type. Nothing is decoded. A muted or deafened participant's audio is dropped here,
// as is audio to a deafened one; a downTrack's sequence numbers close the gaps that leaves, so
// the receiver sees no loss. Speaking is the audio level the sender put in each packet.

// publisher is a track a participant sends (their microphone or screen) and who receives it.
type publisher struct {
	owner    *session
	track    *webrtc.TrackRemote
	receiver *webrtc.RTPReceiver
	kind     webrtc.RTPCodecType
	// levelID is the audio level extension's id in the owner's packets (0: none).
	levelID uint8

	subsMu sync.Mutex
	subs   atomic.Pointer[[]*downTrack]
	closed atomic.Bool

	// keyframeAt is when the owner was last asked for a keyframe (Unix nanoseconds).
	keyframeAt atomic.Int64
	// speaking, and when the last loud packet came (Unix nanoseconds).
	speaking atomic.Bool
	loudAt   atomic.Int64
}

func newPublisher(s *session, t *webrtc.TrackRemote, r *webrtc.RTPReceiver) *publisher {
	p := &publisher{owner: s, track: t, receiver: r, kind: t.Kind()}
	for _, h := range r.GetParameters().HeaderExtensions {
		if h.URI == sdp.AudioLevelURI {
			p.levelID = uint8(h.ID)
		}
	}
	p.subs.Store(&[]*downTrack{})
	return p
}

func (p *publisher) addSub(d *downTrack) {
	p.subsMu.Lock()
	defer p.subsMu.Unlock()
	next := append(append([]*downTrack(nil), *p.subs.Load()...), d)
	p.subs.Store(&next)
}

func (p *publisher) removeSub(d *downTrack) {
	p.subsMu.Lock()
	defer p.subsMu.Unlock()
	var next []*downTrack
	for _, x := range *p.subs.Load() {
		if x != d {
			next = append(next, x)
		}
	}
	p.subs.Store(&next)
}

// Speaking: a packet whose audio level is this loud or louder (in -dBov: 0 is the loudest,
// 127 silence) is speech; a speaker is quiet after quietAfter without one.
const (
	loudLevel  = 50
	quietAfter = 600 * time.Millisecond
)

// forward reads the track until it ends (its owner leaves) and writes every packet on.
func (p *publisher) forward() {
	buf := make([]byte, packetSize)
	var pkt rtp.Packet
	audio := p.kind == webrtc.RTPCodecTypeAudio
	for {
		n, _, err := p.track.Read(buf)
		if err != nil {
			return
		}
		if pkt.Unmarshal(buf[:n]) != nil {
			continue
		}
		// Padding only (a sender probing bandwidth) is not forwarded, nor is a muted or
		// deafened participant's audio.
		drop := len(pkt.Payload) == 0
		var level []byte
		if audio && !drop {
			if p.owner.muted.Load() || p.owner.deafened.Load() {
				drop = true
			} else if p.levelID != 0 {
				if level = pkt.Header.GetExtension(p.levelID); len(level) > 0 {
					p.heard(level[0] & 0x7F)
				}
			}
		}
		for _, d := range *p.subs.Load() {
			if drop || (audio && d.sub.deafened.Load()) {
				d.skipped = true
				continue
			}
			d.write(&pkt, level)
		}
	}
}

// heard notes a packet's audio level: the first loud one makes the owner speaking.
func (p *publisher) heard(level byte) {
	if level > loudLevel {
		return
	}
	p.loudAt.Store(time.Now().UnixNano())
	if !p.speaking.Swap(true) {
		p.report(true)
	}
}

// quietCheck makes a speaker without a loud packet for quietAfter quiet (the session's tick).
func (p *publisher) quietCheck(now time.Time) {
	if p.speaking.Load() && now.Sub(time.Unix(0, p.loudAt.Load())) > quietAfter && p.speaking.CompareAndSwap(true, false) {
		p.report(false)
	}
}

func (p *publisher) report(speaking bool) {
	s := p.owner
	_, _ = s.srv.eng.UpdateVoice(s.member, s.id, engine.VoiceChange{Speaking: &speaking})
}

// keyframeEvery is the most often a screen's sender is asked for a keyframe.
const keyframeEvery = 500 * time.Millisecond

// askKeyframe asks the owner for a keyframe (PLI): a viewer lost one, or starts watching.
func (p *publisher) askKeyframe() {
	now := time.Now().UnixNano()
	last := p.keyframeAt.Load()
	if now-last < int64(keyframeEvery) || !p.keyframeAt.CompareAndSwap(last, now) {
		return
	}
	_ = p.owner.pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: uint32(p.track.SSRC())}})
}

// drainRTCP reads the RTCP of the received track (the sender's reports), which pion's
// interceptors need read.
func (p *publisher) drainRTCP() {
	buf := make([]byte, packetSize)
	for {
		if _, _, err := p.receiver.Read(buf); err != nil {
			return
		}
	}
}

// downTrack is a publisher's track as one other participant receives it: a webrtc.TrackLocal
// of its own, so that each receiver gets its own sequence numbers and none of the audio
// that is not for them.
type downTrack struct {
	pub    *publisher
	sub    *session
	inner  *webrtc.TrackLocalStaticRTP // its Bind finds the codec both sides have
	bound  atomic.Pointer[binding]
	sender *webrtc.RTPSender

	// The writer's state: touched by the publisher's goroutine only.
	started bool
	skipped bool // packets were not sent since the last one that was
	last    uint16
	offset  uint16
	ext     [1]rtp.Extension
}

// binding is where a downTrack writes, once negotiated.
type binding struct {
	ssrc    uint32
	pt      uint8
	levelID uint8
	w       webrtc.TrackLocalWriter
}

func newDownTrack(p *publisher, sub *session) *downTrack {
	kind := "audio"
	if p.kind == webrtc.RTPCodecTypeVideo {
		kind = "screen"
	}
	member := p.owner.member
	inner, _ := webrtc.NewTrackLocalStaticRTP(p.track.Codec().RTPCodecCapability, kind+":"+member, member)
	return &downTrack{pub: p, sub: sub, inner: inner}
}

func (d *downTrack) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	codec, err := d.inner.Bind(ctx)
	if err != nil {
		return codec, err
	}
	b := &binding{ssrc: uint32(ctx.SSRC()), pt: uint8(codec.PayloadType), w: ctx.WriteStream()}
	for _, h := range ctx.HeaderExtensions() {
		if h.URI == sdp.AudioLevelURI {
			b.levelID = uint8(h.ID)
		}
	}
	d.bound.Store(b)
	if d.pub.kind == webrtc.RTPCodecTypeVideo {
		d.pub.askKeyframe()
	}
	return codec, nil
}

func (d *downTrack) Unbind(ctx webrtc.TrackLocalContext) error {
	d.bound.Store(nil)
	return d.inner.Unbind(ctx)
}

func (d *downTrack) ID() string                { return d.inner.ID() }
func (d *downTrack) RID() string               { return "" }
func (d *downTrack) StreamID() string          { return d.inner.StreamID() }
func (d *downTrack) Kind() webrtc.RTPCodecType { return d.pub.kind }

// write sends one packet, renumbered past the packets that were skipped, with no header
// extension but the audio level.
func (d *downTrack) write(p *rtp.Packet, level []byte) {
	b := d.bound.Load()
	if b == nil {
		d.skipped = true
		return
	}
	seq := p.SequenceNumber
	if d.started && d.skipped {
		d.offset += seq - d.last - 1
	}
	d.started, d.skipped, d.last = true, false, seq
	h := p.Header
	h.SSRC = b.ssrc
	h.PayloadType = b.pt
	h.SequenceNumber = seq - d.offset
	h.Extension, h.Extensions = false, d.ext[:0]
	if len(level) > 0 && b.levelID != 0 {
		_ = h.SetExtension(b.levelID, level)
	}
	if p.PaddingSize != 0 && h.PaddingSize == 0 {
		h.PaddingSize = p.PaddingSize
	}
	_, _ = b.w.WriteRTP(&h, p.Payload)
}

// readRTCP reads what the receiver says of the track, until the track is removed: a lost
// picture (PLI, FIR) asks the sender for a keyframe. NACKs are answered by pion's responder
// on the way.
func (d *downTrack) readRTCP() {
	for {
		pkts, _, err := d.sender.ReadRTCP()
		if err != nil {
			return
		}
		for _, p := range pkts {
			switch p.(type) {
			case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
				d.pub.askKeyframe()
			}
		}
	}
}
