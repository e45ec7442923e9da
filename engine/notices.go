package engine

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Who a new message or report may notify (EXTENSIONS.md 7), decided here, where the rules of
// visibility, blocks, mutes and mentions live; the notifier (engine/notify) follows the log,
// asks MessageNotices of every message_created, and applies each member's preferences and
// presence on top.

// NoticeReason is why a message reaches a member. The order matters: a member gets the
// strongest reason that holds.
type NoticeReason int

const (
	// NoticeChannel: any message of a channel, for members whose level there is ALL.
	NoticeChannel NoticeReason = iota + 1
	// NoticeThread: a reply in a thread the member started or replied in.
	NoticeThread
	// NoticeMention: the message counts as a mention of the member (countsAsMention: <@id>,
	// and whatever else the mention count counts).
	NoticeMention
	// NoticeDM: a message in one of the member's DMs.
	NoticeDM
)

// noticeBodyMax is the length of a notification's body, in characters.
const noticeBodyMax = 200

// threadScanMax bounds the replies read to find who took part in a thread: the newest ones.
const threadScanMax = 1000

// MessageNotice is a new message as notifications show it, and the members it may notify.
type MessageNotice struct {
	Message *svcv1.Message
	// Body is "Author: text", mentions shown as @name, cut to 200 characters.
	Body       string
	Recipients []NoticeRecipient
}

// NoticeRecipient is one member a message may notify.
type NoticeRecipient struct {
	MemberID string
	Reason   NoticeReason
	// Title is the channel (#general) or, for a DM, the other members' names.
	Title string
}

// MessageNotices decides whom the message of a message_created delivery may notify: every
// member who received the event (so: who could see the channel when it was sent), but its
// author, those who blocked or muted the author, and bots, each with the strongest reason it
// reaches them. A message deleted since, or gone with retention, notifies nobody; any other
// delivery gives nil. reachable, when set, says whether a member could be notified at all now
// (no tab open, or emails on): the others are passed over before anything is read for them,
// so that a busy channel whose members all have a tab open costs the notifier one look each.
func (e *Engine) MessageNotices(d Delivery, reachable func(memberID string) bool) (*MessageNotice, error) {
	m := d.Event().GetMessageCreated()
	snap := d.Snapshot
	if m == nil || snap == nil {
		return nil, nil
	}
	rec := snap.Channel(m.GetChannelId())
	if rec == nil {
		return nil, nil
	}
	var entry *storepb.MessageEntry
	participants := map[string]bool{}
	err := e.db.View(func(r *store.Reader) error {
		var err error
		if entry, err = r.Entry(m.GetChannelId(), m.GetCreatedSeq()); err != nil {
			return err
		}
		if root := m.GetThreadRootId(); root != "" {
			return threadParticipants(r, m.GetChannelId(), root, participants)
		}
		return nil
	})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if entry.GetDeletedSeq() != 0 || entry.GetMessageId() != m.GetId() {
		return nil, nil
	}
	ch := rec.GetChannel()
	dm := ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM
	out := &MessageNotice{Message: m, Body: noticeBody(snap, m)}
	consider := func(r *store.Reader, id string, mem *storepb.MemberRecord) error {
		if mem == nil || id == m.GetAuthorId() || mem.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT || (reachable != nil && !reachable(id)) {
			return nil
		}
		if !snap.receivesAs(id, mem, d.Audience, rec) || !counts(snap, id, entry, m.GetSeq()) {
			return nil
		}
		mentioned, err := countsAsMention(r, ch.GetId(), m.GetCreatedSeq(), id, entry, dm)
		if err != nil {
			return err
		}
		rc := NoticeRecipient{MemberID: id, Reason: NoticeChannel, Title: "#" + ch.GetName()}
		switch {
		case dm:
			rc.Reason, rc.Title = NoticeDM, dmTitle(snap, ch, id)
		case mentioned:
			rc.Reason = NoticeMention
		case participants[id]:
			rc.Reason = NoticeThread
		}
		out.Recipients = append(out.Recipients, rc)
		return nil
	}
	err = e.db.View(func(r *store.Reader) error {
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			for id := range snap.members {
				if err := consider(r, id, snap.active(id)); err != nil {
					return err
				}
			}
			return nil
		}
		for _, id := range ch.GetMemberIds() {
			if err := consider(r, id, snap.active(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// threadParticipants adds to into the root's author and the authors of the thread's newest
// replies.
func threadParticipants(r *store.Reader, channelID, rootID string, into map[string]bool) error {
	root, err := r.Message(rootID)
	if err != nil {
		return err
	}
	into[root.GetAuthorId()] = true
	n := 0
	var seqs []int64
	err = r.Walk(store.Thread(rootID), math.MaxInt64, true, func(seq int64, _ string) bool {
		seqs = append(seqs, seq)
		n++
		return n < threadScanMax
	})
	if err != nil {
		return err
	}
	for _, seq := range seqs {
		en, err := r.Entry(channelID, seq)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		into[en.GetAuthorId()] = true
	}
	return nil
}

// noticeName is how a member is named to others: their display name, else their username.
func noticeName(d *Snapshot, id string) string {
	m := d.Member(id).GetMember()
	if m == nil {
		return "Someone"
	}
	if n := m.GetDisplayName(); n != "" {
		return n
	}
	return m.GetUsername()
}

// dmTitle names a DM for one of its members: the others' names.
func dmTitle(d *Snapshot, ch *svcv1.Channel, forID string) string {
	var names []string
	for _, id := range ch.GetMemberIds() {
		if id != forID {
			names = append(names, noticeName(d, id))
		}
	}
	return strings.Join(names, ", ")
}

// noticeMentionPattern finds `<@member_id>` mentions, to show them by name.
var noticeMentionPattern = regexp.MustCompile(`<@[0-9a-fA-F-]{36}>`)

// groupMentionNames shows group mentions as people write them.
var groupMentionNames = strings.NewReplacer("<!here>", "@here", "<!everyone>", "@everyone")

// noticeBody is "Author: text" (noticeText), cut to noticeBodyMax characters.
func noticeBody(d *Snapshot, m *svcv1.Message) string {
	return cutText(noticeName(d, m.GetAuthorId())+": "+noticeText(d, m), noticeBodyMax)
}

// noticeText is a message's text on one line with <@id> mentions shown as @name and group
// mentions as @here and @everyone (the files' names for a message without text).
func noticeText(d *Snapshot, m *svcv1.Message) string {
	text := groupMentionNames.Replace(m.GetText())
	text = noticeMentionPattern.ReplaceAllStringFunc(text, func(s string) string {
		id := strings.ToLower(s[2 : len(s)-1])
		if d.Member(id) == nil {
			return s
		}
		return "@" + noticeName(d, id)
	})
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		var files []string
		for _, a := range m.GetAttachments() {
			files = append(files, a.GetName())
		}
		text = strings.Join(files, ", ")
	}
	return text
}

// cutText cuts s to max characters, the last one an ellipsis when anything was cut.
func cutText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Away reports whether a member is away from every client: no Subscribe stream of theirs is
// open, or they set their presence to AWAY. Pushes go only to members who are.
func (e *Engine) Away(memberID string) bool { return e.presence.away(memberID) }

// away is Engine.Away.
func (p *presence) away(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.members[id]
	return s == nil || s.streams == 0 || s.away
}

// ReportFiled is a report filed or replaced, as notifications show it, and the moderators it
// may notify: those who may list it (ListReports), but the reporter (ReportNotices).
type ReportFiled struct {
	ReportID string
	Message  *svcv1.Message
	// Body is "Author: text" of the reported copy, cut to 200 characters.
	Body       string
	Recipients []string
}

// ReportNotices is a report_filed event as notifications show it, with the moderators it may
// notify: those it reaches (who may list the report, ListReports' rule), never the reporter.
// Any other event gives nil.
func (e *Engine) ReportNotices(d Delivery) *ReportFiled {
	rep := d.Event().GetReportFiled()
	snap := d.Snapshot
	if rep == nil || snap == nil {
		return nil
	}
	out := &ReportFiled{ReportID: rep.GetId(), Message: rep.GetMessage(), Body: noticeBody(snap, rep.GetMessage())}
	for id := range snap.members {
		m := snap.active(id)
		if m == nil || id == rep.GetReporter().GetId() || !snap.receivesAs(id, m, d.Audience, nil) {
			continue
		}
		out.Recipients = append(out.Recipients, id)
	}
	return out
}
