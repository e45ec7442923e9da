package engine

import (
	"context"
	"time"

	"golang.org/x/time/rate"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// typingEvery is the most often one member's typing in one channel is announced.
const typingEvery = 3 * time.Second

// SetTyping tells the channel's other members the caller is typing. Ephemeral: nothing is
// stored, and calls within 3 s of the last announced one succeed silently.
func (e *Engine) SetTyping(ctx context.Context, c Caller, req *svcv1.SetTypingRequest) (*svcv1.SetTypingResponse, error) {
	d := e.snap.Load()
	rec, err := d.visibleChannel(c, req.GetChannelId())
	if err != nil {
		return nil, err
	}
	if !d.In(c.ID, rec) {
		return nil, denied("you have not joined this channel")
	}
	if err := checkNotTimedOut(d.active(c.ID).GetMember(), e.now()); err != nil {
		return nil, err
	}
	if voiceChannel(rec) {
		return nil, invalid("channel %s is a voice channel, which holds no messages", rec.GetChannel().GetId())
	}
	ch := rec.GetChannel()
	if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
		if err := dmBlocked(d, c.ID, ch.GetMemberIds()); err != nil {
			return nil, err
		}
	}
	// The root goes out to every member of the channel: it must be one SendMessage would take
	// a reply to, checked by the same function so the two give the same answer.
	if root := req.GetThreadRootId(); root != "" {
		cutoff := e.readCutoff()
		err := e.db.View(func(r *store.Reader) error {
			_, err := threadRoot(r, cutoff, ch.GetId(), root)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if e.limits.allow("typing:"+c.ID+":"+ch.GetId(), rate.Every(typingEvery), 1) > 0 {
		return &svcv1.SetTypingResponse{}, nil
	}
	aud := toChannel(ch.GetId())
	aud.ExceptMemberIds = []string{c.ID}
	e.pub.publishEphemeral(&svcv1.Event{AtMs: e.now().UnixMilli(), Kind: &svcv1.Event_Typing{Typing: &svcv1.TypingEvent{
		ChannelId:    ch.GetId(),
		MemberId:     c.ID,
		ThreadRootId: req.GetThreadRootId(),
	}}}, aud)
	return &svcv1.SetTypingResponse{}, nil
}

// SetPresence sets the caller ONLINE or AWAY.
func (e *Engine) SetPresence(ctx context.Context, c Caller, req *svcv1.SetPresenceRequest) (*svcv1.SetPresenceResponse, error) {
	if _, err := e.snap.Load().caller(c); err != nil {
		return nil, err
	}
	switch req.GetPresence() {
	case svcv1.Presence_PRESENCE_ONLINE:
		e.presence.set(c.ID, false)
	case svcv1.Presence_PRESENCE_AWAY:
		e.presence.set(c.ID, true)
	default:
		return nil, invalid("presence must be PRESENCE_ONLINE or PRESENCE_AWAY (OFFLINE follows from closing every stream)")
	}
	return &svcv1.SetPresenceResponse{}, nil
}
