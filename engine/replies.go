package engine

import (
	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Replies (EXTENSIONS.md 1). A reply stores a MessageRef of the message it answers; the ref's
// text and deleted are refreshed from that message wherever the reply leaves the engine, so that
// they show the answered message as it is at that moment:
//   - responses and reads (ListMessages, Search, ListPins, a repeated client_id...) read the
//     answered messages of the page, one point read each (fillReplies);
//   - a live event is filled once, in the writer as it emits it (Tx.emitLogged), and shared by
//     every stream: no stream reads anything for it;
//   - a replayed event is filled as the replay reads it (refreshReplayed), as replays already
//     bring an edited or deleted message up to date.
// An edit or a delete of the answered message sends nothing for its replies: clients change the
// quotes they show themselves, and any later read shows the new state.

// replyTextMax is how much of the answered message's text a MessageRef carries, in characters.
const replyTextMax = 200

// replyTarget checks a send's reply_to_id: a message of the same channel, and for a thread
// reply one of the same thread (its root or a reply); nil when the send answers nothing.
func replyTarget(tx *Tx, req *svcv1.SendMessageRequest, channelID string) (*svcv1.Message, error) {
	id := req.GetReplyToId()
	if id == "" {
		return nil, nil
	}
	m, err := liveMessage(tx.read(), id, tx.cutoff())
	if isNotFound(err) || err == nil && m.GetDeleted() {
		return nil, notFound("reply_to_id %.64s is not a message (it does not exist or was deleted)", id)
	}
	if err != nil {
		return nil, err
	}
	if m.GetChannelId() != channelID {
		return nil, invalid("reply_to_id %.64s is a message of another channel; a reply answers a message of its own channel", id)
	}
	if root := req.GetThreadRootId(); root != "" && m.GetId() != root && m.GetThreadRootId() != root {
		return nil, invalid("reply_to_id %.64s is not in this thread; a thread reply answers its root or another reply of the thread", id)
	}
	return m, nil
}

// replyRef is the MessageRef of message id by author, as answered is now (nil: it is gone).
func replyRef(id, author string, answered *svcv1.Message) *svcv1.MessageRef {
	ref := &svcv1.MessageRef{Id: id, AuthorId: author}
	if answered == nil || answered.GetDeleted() {
		ref.Deleted = true
		return ref
	}
	ref.Text = cutRunes(answered.GetText(), replyTextMax)
	ref.ThreadRootId = answered.GetThreadRootId()
	return ref
}

// cutRunes cuts s to n characters.
func cutRunes(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// fillReplies refreshes the reply_to of each message that answers another from that message as
// stored now, reading each answered message once. The messages must be the caller's own (read
// for this answer, or not yet shared).
func fillReplies(r *store.Reader, ms ...*svcv1.Message) error {
	var read map[string]*svcv1.Message
	for _, m := range ms {
		ref := m.GetReplyTo()
		if ref == nil || m.GetDeleted() {
			continue
		}
		answered, ok := read[ref.GetId()]
		if !ok {
			var err error
			answered, err = r.Message(ref.GetId())
			if isNotFound(err) {
				answered = nil // purged: shown as deleted
			} else if err != nil {
				return err
			}
			if read == nil {
				read = map[string]*svcv1.Message{}
			}
			read[ref.GetId()] = answered
		}
		m.ReplyTo = replyRef(ref.GetId(), ref.GetAuthorId(), answered)
	}
	return nil
}

// fillEvent fills the reply_to of an event's message as the writer emits it: once, for every
// stream.
func (tx *Tx) fillEvent(ev *svcv1.Event) error {
	if m := eventMessage(ev); m != nil {
		return fillReplies(tx.read(), m)
	}
	return nil
}

// logCopy is the row the log keeps of an event: the event itself, except that the log leaves
// out a poll's voters, which a replay takes from the message as it is then (refreshReplayed),
// so that a poll voted on by many does not log its growing lists again with every vote.
func logCopy(le *storepb.LoggedEvent) *storepb.LoggedEvent {
	ev := le.GetEvent()
	m := eventMessage(ev)
	p := m.GetPoll()
	if !hasVoters(p) {
		return le
	}
	// The message is copied without its poll, and the poll without its voters: the copy costs
	// what the message does without them.
	m.Poll = nil
	c := proto.Clone(m).(*svcv1.Message)
	m.Poll = p
	c.Poll = &svcv1.Poll{Question: p.GetQuestion(), Multiple: p.GetMultiple(), ClosesAtMs: p.GetClosesAtMs(), Closed: p.GetClosed()}
	for _, o := range p.GetOptions() {
		c.Poll.Options = append(c.Poll.Options, &svcv1.PollOption{Id: o.GetId(), Text: o.GetText()})
	}
	out := &svcv1.Event{Seq: ev.GetSeq(), AtMs: ev.GetAtMs()}
	switch ev.GetKind().(type) {
	case *svcv1.Event_MessageCreated:
		out.Kind = &svcv1.Event_MessageCreated{MessageCreated: c}
	case *svcv1.Event_MessageUpdated:
		out.Kind = &svcv1.Event_MessageUpdated{MessageUpdated: c}
	default:
		out.Kind = &svcv1.Event_MessageDeleted{MessageDeleted: c}
	}
	return &storepb.LoggedEvent{Event: out, Audience: le.GetAudience(), Reaction: le.GetReaction()}
}

// refreshReplayed brings what replies and polls show in a replayed event's message (the
// replay's own copy) up to the message as stored now, cur.
func refreshReplayed(r *store.Reader, m, cur *svcv1.Message) error {
	if m.GetPoll() != nil && cur.GetPoll() != nil {
		m.Poll = cur.GetPoll()
	}
	return fillReplies(r, m)
}
