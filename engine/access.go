package engine

import (
	"context"
	"slices"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Who sees which TEXT channel: Channel.role_ids against the members' custom roles and ranks
// (the rule itself is Snapshot.sees). A change to either moves channels in and out of members'
// sight; the members affected hear of it at once: channel_deleted for a channel they stopped
// seeing, channel_created for one they started seeing. Private channels and DMs never change
// sight this way: only their member_ids decide, and the calls that change those send their own
// events.

// SetChannelAccess replaces the custom roles that limit who sees a TEXT channel, and its
// is_default flag.
func (e *Engine) SetChannelAccess(ctx context.Context, c Caller, req *svcv1.SetChannelAccessRequest) (*svcv1.SetChannelAccessResponse, error) {
	roleIDs, err := roleIDList("role_ids", req.GetRoleIds())
	if err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.SetChannelAccessResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "SetChannelAccess"); err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if k := rec.GetChannel().GetKind(); k != svcv1.ChannelKind_CHANNEL_KIND_TEXT && k != svcv1.ChannelKind_CHANNEL_KIND_VOICE {
			return nil, invalid("SetChannelAccess is for TEXT and VOICE channels; this is %s, seen by its members only", kindName(rec))
		}
		if err := rolesExist(d, "role_ids", roleIDs); err != nil {
			return nil, err
		}
		ch := rec.GetChannel()
		if sameSet(ch.GetRoleIds(), roleIDs) && ch.GetIsDefault() == req.GetIsDefault() {
			view, err := e.channelView(tx.read(), rec, tx.seq)
			return &svcv1.SetChannelAccessResponse{Channel: view}, err
		}
		before := recordVisibility(d, activeIDs(d), []string{ch.GetId()})
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		rec.Channel.RoleIds = roleIDs
		rec.Channel.IsDefault = req.GetIsDefault()
		if err := tx.putChannel(rec); err != nil {
			return nil, err
		}
		gained, err := e.announceVisibility(tx, before)
		if err != nil {
			return nil, err
		}
		// Those who saw it before and still do get the change; those who just started seeing it
		// had it whole in their channel_created.
		aud := toViewers(ch.GetId())
		aud.ExceptMemberIds = gained[ch.GetId()]
		view, err := e.channelUpdated(tx, rec, aud)
		if err != nil {
			return nil, err
		}
		if err := auditChannel(tx, c, ch, rec.GetChannel()); err != nil {
			return nil, err
		}
		return &svcv1.SetChannelAccessResponse{Channel: view}, nil
	})
}

// visibility is which of some channels each of some members sees, recorded before a change so
// that announceVisibility can tell afterwards who stopped and who started seeing what. Every
// change of what members see goes through this pair: a channel's roles (SetChannelAccess), a
// member's custom roles (SetMemberRoles) and rank (SetMemberRole).
type visibility struct {
	members  []string
	channels []string
	saw      map[[2]string]bool // {member, channel}
}

// recordVisibility records what the members see of the channels now.
func recordVisibility(d *Snapshot, members, channels []string) *visibility {
	s := &visibility{members: members, channels: channels, saw: map[[2]string]bool{}}
	for _, ch := range channels {
		rec := d.Channel(ch)
		for _, m := range members {
			if d.sees(m, rec) {
				s.saw[[2]string{m, ch}] = true
			}
		}
	}
	return s
}

// memberVisibility is what one member sees of the role-limited channels (the only ones their
// custom roles or rank decide), recorded before a change of either; announceVisibility after the
// change tells them what came and went.
func memberVisibility(d *Snapshot, memberID string) *visibility {
	return recordVisibility(d, []string{memberID}, limitedChannels(d))
}

// limitedChannels are the TEXT and VOICE channels some custom role limits: the only ones whose
// visibility changes with a member's roles or rank.
func limitedChannels(d *Snapshot) []string {
	var out []string
	for _, rec := range d.Channels() {
		if ch := rec.GetChannel(); (ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT || ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_VOICE) && len(ch.GetRoleIds()) > 0 {
			out = append(out, ch.GetId())
		}
	}
	return out
}

// announceVisibility compares what the members see now with before: for each channel, in the
// order recorded, channel_deleted to those who stopped seeing it, then channel_created (the channel as it
// now is) to those who started. It returns who started seeing each channel.
func (e *Engine) announceVisibility(tx *Tx, before *visibility) (map[string][]string, error) {
	d := tx.Snap()
	gained := map[string][]string{}
	for _, chID := range before.channels {
		rec := d.Channel(chID)
		var lost, found []string
		for _, m := range before.members {
			saw, sees := before.saw[[2]string{m, chID}], d.sees(m, rec)
			switch {
			case saw && !sees:
				lost = append(lost, m)
			case sees && !saw:
				found = append(found, m)
			}
		}
		if len(lost) > 0 {
			if _, err := tx.emit(toMembers(lost...), &svcv1.Event{Kind: &svcv1.Event_ChannelDeleted{ChannelDeleted: chID}}); err != nil {
				return nil, err
			}
		}
		if len(found) > 0 {
			tx.withholdEarlier(chID, found, false)
			view, err := e.channelView(tx.read(), rec, tx.seq)
			if err != nil {
				return nil, err
			}
			if _, err := tx.emit(toMembers(found...), &svcv1.Event{Kind: &svcv1.Event_ChannelCreated{ChannelCreated: view}}); err != nil {
				return nil, err
			}
			gained[chID] = found
		}
	}
	return gained, nil
}

func activeIDs(d *Snapshot) []string {
	recs := d.activeMembers()
	out := make([]string, len(recs))
	for i, m := range recs {
		out[i] = m.GetMember().GetId()
	}
	return out
}

// roleIDList checks a list of role ids from a request: no empty id, at most as many as there
// can be roles; repeats are dropped.
func roleIDList(field string, ids []string) ([]string, error) {
	if len(ids) > rolesMax {
		return nil, invalid("%s has %d ids; the limit is %d", field, len(ids), rolesMax)
	}
	var out []string
	for i, id := range ids {
		if id == "" {
			return nil, invalid("%s[%d] is empty", field, i)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// rolesExist fails with not_found for the first id that is not a custom role.
func rolesExist(d *Snapshot, field string, ids []string) error {
	for _, id := range ids {
		if d.Role(id) == nil {
			return notFound("%s: role %s does not exist", field, id)
		}
	}
	return nil
}

// sameSet reports whether two lists hold the same ids, in any order (neither has repeats).
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
