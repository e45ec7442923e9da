package engine

import (
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// What SendMessage adds for replies, group mentions and polls (EXTENSIONS.md 1, 3, 4): checked
// before the change writes anything (checkConversation), then set on the new message and its
// channel log entry, with the rows they need, before the message is stored (addConversation).

// conversation is what a send's reply_to_id and poll came to.
type conversation struct {
	answered *svcv1.Message
	poll     *svcv1.Poll
}

// checkConversation checks a send's reply_to_id and poll against the community as the writer
// sees it.
func checkConversation(tx *Tx, sender string, req *svcv1.SendMessageRequest, channelID string) (conversation, error) {
	answered, err := replyTarget(tx, sender, req, channelID)
	if err != nil {
		return conversation{}, err
	}
	poll, err := newPoll(req.GetPoll(), tx.NowMs())
	if err != nil {
		return conversation{}, err
	}
	return conversation{answered: answered, poll: poll}, nil
}

// addConversation sets a new message's reply_to, poll and group mentions, and its entry's
// mentions, and writes the rows of its <!here> and of its poll's closing time.
func (e *Engine) addConversation(tx *Tx, rec *storepb.ChannelRecord, cv conversation, m *svcv1.Message, entry *storepb.MessageEntry) error {
	if a := cv.answered; a != nil {
		m.ReplyTo = replyRef(a.GetId(), a.GetAuthorId(), a)
		if a.GetAuthorId() != m.GetAuthorId() {
			entry.ReplyToAuthorId = a.GetAuthorId()
		}
	}
	m.Poll = cv.poll
	setGroupMentions(tx.Snap(), rec, m)
	if err := e.storeGroupMentions(tx, rec, m, entry, false); err != nil {
		return err
	}
	if at := m.GetPoll().GetClosesAtMs(); at != 0 {
		if err := tx.mutate().PutPollClose(at, m.GetId()); err != nil {
			return err
		}
		tx.afterCommit(func() { e.schedulePollClose(at) })
	}
	return nil
}
