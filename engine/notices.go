package engine

import (
	"math"
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
// delivery gives nil.
func (e *Engine) MessageNotices(d Delivery) (*MessageNotice, error) {
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
	consider := func(id string, mem *storepb.MemberRecord) {
		if mem == nil || id == m.GetAuthorId() || mem.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
			return
		}
		if !snap.receivesAs(id, mem, d.Audience, rec) || !counts(snap, id, entry, m.GetSeq()) {
			return
		}
		r := NoticeRecipient{MemberID: id, Reason: NoticeChannel, Title: "#" + ch.GetName()}
		switch {
		case dm:
			r.Reason, r.Title = NoticeDM, dmTitle(snap, ch, id)
		case countsAsMention(id, entry, dm):
			r.Reason = NoticeMention
		case participants[id]:
			r.Reason = NoticeThread
		}
		out.Recipients = append(out.Recipients, r)
	}
	if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT {
		for id := range snap.members {
			consider(id, snap.active(id))
		}
	} else {
		for _, id := range ch.GetMemberIds() {
			consider(id, snap.active(id))
		}
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

// noticeBody is "Author: text" (noticeText), cut to noticeBodyMax characters.
func noticeBody(d *Snapshot, m *svcv1.Message) string {
	return cutText(noticeName(d, m.GetAuthorId())+": "+noticeText(d, m), noticeBodyMax)
}

// noticeText is a message's text on one line with <@id> mentions shown as @name (the files'
// names for a message without text).
func noticeText(d *Snapshot, m *svcv1.Message) string {
	text := mentionPattern.ReplaceAllStringFunc(m.GetText(), func(s string) string {
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
// may notify: those who may list it (ListReports), but the reporter.
type ReportFiled struct {
	ReportID string
	Message  *svcv1.Message
	// Body is "Author: text" of the reported copy, cut to 200 characters.
	Body       string
	Recipients []string
}

// SetReportHook has fn called after every report filed or replaced is committed. It runs on the
// writer's goroutine: fn must hand the report over and return at once.
func (e *Engine) SetReportHook(fn func(ReportFiled)) {
	if fn == nil {
		e.reportHook.Store(nil)
		return
	}
	e.reportHook.Store(&fn)
}

// reportFiled tells the report hook about a committed report.
func (e *Engine) reportFiled(rep *storepb.ReportRecord) {
	fn := e.reportHook.Load()
	if fn == nil {
		return
	}
	d := e.snap.Load()
	out := ReportFiled{ReportID: rep.GetId(), Message: rep.GetMessage(), Body: noticeBody(d, rep.GetMessage())}
	for id, m := range d.members {
		if id == rep.GetReporterId() || d.active(id) == nil || m.GetMember().GetRole() < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
			continue
		}
		if mayListReport(d, m, rep) {
			out.Recipients = append(out.Recipients, id)
		}
	}
	(*fn)(out)
}
