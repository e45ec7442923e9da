package engine

import (
	"slices"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The visibility rules of the API, in one place. Every call that reads or writes a channel, and
// every event delivery, asks these.

// sees reports whether a member can see a channel at all: a TEXT or VOICE channel without
// role_ids is seen by every member, one with role_ids by holders of one of them plus admins and
// the owner; PRIVATE channels and DMs only by their member_ids (admins included: no exception).
func (d *Snapshot) sees(memberID string, c *storepb.ChannelRecord) bool {
	return seesAs(memberID, d.active(memberID), c)
}

// seesAs is sees for a member whose active row the caller has: m, nil when they are not in the
// community. A stream's follower keeps that row while the members do not change (see
// Follower.live), so delivering an event costs no lookup of it.
func seesAs(memberID string, m *storepb.MemberRecord, c *storepb.ChannelRecord) bool {
	if m == nil || c == nil {
		return false
	}
	ch := c.GetChannel()
	switch ch.GetKind() {
	case svcv1.ChannelKind_CHANNEL_KIND_TEXT, svcv1.ChannelKind_CHANNEL_KIND_VOICE:
		if len(ch.GetRoleIds()) == 0 || m.GetMember().GetRole() >= svcv1.MemberRole_MEMBER_ROLE_ADMIN {
			return true
		}
		for _, r := range m.GetMember().GetRoleIds() {
			if slices.Contains(ch.GetRoleIds(), r) {
				return true
			}
		}
		return false
	default:
		return slices.Contains(ch.GetMemberIds(), memberID)
	}
}

// In reports whether a member is in a channel: receives its messages and typing. ROLES mode:
// every TEXT channel they see; OPT_IN mode: the TEXT channels they see and joined; PRIVATE and
// DM: member_ids, a hidden DM included; VOICE (in every sidebar that sees it, in both modes):
// everyone who sees it.
func (d *Snapshot) In(memberID string, c *storepb.ChannelRecord) bool {
	return d.inAs(memberID, d.active(memberID), c)
}

// inAs is In for a member whose active row the caller has (see seesAs).
func (d *Snapshot) inAs(memberID string, m *storepb.MemberRecord, c *storepb.ChannelRecord) bool {
	if !seesAs(memberID, m, c) {
		return false
	}
	if c.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT && d.OptIn() {
		return d.Joined(c.GetChannel().GetId(), memberID)
	}
	return true
}

// inSidebar reports whether a channel is in a member's sidebar: In, except a DM they hid.
func (d *Snapshot) inSidebar(memberID string, c *storepb.ChannelRecord) bool {
	return d.In(memberID, c) && !slices.Contains(c.GetHiddenMemberIds(), memberID)
}

// OptIn reports whether the community is in CHANNEL_MODE_OPT_IN.
func (d *Snapshot) OptIn() bool {
	return d.settings.GetChannelMode() == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
}

// sidebar returns the channels in a member's sidebar, sorted.
func (d *Snapshot) sidebar(memberID string) []*storepb.ChannelRecord {
	var out []*storepb.ChannelRecord
	for _, c := range d.channels {
		if d.inSidebar(memberID, c) {
			out = append(out, c)
		}
	}
	sortChannels(out)
	return out
}

// receives reports whether a member may receive an event with this audience.
func (d *Snapshot) receives(memberID string, a *storepb.Audience) bool {
	return d.receivesAs(memberID, d.active(memberID), a, d.audienceChannel(a))
}

// audienceChannel is the channel an audience names, for the kinds that name one (nil for the
// others, and for a channel not in d).
func (d *Snapshot) audienceChannel(a *storepb.Audience) *storepb.ChannelRecord {
	switch a.GetKind() {
	case storepb.Audience_KIND_CHANNEL, storepb.Audience_KIND_VIEWERS, storepb.Audience_KIND_MODERATORS:
		return d.channels[a.GetChannelId()]
	}
	return nil
}

// receivesAs is receives for a member whose active row the caller has (see seesAs), and the
// audience's channel (audienceChannel).
func (d *Snapshot) receivesAs(memberID string, m *storepb.MemberRecord, a *storepb.Audience, c *storepb.ChannelRecord) bool {
	if slices.Contains(a.GetExceptMemberIds(), memberID) {
		return false
	}
	if slices.Contains(a.GetMemberIds(), memberID) {
		return true
	}
	switch a.GetKind() {
	case storepb.Audience_KIND_EVERYONE:
		return m != nil
	case storepb.Audience_KIND_CHANNEL:
		return d.inAs(memberID, m, c)
	case storepb.Audience_KIND_VIEWERS:
		return seesAs(memberID, m, c)
	case storepb.Audience_KIND_ADMINS:
		return m != nil && m.GetMember().GetRole() >= svcv1.MemberRole_MEMBER_ROLE_ADMIN
	case storepb.Audience_KIND_MODERATORS:
		return m != nil && d.moderatorReceives(m.GetMember().GetRole(), a.GetAboveMemberId()) && (c == nil || seesAs(memberID, m, c))
	}
	return false
}

// Audiences, as the events of the API name them.

func toEveryone() *storepb.Audience { return &storepb.Audience{Kind: storepb.Audience_KIND_EVERYONE} }

func toChannel(id string) *storepb.Audience {
	return &storepb.Audience{Kind: storepb.Audience_KIND_CHANNEL, ChannelId: id}
}

func toViewers(id string) *storepb.Audience {
	return &storepb.Audience{Kind: storepb.Audience_KIND_VIEWERS, ChannelId: id}
}

func toMembers(ids ...string) *storepb.Audience {
	return &storepb.Audience{Kind: storepb.Audience_KIND_MEMBERS, MemberIds: ids}
}

// withholdEarlier keeps the events this batch emitted so far to the members of a channel (its
// message events, its channel_created and channel_updated) from members who come into it now.
// Live events are judged against the community as of the end of their batch, so without this
// a member added to a channel, or given sight of it, would receive what the batch's earlier
// changes sent there although they were not in it then: a reaction carrying the text of a
// message that a later change of the batch deleted, for one. Every change that lets members
// into a channel calls it after its writes (a change that then fails has spoiled the batch,
// which is applied again from scratch, this withholding gone with it) and before it emits its
// own events. Members who saw the channel already (joining it, the mode going back to ROLES)
// keep its events to those who see it: sawIt. The log is left as it is: a replay
// is judged against the community as it is at the replay (DECISIONS.md) and shows messages as
// they are then.
func (tx *Tx) withholdEarlier(channelID string, memberIDs []string, sawIt bool) {
	if len(memberIDs) == 0 {
		return
	}
	for i, d := range tx.events {
		a := d.Audience
		switch {
		case a.GetChannelId() != channelID:
			continue
		case a.GetKind() == storepb.Audience_KIND_CHANNEL:
		case a.GetKind() == storepb.Audience_KIND_VIEWERS && !sawIt:
		default:
			continue
		}
		a = proto.Clone(a).(*storepb.Audience)
		a.ExceptMemberIds = append(a.ExceptMemberIds, memberIDs...)
		tx.events[i].Audience = a
	}
}
