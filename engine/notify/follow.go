package notify

import (
	"errors"
	"time"

	"github.com/SherClockHolmes/webpush-go"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// prefsEntry is a member's preferences as the follower knows them.
type prefsEntry = *svcv1.NotificationPrefs

// startFollowing reads everyone's preferences and starts a follower right after them.
func (s *Service) startFollowing() (*engine.Follower, error) {
	prefs, seq, err := s.eng.AllNotificationPrefs()
	if err != nil {
		return nil, err
	}
	f, err := s.eng.Follow(engine.FollowOptions{AfterSeq: seq, LoggedOnly: true})
	if err != nil {
		return nil, err
	}
	s.prefs = prefs
	return f, nil
}

// follow hands every event of the log to handle until Close. A follower that fell too far
// behind starts again from now: what it skipped is not pushed (it is late news by then).
func (s *Service) follow(f *engine.Follower) {
	defer s.wg.Done()
	for {
		err := f.Run(s.ctx, func(ds []engine.Delivery) error {
			for _, d := range ds {
				s.handle(d)
			}
			return nil
		})
		f.Close()
		if s.ctx.Err() != nil || errors.Is(err, engine.ErrClosed) {
			return
		}
		s.log.Warn("notifications fell behind the event log; going on from now", "err", err)
		for {
			if f, err = s.startFollowing(); err == nil {
				break
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// handle takes one event: preferences are remembered, a new message or report is pushed to
// whom it should reach.
func (s *Service) handle(d engine.Delivery) {
	ev := d.Event()
	if p := ev.GetNotificationPrefs(); p != nil {
		if ids := d.Audience.GetMemberIds(); len(ids) == 1 {
			s.prefs[ids[0]] = p
		}
		return
	}
	if r := s.eng.ReportNotices(d); r != nil {
		s.pushReport(*r)
		return
	}
	if ev.GetMessageCreated() == nil {
		return
	}
	n, err := s.eng.MessageNotices(d, s.reachable)
	if err != nil {
		s.log.Error("deciding whom a message notifies", "err", err)
		return
	}
	if n == nil {
		return
	}
	queued := s.clock.Now()
	m := n.Message
	for _, r := range n.Recipients {
		p := s.prefs[r.MemberID]
		if p == nil {
			p = engine.DefaultNotificationPrefs()
		}
		if !wants(engine.ChoiceFor(p, m.GetChannelId(), ev.GetAtMs()), r.Reason) {
			continue
		}
		if s.digests != nil && p.GetEmail() {
			s.digests.note(r, m)
		}
		if !s.eng.Away(r.MemberID) {
			continue
		}
		pl := payload{
			Type:         "message",
			ChannelID:    m.GetChannelId(),
			MessageID:    m.GetId(),
			ThreadRootID: m.GetThreadRootId(),
			Title:        r.Title,
			Body:         n.Body,
			URL:          s.messageURL(m.GetChannelId(), m.GetId(), m.GetThreadRootId()),
			Tag:          m.GetChannelId(),
		}
		if p.GetHideContent() {
			pl.Body = "New message"
		}
		urgency := webpush.UrgencyNormal
		if r.Reason >= engine.NoticeMention {
			urgency = webpush.UrgencyHigh
		}
		s.pushTo(r.MemberID, pl, urgency, Topic(m.GetChannelId()), queued)
	}
}

// reachable reports whether a message could notify a member now: a push only reaches a member
// with no tab open (Engine.Away), an email digest one who turned emails on.
func (s *Service) reachable(id string) bool {
	if s.eng.Away(id) {
		return true
	}
	p := s.prefs[id]
	return s.digests != nil && p != nil && p.GetEmail()
}

// wants reports whether a member's choice for a channel lets a message through for a reason:
// nothing while muted or at level NONE, only what concerns them at level MENTIONS.
func wants(c engine.NotifyChoice, why engine.NoticeReason) bool {
	switch {
	case c.Muted:
		return false
	case c.Level == svcv1.NotifyLevel_NOTIFY_LEVEL_ALL:
		return true
	case c.Level == svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS:
		return why != engine.NoticeChannel
	}
	return false
}

// pushReport pushes a report filed to the moderators it may notify who are away and did not
// choose level NONE.
func (s *Service) pushReport(r engine.ReportFiled) {
	queued := s.clock.Now()
	m := r.Message
	for _, id := range r.Recipients {
		p, err := s.eng.NotificationPrefsOf(id)
		if err != nil {
			s.log.Error("reading notification preferences", "err", err)
			return
		}
		if p.GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_NONE || !s.eng.Away(id) {
			continue
		}
		pl := payload{
			Type:         "report",
			ReportID:     r.ReportID,
			ChannelID:    m.GetChannelId(),
			MessageID:    m.GetId(),
			ThreadRootID: m.GetThreadRootId(),
			Title:        "New report",
			Body:         r.Body,
			URL:          s.webURL + "/#/reports",
			Tag:          "reports",
		}
		if p.GetHideContent() {
			pl.Body = "A message was reported"
		}
		s.pushTo(id, pl, webpush.UrgencyNormal, Topic("reports"), queued)
	}
}

// pushTo queues a push of pl to each of a member's subscriptions.
func (s *Service) pushTo(memberID string, pl payload, urgency webpush.Urgency, topic string, queued time.Time) {
	subs, err := s.eng.PushSubscriptionsOf(memberID)
	if err != nil {
		s.log.Error("reading push subscriptions", "err", err)
		return
	}
	if len(subs) == 0 {
		return
	}
	body, err := pl.encode()
	if err != nil {
		s.log.Error("encoding a push", "err", err)
		return
	}
	for _, sub := range subs {
		s.enqueue(&job{sub: sub, body: body, urgency: urgency, topic: topic, first: queued})
	}
}
