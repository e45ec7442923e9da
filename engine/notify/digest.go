package notify

import (
	"context"
	"time"

	"hearth/engine"
	"hearth/engine/clock"
	svcv1 "hearth/proto/svc/v1"
)

// Email digests (EXTENSIONS.md 7, Email). The follower notes each message that mentioned a
// member or reached them in a DM, when the member's preferences of that moment let it through
// and ask for email; a collector checks that the member has a verified address and has the
// engine keep the message (engine.DigestQueue: rows that survive restarts); a deliverer looks
// for due digests every minute and mails each member, at most once an hour, what is still
// unread 15 minutes after it was sent, in channels they are still in. The email is made in
// digestmail.go.

// Digest defaults.
const (
	digestWait  = 15 * time.Minute
	digestEvery = time.Hour
	digestMax   = 200
	digestTick  = time.Minute
	// digestRetry is the wait after a try the mail server did not take; digestTries the tries
	// before the digest's messages are given up.
	digestRetry = 10 * time.Minute
	digestTries = 3
	// digestNotesMax bounds the notes waiting for the collector; digestBatch how many it has
	// kept in one change; digestRound how many members' digests the deliverer lists at once,
	// digestRounds how many lists it goes through per look (the rest wait for the next).
	digestNotesMax = 4096
	digestBatch    = 256
	digestRound    = 100
	digestRounds   = 10
)

// digests is the notifier's email digests.
type digests struct {
	s     *Service
	q     *engine.DigestQueue
	notes chan engine.DigestNote
	kick  chan struct{}
}

// startDigests starts the collector and the deliverer.
func (s *Service) startDigests() {
	p := s.opts.Digest
	if p.Wait <= 0 {
		p.Wait = digestWait
	}
	if p.Every <= 0 {
		p.Every = digestEvery
	}
	if p.Max <= 0 {
		p.Max = digestMax
	}
	g := &digests{
		s:     s,
		q:     s.eng.Digests(p),
		notes: make(chan engine.DigestNote, digestNotesMax),
		kick:  make(chan struct{}, 1),
	}
	s.digests = g
	tick := s.opts.DigestTick
	if tick <= 0 {
		tick = digestTick
	}
	t := s.clock.NewTicker(tick)
	s.wg.Add(2)
	go g.collect()
	go g.deliver(t)
	// Digests that came due while the server was stopped go now.
	g.wake()
}

// note hands a message for a member's digest to the collector, without waiting: the follower
// must not. A note that does not fit is logged and lost (the push, if any, went).
func (g *digests) note(r engine.NoticeRecipient, m *svcv1.Message) {
	if r.Reason != engine.NoticeMention && r.Reason != engine.NoticeDM {
		return
	}
	n := engine.DigestNote{
		MemberID:  r.MemberID,
		ChannelID: m.GetChannelId(),
		MessageID: m.GetId(),
		Seq:       m.GetCreatedSeq(),
		AtMs:      m.GetCreatedAtMs(),
		Reason:    r.Reason,
	}
	select {
	case g.notes <- n:
	default:
		g.s.log.Warn("email digest: a message was left out, the collector is behind", "queue", cap(g.notes))
	}
}

// collect keeps the noted messages of members with a verified address, the notes waiting
// together in one change.
func (g *digests) collect() {
	defer g.s.wg.Done()
	for {
		var batch []engine.DigestNote
		select {
		case <-g.s.ctx.Done():
			return
		case n := <-g.notes:
			batch = append(batch, n)
		}
	more:
		for len(batch) < digestBatch {
			select {
			case n := <-g.notes:
				batch = append(batch, n)
			default:
				break more
			}
		}
		addressed := map[string]bool{}
		keep := batch[:0]
		for _, n := range batch {
			has, seen := addressed[n.MemberID]
			if !seen {
				has = g.hasAddress(n.MemberID)
				addressed[n.MemberID] = has
			}
			if has {
				keep = append(keep, n)
			}
		}
		if len(keep) == 0 {
			continue
		}
		if err := g.q.Add(keep); err != nil && g.s.ctx.Err() == nil {
			g.s.log.Error("email digest: keeping messages", "err", err)
		}
	}
}

// hasAddress reports whether a member has a verified email address.
func (g *digests) hasAddress(memberID string) bool {
	_, addr, err := g.s.DigestAddress(g.s.ctx, memberID)
	if err != nil {
		g.s.log.Warn("email digest: reading a member's address", "err", err)
	}
	return addr != ""
}

// DigestAddress tells whether the server mails digests and, when it does, where a member's go:
// their verified address ("" when they have none).
func (s *Service) DigestAddress(ctx context.Context, memberID string) (enabled bool, address string, err error) {
	if s.digests == nil {
		return false, "", nil
	}
	l, ok := s.eng.LoginOf(memberID)
	if !ok {
		return true, "", nil
	}
	address, err = s.opts.Address(ctx, l.Issuer, l.Subject)
	return true, address, err
}

// wake has the deliverer look for due digests now.
func (g *digests) wake() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// deliver looks for due digests at every tick and mails them, one after the other.
func (g *digests) deliver(t clock.Ticker) {
	defer g.s.wg.Done()
	defer t.Stop()
	for {
		select {
		case <-g.s.ctx.Done():
			return
		case <-t.C():
		case <-g.kick:
		}
		for range digestRounds {
			now := g.s.clock.Now()
			due, err := g.q.Due(now, digestRound)
			if err != nil {
				if g.s.ctx.Err() == nil {
					g.s.log.Error("email digest: listing the due digests", "err", err)
				}
				break
			}
			for _, id := range due {
				if g.s.ctx.Err() != nil {
					return
				}
				g.send(id, now)
			}
			if len(due) < digestRound {
				break
			}
		}
	}
}

// send mails a member's digest if it is due and anything in it is still worth mailing under
// their preferences of now, to their verified address of now.
func (g *digests) send(memberID string, now time.Time) {
	s := g.s
	dg, err := g.q.Take(memberID, now)
	if err != nil || dg == nil {
		if err != nil {
			s.log.Error("email digest: reading a digest", "err", err)
		}
		return
	}
	p, err := s.eng.NotificationPrefsOf(memberID)
	if err != nil {
		s.log.Error("email digest: reading preferences", "err", err)
		return
	}
	var entries []engine.DigestEntry
	if p.GetEmail() {
		for _, en := range dg.Entries {
			if wants(engine.ChoiceFor(p, en.ChannelID, now.UnixMilli()), en.Reason) {
				entries = append(entries, en)
			}
		}
	}
	to := ""
	if len(entries) > 0 {
		if to, err = s.opts.Address(s.ctx, dg.Login.Issuer, dg.Login.Subject); err != nil {
			g.failed(dg, now, err)
			return
		}
	}
	if to == "" {
		g.done(dg, time.Time{})
		return
	}
	msg := g.mail(to, dg, entries, p.GetHideContent())
	if err := s.opts.Mailer.Send(s.ctx, msg); err != nil {
		if s.ctx.Err() != nil {
			return
		}
		s.digestEmail("failed")
		g.failed(dg, now, err)
		return
	}
	s.digestEmail("sent")
	g.done(dg, now)
}

func (g *digests) done(dg *engine.Digest, sentAt time.Time) {
	if err := g.q.Done(dg, sentAt); err != nil && g.s.ctx.Err() == nil {
		g.s.log.Error("email digest: recording a digest", "err", err)
	}
}

// failed tries a digest again later, or gives it up after digestTries tries.
func (g *digests) failed(dg *engine.Digest, now time.Time, cause error) {
	if int(dg.Failures)+1 >= digestTries {
		g.s.log.Warn("email digest given up", "tries", digestTries, "err", cause)
		g.done(dg, time.Time{})
		return
	}
	g.s.log.Warn("email digest not sent; trying again later", "in", digestRetry, "err", cause)
	if err := g.q.Retry(dg, now.Add(digestRetry)); err != nil && g.s.ctx.Err() == nil {
		g.s.log.Error("email digest: recording a failure", "err", err)
	}
}

// DigestPending is how many messages wait in a member's email digest (0 without digests).
func (s *Service) DigestPending(memberID string) (int, error) {
	if s.digests == nil {
		return 0, nil
	}
	return s.digests.q.Pending(memberID)
}
