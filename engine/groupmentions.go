package engine

import (
	"strings"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Group mentions (EXTENSIONS.md 3): `<!here>` mentions the members of the channel who are
// ONLINE when it is sent, `<!everyone>` every member in the channel, the sender aside; they
// count when the sender's rank is at least the server's group_mention_rank (MODERATOR unless an
// admin set another), and in a DM for anyone. Below it the text stays and mentions nobody.
//
// The mention counters (readState) must not grow with the community: an <!everyone> is a flag
// of the channel log entry, which the counters already read, so it costs nothing per member;
// an <!here> keeps the members it reached in a row of its own (store.PutHere, their ids sorted)
// that a counter looks itself up in with one point read, only for such messages. Mutes and
// blocks apply as for <@id>: the counters leave out messages from members the reader muted or
// blocked, whatever mentions them.
//
// Edits follow the text, as for <@id>: an edit that takes a group mention out of the text
// takes it out of the counters; one that puts it in counts it, by the editor's rank and, for
// <!here>, who is online at the edit; one that keeps an <!here> keeps who it reached.

const (
	hereToken     = "<!here>"
	everyoneToken = "<!everyone>"
)

// groupMentionRank is the lowest rank whose group mentions count outside DMs.
func groupMentionRank(s *storepb.Settings) svcv1.MemberRole {
	if r := s.GetGroupMentionRank(); r != svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED {
		return r
	}
	return svcv1.MemberRole_MEMBER_ROLE_MODERATOR
}

// setGroupMentions sets what a message's group mentions count for (its author's, in rec).
func setGroupMentions(d *Snapshot, rec *storepb.ChannelRecord, m *svcv1.Message) {
	here, everyone := strings.Contains(m.GetText(), hereToken), strings.Contains(m.GetText(), everyoneToken)
	if (here || everyone) && rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_DM &&
		d.rank(m.GetAuthorId()) < groupMentionRank(d.Settings()) {
		here, everyone = false, false
	}
	m.MentionsHere, m.MentionsEveryone = here, everyone
}

// hasHereRow reports whether a message keeps who its <!here> reached: an <!everyone> reaches
// them all anyway.
func hasHereRow(m *svcv1.Message) bool { return m.GetMentionsHere() && !m.GetMentionsEveryone() }

// onlineIn lists the members in a channel who are ONLINE now, but one.
func (e *Engine) onlineIn(d *Snapshot, rec *storepb.ChannelRecord, except string) []string {
	p := e.presence
	p.mu.Lock()
	var online []string
	for id, s := range p.members {
		if s.current == svcv1.Presence_PRESENCE_ONLINE && id != except {
			online = append(online, id)
		}
	}
	p.mu.Unlock()
	out := online[:0]
	for _, id := range online {
		if d.In(id, rec) {
			out = append(out, id)
		}
	}
	return out
}

// storeGroupMentions writes what a message's <!here> reached, had is whether it had a row
// before (an edit keeps it while the <!here> stays), and sets the entry's flags.
func (e *Engine) storeGroupMentions(tx *Tx, rec *storepb.ChannelRecord, m *svcv1.Message, entry *storepb.MessageEntry, had bool) error {
	entry.MentionsHere, entry.MentionsEveryone = m.GetMentionsHere(), m.GetMentionsEveryone()
	switch now := hasHereRow(m); {
	case now && !had:
		return tx.mutate().PutHere(m.GetChannelId(), m.GetCreatedSeq(), e.onlineIn(tx.Snap(), rec, m.GetAuthorId()))
	case !now && had:
		return tx.mutate().DeleteHere(m.GetChannelId(), m.GetCreatedSeq())
	}
	return nil
}

// checkGroupMentionRank checks UpdateServerSettings.group_mention_rank.
func checkGroupMentionRank(req *svcv1.UpdateServerSettingsRequest) error {
	if req.GroupMentionRank == nil {
		return nil
	}
	switch req.GetGroupMentionRank() {
	case svcv1.MemberRole_MEMBER_ROLE_MEMBER, svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
		svcv1.MemberRole_MEMBER_ROLE_ADMIN, svcv1.MemberRole_MEMBER_ROLE_OWNER:
		return nil
	}
	return invalid("group_mention_rank must be MEMBER_ROLE_MEMBER, MEMBER_ROLE_MODERATOR, MEMBER_ROLE_ADMIN or MEMBER_ROLE_OWNER; got %s", req.GetGroupMentionRank())
}
