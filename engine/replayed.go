package engine

import (
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// Replayed message events show a message as it is now where its text changed since. The log
// keeps each event as it was sent, but a message that was deleted has no text any more
// (DECISIONS.md) and an edited one only its new text: ListMessages and Search never show the
// old, and neither may a replay, which a member can ask for from any seq the log keeps, also
// one from before they came into the channel. Every event is still replayed, so that a
// client's threads and counts come out the same; only its copy of the message is brought up to
// date. Live events go out as they happen and are not looked at again.

// eventMessage is the message an event carries, if it is a message event.
func eventMessage(ev *svcv1.Event) *svcv1.Message {
	if m := ev.GetMessageCreated(); m != nil {
		return m
	}
	if m := ev.GetMessageUpdated(); m != nil {
		return m
	}
	return ev.GetMessageDeleted()
}

// redactReplayed changes, in place, the message of a replayed event (read from the log, so the
// replay's own copy) to what the message says now: emptied if it was deleted since, its current
// text if it was edited since. A message no longer stored is left as is (replay drops those
// past retention before this).
func redactReplayed(r *store.Reader, ev *svcv1.Event) error {
	m := eventMessage(ev)
	if m == nil {
		return nil
	}
	cur, err := r.Message(m.GetId())
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := refreshReplayed(r, m, cur); err != nil {
		return err
	}
	if cur.GetSeq() == m.GetSeq() {
		return nil // not changed since this event: the common case
	}
	switch {
	case cur.GetDeleted():
		blankDeleted(m)
	case cur.GetEditedAtMs() != m.GetEditedAtMs():
		m.Text = cur.GetText()
		m.EditedAtMs = cur.GetEditedAtMs()
	}
	return nil
}

// blankDeleted makes m a deleted message as everyone sees one: no text, files or reactions.
func blankDeleted(m *svcv1.Message) {
	m.Deleted = true
	m.Text = ""
	m.Attachments = nil
	m.Reactions = nil
	m.ReplyTo, m.Poll, m.PinnedAtMs, m.PinnedBy, m.MentionsHere, m.MentionsEveryone = nil, nil, 0, "", false, false
}
