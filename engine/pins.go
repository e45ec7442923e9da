package engine

import (
	"context"

	"google.golang.org/protobuf/proto"

	"hearth/engine/search"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// Pins (EXTENSIONS.md 2). A pin is the message's pinned_at_ms and pinned_by, plus a row of its
// channel's (store.PutPin) that ListPins reads without walking the channel, and the is:pinned
// term of the message index. Pinning and unpinning bump the message's seq and send
// message_updated, through the writer like every change; repeating one changes nothing.

// pinsMax bounds the pins of a channel.
const pinsMax = 50

// PinMessage pins a message.
func (e *Engine) PinMessage(ctx context.Context, c Caller, req *svcv1.PinMessageRequest) (*svcv1.PinMessageResponse, error) {
	m, err := e.setPinned(c, req.GetMessageId(), true)
	if err != nil {
		return nil, err
	}
	return &svcv1.PinMessageResponse{Message: m}, nil
}

// UnpinMessage unpins a message.
func (e *Engine) UnpinMessage(ctx context.Context, c Caller, req *svcv1.UnpinMessageRequest) (*svcv1.UnpinMessageResponse, error) {
	m, err := e.setPinned(c, req.GetMessageId(), false)
	if err != nil {
		return nil, err
	}
	return &svcv1.UnpinMessageResponse{Message: m}, nil
}

func (e *Engine) setPinned(c Caller, id string, pin bool) (*svcv1.Message, error) {
	what := "pinning messages"
	if !pin {
		what = "unpinning messages"
	}
	return submit(e, func(tx *Tx) (*svcv1.Message, error) {
		m, rec, err := e.visibleMessage(tx, c, id)
		if err != nil {
			return nil, err
		}
		d := tx.Snap()
		if rec.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
			// A pin puts something before the others, as a message does; taking one back does not.
			if pin {
				if err := dmWriteBlocked(d, c, rec); err != nil {
					return nil, err
				}
			}
		} else if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, what+" outside DMs"); err != nil {
			return nil, err
		}
		if err := checkNotTimedOut(d.active(c.ID).GetMember(), tx.Now()); err != nil {
			return nil, err
		}
		if m.GetDeleted() {
			return nil, notFound("message %s does not exist (it was deleted)", m.GetId())
		}
		if m.GetThreadRootId() != "" {
			return nil, invalid("message %s is a thread reply; only messages of the channel itself can be pinned", m.GetId())
		}
		if (m.GetPinnedAtMs() != 0) == pin {
			return m, fillReplies(tx.read(), m)
		}
		chID := m.GetChannelId()
		if pin {
			pins, err := tx.read().Pins(chID)
			if err != nil {
				return nil, err
			}
			if len(pins) >= pinsMax {
				return nil, newError(CodeResourceExhausted, "this channel has %d pinned messages; the limit is %d: unpin one first", len(pins), pinsMax)
			}
		}
		old := m
		m = proto.Clone(m).(*svcv1.Message)
		m.PinnedAtMs, m.PinnedBy = 0, ""
		if pin {
			m.PinnedAtMs, m.PinnedBy = tx.NowMs(), c.ID
		}
		// Pins are rare: the text is analyzed here, in the writer, for the is:pinned term.
		if err := tx.indexEdited(old, m, search.Analyze(m.GetText(), nil)); err != nil {
			return nil, err
		}
		if err := e.messageUpdated(tx, m); err != nil {
			return nil, err
		}
		action := svcv1.AuditAction_AUDIT_ACTION_MESSAGE_UNPINNED
		if pin {
			action = svcv1.AuditAction_AUDIT_ACTION_MESSAGE_PINNED
		}
		if err := appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, TargetMemberId: m.GetAuthorId(), ChannelId: chID, MessageId: m.GetId()}); err != nil {
			return nil, err
		}
		if pin {
			return m, tx.mutate().PutPin(chID, m.GetId(), m.GetSeq())
		}
		return m, tx.mutate().DeletePin(chID, m.GetId())
	})
}

// ListPins lists a channel's pinned messages, newest pin first.
func (e *Engine) ListPins(ctx context.Context, c Caller, req *svcv1.ListPinsRequest) (*svcv1.ListPinsResponse, error) {
	d := e.snap.Load()
	rec, err := d.visibleChannel(c, req.GetChannelId())
	if err != nil {
		return nil, err
	}
	cutoff := e.readCutoff()
	out := &svcv1.ListPinsResponse{}
	err = e.db.View(func(r *store.Reader) error {
		pins, err := r.Pins(rec.GetChannel().GetId())
		if err != nil {
			return err
		}
		for _, p := range pins {
			m, err := liveMessage(r, p.MessageID, cutoff)
			if isNotFound(err) {
				continue // past retention, not purged yet
			}
			if err != nil {
				return err
			}
			if !m.GetDeleted() && m.GetPinnedAtMs() != 0 {
				out.Messages = append(out.Messages, m)
			}
		}
		return fillReplies(r, out.Messages...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dropConversationRows deletes the rows that only a message's pin, <!here> and poll keep: the
// message is deleted or purged.
func (tx *Tx) dropConversationRows(m *svcv1.Message) error {
	b := tx.mutate()
	if m.GetPinnedAtMs() != 0 {
		if err := b.DeletePin(m.GetChannelId(), m.GetId()); err != nil {
			return err
		}
	}
	if hasHereRow(m) {
		if err := b.DeleteHere(m.GetChannelId(), m.GetCreatedSeq()); err != nil {
			return err
		}
	}
	if p := m.GetPoll(); p.GetClosesAtMs() != 0 && !p.GetClosed() {
		return b.DeletePollClose(p.GetClosesAtMs(), m.GetId())
	}
	return nil
}
