package engine

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
	"google.golang.org/protobuf/proto"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// People send at most 5 messages a second with a burst of 10 (API.md); bots at -bot-rate.
const (
	personRate  = rate.Limit(5)
	personBurst = 10
)

// clientIDTTL is how long a client_id makes SendMessage idempotent.
const clientIDTTL = 24 * time.Hour

// SendMessage posts a message or a thread reply.
func (e *Engine) SendMessage(ctx context.Context, c Caller, req *svcv1.SendMessageRequest) (*svcv1.SendMessageResponse, error) {
	// A poll needs no text (EXTENSIONS.md 4).
	if err := checkMessageText(req.GetText(), len(req.GetAttachmentIds()) > 0 || req.GetPoll() != nil); err != nil {
		return nil, err
	}
	if err := checkPollInput(req.GetPoll(), req.GetThreadRootId()); err != nil {
		return nil, err
	}
	if n := len(req.GetAttachmentIds()); n > attachmentsMax {
		return nil, invalid("attachment_ids has %d ids; the limit is %d", n, attachmentsMax)
	}
	if err := checkUploadIDs("attachment_ids", req.GetAttachmentIds()); err != nil {
		return nil, err
	}
	if err := checkBytes("client_id", req.GetClientId(), clientIDMax); err != nil {
		return nil, err
	}
	if err := e.sendAllowed(c); err != nil {
		return nil, err
	}
	if err := e.screenSend(ctx, c, req); err != nil {
		return nil, err
	}
	// Analyzed here, on the caller's goroutine, not in the writer.
	text := search.Analyze(req.GetText(), nil)
	return submit(e, func(tx *Tx) (*svcv1.SendMessageResponse, error) {
		m, err := e.send(tx, c, req, text)
		if err != nil {
			return nil, err
		}
		return &svcv1.SendMessageResponse{Message: m}, nil
	})
}

// sendAllowed applies the per-member send rate.
func (e *Engine) sendAllowed(c Caller) error {
	m := e.snap.Load().active(c.ID)
	if m == nil {
		return denied("you are not a member of this community")
	}
	every, burst := personRate, personBurst
	if m.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
		every, burst = rate.Limit(e.opts.BotRate), e.opts.BotBurst
	}
	if wait := e.limits.allow("send:"+c.ID, every, burst); wait > 0 {
		return rateLimited("sending messages", wait)
	}
	return nil
}

// send is SendMessage inside the writer.
func (e *Engine) send(tx *Tx, c Caller, req *svcv1.SendMessageRequest, text search.Doc) (*svcv1.Message, error) {
	d := tx.Snap()
	rec, err := d.visibleChannel(c, req.GetChannelId())
	if err != nil {
		return nil, err
	}
	if err := checkNotTimedOut(d.active(c.ID).GetMember(), tx.Now()); err != nil {
		return nil, err
	}
	if err := importLocked(rec); err != nil {
		return nil, err
	}
	if voiceChannel(rec) {
		return nil, invalid("channel %s is a voice channel, which holds no messages", rec.GetChannel().GetId())
	}
	ch := rec.GetChannel()
	if id := req.GetClientId(); id != "" {
		prev, err := tx.read().ClientID(c.ID, id)
		if err != nil {
			return nil, err
		}
		if prev != nil && tx.NowMs()-prev.GetCreatedAtMs() < clientIDTTL.Milliseconds() {
			m, err := liveMessage(tx.read(), prev.GetMessageId(), tx.cutoff())
			if err == nil {
				// The first message is returned only to a repeat of the same send: the caller
				// sees this channel, but may no longer see the one the client_id was used in.
				if m.GetChannelId() != ch.GetId() || m.GetThreadRootId() != req.GetThreadRootId() {
					return nil, precondition("client_id %q was used in the last 24 hours for a message elsewhere; use a new one", id)
				}
				return m, fillReplies(tx.read(), m)
			}
			if !isNotFound(err) {
				return nil, err
			}
		}
	}
	if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
		if err := dmBlocked(d, c.ID, ch.GetMemberIds()); err != nil {
			return nil, err
		}
	}
	var root *svcv1.Message
	if rootID := req.GetThreadRootId(); rootID != "" {
		if root, err = threadRoot(tx.read(), tx.cutoff(), ch.GetId(), rootID); err != nil {
			return nil, err
		}
	}
	// reply_to_id and poll (conversation.go), checked before the first write too.
	conv, err := checkConversation(tx, req, ch.GetId())
	if err != nil {
		return nil, err
	}
	// Checked before the first write, so that a refused upload leaves no trace.
	uploads, err := attachUploads(tx, c, req.GetAttachmentIds())
	if err != nil {
		return nil, err
	}
	if err := slowmode(tx, c, ch); err != nil {
		return nil, err
	}
	if err := e.unhideDM(tx, rec); err != nil {
		return nil, err
	}
	seq := tx.nextSeq()
	m := &svcv1.Message{
		Id:           uuid.Must(uuid.NewV7()).String(),
		ChannelId:    ch.GetId(),
		AuthorId:     c.ID,
		Text:         req.GetText(),
		CreatedAtMs:  tx.NowMs(),
		ThreadRootId: req.GetThreadRootId(),
		ClientId:     req.GetClientId(),
		Seq:          seq,
		CreatedSeq:   seq,
	}
	for _, u := range uploads {
		m.Attachments = append(m.Attachments, attachmentOf(u))
	}
	entry := &storepb.MessageEntry{
		MessageId:   m.Id,
		AuthorId:    c.ID,
		ThreadReply: root != nil,
		MentionIds:  mentions(d, m.Text),
		CreatedAtMs: m.CreatedAtMs,
	}
	if root != nil {
		entry.RootCreatedAtMs = root.GetCreatedAtMs()
	}
	if err := e.addConversation(tx, rec, conv, m, entry); err != nil {
		return nil, err
	}
	if err := tx.mutate().AddMessage(m, entry); err != nil {
		return nil, err
	}
	if err := tx.indexSent(m, text); err != nil {
		return nil, err
	}
	if err := tx.countSent(e, c.ID); err != nil {
		return nil, err
	}
	for _, u := range uploads {
		if err := tx.useUpload(u, storepb.UploadUse_UPLOAD_USE_MESSAGE, m.Id); err != nil {
			return nil, err
		}
	}
	if _, err := tx.emit(toChannel(ch.GetId()), &svcv1.Event{Kind: &svcv1.Event_MessageCreated{MessageCreated: m}}); err != nil {
		return nil, err
	}
	if root != nil {
		root = proto.Clone(root).(*svcv1.Message)
		root.ReplyCount++
		root.LastReplyAtMs = m.CreatedAtMs
		if err := e.messageUpdated(tx, root); err != nil {
			return nil, err
		}
	}
	if err := tx.mutate().PutReadState(c.ID, ch.GetId(), seq); err != nil {
		return nil, err
	}
	if m.ClientId != "" {
		rec := &storepb.ClientIDRecord{MessageId: m.Id, CreatedAtMs: m.CreatedAtMs}
		if err := tx.mutate().PutClientID(c.ID, m.ClientId, rec, clientIDTTL); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// threadRoot finds the root of a reply: a top-level, not deleted message of the channel (and
// not past retention). SendMessage and SetTyping both check a thread_root_id here, so a root
// one refuses the other refuses with the same code and words.
func threadRoot(r *store.Reader, cutoff int64, channelID, rootID string) (*svcv1.Message, error) {
	root, err := liveMessage(r, rootID, cutoff)
	if isNotFound(err) || (err == nil && root.GetChannelId() != channelID) {
		return nil, notFound("thread_root_id %.64s is not a message of this channel", rootID)
	}
	if err != nil {
		return nil, err
	}
	if root.GetThreadRootId() != "" {
		return nil, invalid("thread_root_id %.64s is itself a reply; reply to its root %.64s", rootID, root.GetThreadRootId())
	}
	if root.GetDeleted() {
		return nil, precondition("thread_root_id %.64s was deleted", rootID)
	}
	return root, nil
}

// dmBlocked refuses a DM action when the caller and another member blocked each other.
func dmBlocked(d *Snapshot, caller string, members []string) error {
	for _, other := range members {
		if other != caller && (d.Blocked(caller, other) || d.Blocked(other, caller)) {
			return denied("you and a member of this DM have blocked each other")
		}
	}
	return nil
}

// dmWriteBlocked refuses an edit or a reaction in a DM where the caller and another member
// blocked each other: like a message (and typing), each puts something new before the others,
// which a block stops. Deleting one's own message, or taking back one's own reaction, is no
// such thing and stays allowed.
func dmWriteBlocked(d *Snapshot, c Caller, rec *storepb.ChannelRecord) error {
	if ch := rec.GetChannel(); ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
		return dmBlocked(d, c.ID, ch.GetMemberIds())
	}
	return nil
}

// mentions lists the members a text mentions, once each.
func mentions(d *Snapshot, text string) []string {
	var out []string
	for _, id := range mentionedIDs(text) {
		if d.Member(id) != nil {
			out = append(out, id)
		}
	}
	return out
}

// mentionedIDs scans a text for `<@member_id>` mentions and returns their ids, in lower case,
// once each, in order.
func mentionedIDs(text string) []string { return search.MentionIDs(text) }

func checkMessageText(text string, hasAttachments bool) error {
	if err := checkLen("text", text, messageTextMax); err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" && !hasAttachments {
		return invalid("text must not be empty (or send an attachment)")
	}
	return nil
}

// messageUpdated bumps a message's seq to the event that changes it, stores it and emits
// message_updated.
func (e *Engine) messageUpdated(tx *Tx, m *svcv1.Message) error {
	return e.reactionUpdated(tx, m, nil)
}

// reactionUpdated is messageUpdated for a change of reactions, logged with the change.
func (e *Engine) reactionUpdated(tx *Tx, m *svcv1.Message, change *storepb.ReactionChange) error {
	m.Seq = tx.nextSeq()
	if err := tx.mutate().PutMessage(m); err != nil {
		return err
	}
	_, err := tx.emitLogged(&storepb.LoggedEvent{
		Event:    &svcv1.Event{Kind: &svcv1.Event_MessageUpdated{MessageUpdated: m}},
		Audience: toChannel(m.GetChannelId()),
		Reaction: change,
	})
	return err
}

// visibleMessage finds a message in a channel the caller can see; one past retention does not
// exist any more.
func (e *Engine) visibleMessage(tx *Tx, c Caller, id string) (*svcv1.Message, *storepb.ChannelRecord, error) {
	if id == "" {
		return nil, nil, invalid("message_id is required")
	}
	m, err := liveMessage(tx.read(), id, tx.cutoff())
	if isNotFound(err) {
		return nil, nil, notFound("message %s does not exist", id)
	}
	if err != nil {
		return nil, nil, err
	}
	d := tx.Snap()
	if _, err := d.caller(c); err != nil {
		return nil, nil, err
	}
	rec := d.Channel(m.GetChannelId())
	if !d.sees(c.ID, rec) {
		return nil, nil, denied("you cannot see this message")
	}
	return m, rec, nil
}

// EditMessage changes the text of the caller's own message.
func (e *Engine) EditMessage(ctx context.Context, c Caller, req *svcv1.EditMessageRequest) (*svcv1.EditMessageResponse, error) {
	if err := checkLen("text", req.GetText(), messageTextMax); err != nil {
		return nil, err
	}
	if err := e.screenEdit(ctx, c, req); err != nil {
		return nil, err
	}
	text := search.Analyze(req.GetText(), nil)
	return submit(e, func(tx *Tx) (*svcv1.EditMessageResponse, error) {
		m, rec, err := e.visibleMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		if m.GetAuthorId() != c.ID {
			return nil, denied("only the author can edit a message")
		}
		if err := checkNotTimedOut(tx.Snap().active(c.ID).GetMember(), tx.Now()); err != nil {
			return nil, err
		}
		if err := dmWriteBlocked(tx.Snap(), c, rec); err != nil {
			return nil, err
		}
		if m.GetDeleted() {
			return nil, precondition("message %s was deleted", m.GetId())
		}
		if err := checkMessageText(req.GetText(), len(m.GetAttachments()) > 0 || m.GetPoll() != nil); err != nil {
			return nil, err
		}
		old := m
		m = proto.Clone(m).(*svcv1.Message)
		m.Text = req.GetText()
		m.EditedAtMs = tx.NowMs()
		// Group mentions follow the text (groupmentions.go).
		setGroupMentions(tx.Snap(), rec, m)
		if err := tx.indexEdited(old, m, text); err != nil {
			return nil, err
		}
		entry, err := tx.read().Entry(m.GetChannelId(), m.GetCreatedSeq())
		if err != nil {
			return nil, err
		}
		entry.MentionIds = mentions(tx.Snap(), m.Text)
		if err := e.storeGroupMentions(tx, rec, m, entry, hasHereRow(old)); err != nil {
			return nil, err
		}
		if err := tx.mutate().PutEntry(m.GetChannelId(), m.GetCreatedSeq(), entry); err != nil {
			return nil, err
		}
		if err := e.messageUpdated(tx, m); err != nil {
			return nil, err
		}
		return &svcv1.EditMessageResponse{Message: m}, nil
	})
}

// DeleteMessage deletes a message: the author, or a moderator or higher who sees the channel and
// outranks the author.
func (e *Engine) DeleteMessage(ctx context.Context, c Caller, req *svcv1.DeleteMessageRequest) (*svcv1.DeleteMessageResponse, error) {
	return submit(e, func(tx *Tx) (*svcv1.DeleteMessageResponse, error) {
		m, _, err := e.visibleMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		if author := m.GetAuthorId(); author != c.ID {
			d := tx.Snap()
			if d.rank(c.ID) < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
				return nil, denied("only the author or a moderator can delete a message")
			}
			// Nobody acts on a member of equal or higher rank; an author who left has none.
			if d.rank(author) >= d.rank(c.ID) {
				return nil, denied("you can delete only the messages of members you outrank")
			}
		}
		if m.GetDeleted() {
			return &svcv1.DeleteMessageResponse{}, nil
		}
		// Its files go with it: deleted after the commit.
		if err := tx.releaseFiles(m); err != nil {
			return nil, err
		}
		if err := tx.unindex(m); err != nil {
			return nil, err
		}
		// Its pin, its <!here> and its poll's closing time go with it (pins.go).
		if err := tx.dropConversationRows(m); err != nil {
			return nil, err
		}
		m = proto.Clone(m).(*svcv1.Message)
		blankDeleted(m)
		m.Seq = tx.nextSeq()
		entry, err := tx.read().Entry(m.GetChannelId(), m.GetCreatedSeq())
		if err != nil {
			return nil, err
		}
		entry.DeletedSeq = m.Seq
		entry.MentionIds = nil
		if err := tx.mutate().PutEntry(m.GetChannelId(), m.GetCreatedSeq(), entry); err != nil {
			return nil, err
		}
		if err := tx.mutate().PutMessage(m); err != nil {
			return nil, err
		}
		if _, err := tx.emit(toChannel(m.GetChannelId()), &svcv1.Event{Kind: &svcv1.Event_MessageDeleted{MessageDeleted: m}}); err != nil {
			return nil, err
		}
		if author := m.GetAuthorId(); author != c.ID {
			err := appendAudit(tx, &svcv1.AuditEntry{
				ActorId:        c.ID,
				Action:         svcv1.AuditAction_AUDIT_ACTION_MESSAGE_DELETED,
				TargetMemberId: author,
				ChannelId:      m.GetChannelId(),
				MessageId:      m.GetId(),
			})
			if err != nil {
				return nil, err
			}
		}
		return &svcv1.DeleteMessageResponse{}, nil
	})
}

var shortcodePattern = regexp.MustCompile(`^:[a-z0-9_\-]{1,62}:$`)

// checkEmoji accepts a `:shortcode:` or one unicode emoji (a short run without spaces, letters
// or digits).
func checkEmoji(s string) error {
	if strings.HasPrefix(s, ":") {
		if !shortcodePattern.MatchString(s) {
			return invalid("emoji %q: a shortcode is :name: with 1 to %d of a-z, 0-9, hyphen and underscore", s, shortcodeMax)
		}
		return nil
	}
	if s == "" {
		return invalid("emoji is required")
	}
	if err := checkBytes("emoji", s, emojiBytesMax); err != nil {
		return err
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsLetter(r) || unicode.IsDigit(r) || refusedInName(r) != "" || r == '<' || r == '>' {
			return invalid("emoji %q is neither a unicode emoji nor a :shortcode:", s)
		}
	}
	return nil
}

// React adds or removes the caller's reaction.
func (e *Engine) React(ctx context.Context, c Caller, req *svcv1.ReactRequest) (*svcv1.ReactResponse, error) {
	if err := checkEmoji(req.GetEmoji()); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.ReactResponse, error) {
		m, rec, err := e.visibleMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		// Taking one's own reaction back puts nothing new before anyone: a block, or a timeout,
		// allows it.
		if !req.GetRemove() {
			if err := checkNotTimedOut(tx.Snap().active(c.ID).GetMember(), tx.Now()); err != nil {
				return nil, err
			}
			if err := dmWriteBlocked(tx.Snap(), c, rec); err != nil {
				return nil, err
			}
		}
		if m.GetDeleted() {
			return nil, precondition("message %s was deleted", m.GetId())
		}
		next, changed, err := react(m, c.ID, req.GetEmoji(), req.GetRemove())
		if err != nil {
			return nil, err
		}
		if changed {
			change := &storepb.ReactionChange{MemberId: c.ID, Emoji: req.GetEmoji(), Removed: req.GetRemove()}
			if err := e.reactionUpdated(tx, next, change); err != nil {
				return nil, err
			}
		} else if err := fillReplies(tx.read(), next); err != nil {
			return nil, err
		}
		return &svcv1.ReactResponse{Message: next}, nil
	})
}

// react returns the message with the member's reaction added or removed, and whether that
// changed anything.
func react(m *svcv1.Message, member, emoji string, remove bool) (*svcv1.Message, bool, error) {
	i := slices.IndexFunc(m.GetReactions(), func(r *svcv1.Reaction) bool { return r.GetEmoji() == emoji })
	has := i >= 0 && slices.Contains(m.GetReactions()[i].GetMemberIds(), member)
	if remove == !has {
		return m, false, nil
	}
	if !remove && i < 0 && len(m.GetReactions()) >= reactionsMax {
		return nil, false, invalid("message %s already has %d different emoji reactions; the limit is %d", m.GetId(), reactionsMax, reactionsMax)
	}
	m = proto.Clone(m).(*svcv1.Message)
	switch {
	case remove:
		r := m.Reactions[i]
		r.MemberIds = slices.DeleteFunc(r.MemberIds, func(id string) bool { return id == member })
		if len(r.MemberIds) == 0 {
			m.Reactions = slices.Delete(m.Reactions, i, i+1)
		}
	case i >= 0:
		m.Reactions[i].MemberIds = append(m.Reactions[i].MemberIds, member)
	default:
		m.Reactions = append(m.Reactions, &svcv1.Reaction{Emoji: emoji, MemberIds: []string{member}})
	}
	return m, true, nil
}
