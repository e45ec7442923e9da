package engine

import (
	"context"
	"slices"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Who is in which conversation: the member lists of private channels, and joining TEXT channels
// in OPT_IN mode. DMs are in dms.go.

// AddChannelMembers adds members to a private channel the caller is in.
func (e *Engine) AddChannelMembers(ctx context.Context, c Caller, req *svcv1.AddChannelMembersRequest) (*svcv1.AddChannelMembersResponse, error) {
	ids := req.GetMemberIds()
	if n := len(ids); n == 0 || n > channelMembersAdd {
		return nil, invalid("member_ids must name 1 to %d members; got %d", channelMembersAdd, n)
	}
	for i, id := range ids {
		if id == "" {
			return nil, invalid("member_ids[%d] is empty", i)
		}
	}
	return submit(e, func(tx *Tx) (*svcv1.AddChannelMembersResponse, error) {
		d := tx.Snap()
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_PRIVATE {
			return nil, invalid("members are added to private channels only; this is %s", kindName(rec))
		}
		for _, id := range ids {
			if d.active(id) == nil {
				return nil, notFound("member_ids: member %s is not in this community", id)
			}
		}
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		var added []string
		for _, id := range ids {
			if !slices.Contains(rec.Channel.MemberIds, id) {
				rec.Channel.MemberIds = append(rec.Channel.MemberIds, id)
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			view, err := e.channelView(tx.read(), rec, tx.seq)
			return &svcv1.AddChannelMembersResponse{Channel: view}, err
		}
		if err := tx.putChannel(rec); err != nil {
			return nil, err
		}
		tx.withholdEarlier(rec.GetChannel().GetId(), added, false)
		// Those who see it now are the members before and the new ones.
		view, err := e.channelUpdated(tx, rec, toViewers(rec.GetChannel().GetId()))
		return &svcv1.AddChannelMembersResponse{Channel: view}, err
	})
}

// RemoveChannelMember takes a member out of a private channel, or hides a DM for the caller.
func (e *Engine) RemoveChannelMember(ctx context.Context, c Caller, req *svcv1.RemoveChannelMemberRequest) (*svcv1.RemoveChannelMemberResponse, error) {
	target := req.GetMemberId()
	if target == "" {
		return nil, invalid("member_id is required")
	}
	return submit(e, func(tx *Tx) (*svcv1.RemoveChannelMemberResponse, error) {
		d := tx.Snap()
		me, err := d.caller(c)
		if err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		switch rec.GetChannel().GetKind() {
		case svcv1.ChannelKind_CHANNEL_KIND_TEXT:
			return nil, invalid("a TEXT channel has no member list; members leave it with LeaveChannel")
		case svcv1.ChannelKind_CHANNEL_KIND_DM:
			if target != c.ID {
				return nil, invalid("in a DM, member_id must be your own id (which hides the DM for you)")
			}
			view, err := e.hideDM(tx, rec, c.ID)
			return &svcv1.RemoveChannelMemberResponse{Channel: view}, err
		}
		if target != c.ID {
			if err := mayRemove(d, me, target); err != nil {
				return nil, err
			}
			if !slices.Contains(rec.GetChannel().GetMemberIds(), target) {
				return nil, notFound("member %s is not in this channel", target)
			}
		}
		view, err := e.leavePrivate(tx, rec, target)
		return &svcv1.RemoveChannelMemberResponse{Channel: view}, err
	})
}

// mayRemove checks that the caller may take someone else out of a private channel: moderator or
// higher, of higher rank than the target. Someone who left the community keeps no rank.
func mayRemove(d *Snapshot, me *storepb.MemberRecord, target string) error {
	rank := me.GetMember().GetRole()
	if rank < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		return denied("removing another member needs the moderator rank or higher")
	}
	if d.rank(target) >= rank {
		return denied("you can only remove members of a lower rank than yours")
	}
	return nil
}

// leavePrivate takes a member out of a private channel: channel_deleted to them,
// channel_updated to the members who remain.
func (e *Engine) leavePrivate(tx *Tx, rec *storepb.ChannelRecord, memberID string) (*svcv1.Channel, error) {
	rec = proto.Clone(rec).(*storepb.ChannelRecord)
	chID := rec.GetChannel().GetId()
	rec.Channel.MemberIds = slices.DeleteFunc(rec.Channel.MemberIds, func(id string) bool { return id == memberID })
	if err := tx.putChannel(rec); err != nil {
		return nil, err
	}
	if _, err := tx.emit(toMembers(memberID), &svcv1.Event{Kind: &svcv1.Event_ChannelDeleted{ChannelDeleted: chID}}); err != nil {
		return nil, err
	}
	return e.channelUpdated(tx, rec, toViewers(chID))
}

// JoinChannel joins a TEXT channel the caller sees (OPT_IN mode).
func (e *Engine) JoinChannel(ctx context.Context, c Caller, req *svcv1.JoinChannelRequest) (*svcv1.JoinChannelResponse, error) {
	return submit(e, func(tx *Tx) (*svcv1.JoinChannelResponse, error) {
		d := tx.Snap()
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if voiceChannel(rec) {
			return nil, invalid("a voice channel is in the sidebar of everyone who sees it; people talk in it with VoiceService.JoinVoice")
		}
		if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			return nil, invalid("only TEXT channels are joined; this is %s, whose members are added by its members", kindName(rec))
		}
		if !d.OptIn() {
			return nil, precondition("in CHANNEL_MODE_ROLES every member is in every TEXT channel they see; JoinChannel needs CHANNEL_MODE_OPT_IN")
		}
		chID := rec.GetChannel().GetId()
		if d.Joined(chID, c.ID) {
			view, err := e.channelView(tx.read(), rec, tx.seq)
			return &svcv1.JoinChannelResponse{Channel: view}, err
		}
		if err := tx.setJoined(chID, c.ID, true); err != nil {
			return nil, err
		}
		tx.withholdEarlier(chID, []string{c.ID}, true)
		view, err := e.channelUpdated(tx, rec, toMembers(c.ID))
		return &svcv1.JoinChannelResponse{Channel: view}, err
	})
}

// LeaveChannel leaves a TEXT channel (OPT_IN mode) or a private channel, or hides a DM. Leaving
// a channel one is not in (any more) changes nothing and succeeds, so a retried call is fine;
// it answers nothing about the channel.
func (e *Engine) LeaveChannel(ctx context.Context, c Caller, req *svcv1.LeaveChannelRequest) (*svcv1.LeaveChannelResponse, error) {
	if req.GetChannelId() == "" {
		return nil, invalid("channel_id is required")
	}
	return submit(e, func(tx *Tx) (*svcv1.LeaveChannelResponse, error) {
		d := tx.Snap()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		rec := d.Channel(req.GetChannelId())
		if rec == nil {
			return nil, notFound("channel %s does not exist", req.GetChannelId())
		}
		if !d.sees(c.ID, rec) {
			return &svcv1.LeaveChannelResponse{}, nil
		}
		chID := rec.GetChannel().GetId()
		var err error
		switch rec.GetChannel().GetKind() {
		case svcv1.ChannelKind_CHANNEL_KIND_PRIVATE:
			_, err = e.leavePrivate(tx, rec, c.ID)
		case svcv1.ChannelKind_CHANNEL_KIND_DM:
			_, err = e.hideDM(tx, rec, c.ID)
		case svcv1.ChannelKind_CHANNEL_KIND_VOICE:
			return nil, invalid("a voice channel stays in the sidebar of everyone who sees it; VoiceService.LeaveVoice leaves the talk")
		default:
			if !d.OptIn() {
				return nil, precondition("in CHANNEL_MODE_ROLES every member is in every TEXT channel they see; LeaveChannel needs CHANNEL_MODE_OPT_IN")
			}
			if d.Joined(chID, c.ID) {
				if err = tx.setJoined(chID, c.ID, false); err == nil {
					_, err = tx.emit(toMembers(c.ID), &svcv1.Event{Kind: &svcv1.Event_ChannelDeleted{ChannelDeleted: chID}})
				}
			}
		}
		if err != nil {
			return nil, err
		}
		return &svcv1.LeaveChannelResponse{}, nil
	})
}

// BrowseChannels lists every TEXT channel the caller sees, joined or not, with member_count: how
// many members are in it (ROLES mode: everyone who sees it; OPT_IN mode: who joined and sees it),
// imported placeholders not counted (snapshot.go, joinedCount).
func (e *Engine) BrowseChannels(ctx context.Context, c Caller, _ *svcv1.BrowseChannelsRequest) (*svcv1.BrowseChannelsResponse, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	out := &svcv1.BrowseChannelsResponse{}
	members := d.activeMembers()
	err := e.db.View(func(r *store.Reader) error {
		for _, rec := range d.Channels() {
			if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT || !d.sees(c.ID, rec) {
				continue
			}
			view, err := e.channelView(r, rec, d.Seq())
			if err != nil {
				return err
			}
			for _, m := range members {
				if joined(m) && d.In(m.GetMember().GetId(), rec) {
					view.MemberCount++
				}
			}
			out.Channels = append(out.Channels, view)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// kindName names a channel's kind in error messages, without naming the channel.
func kindName(rec *storepb.ChannelRecord) string {
	switch rec.GetChannel().GetKind() {
	case svcv1.ChannelKind_CHANNEL_KIND_TEXT:
		return "a TEXT channel"
	case svcv1.ChannelKind_CHANNEL_KIND_PRIVATE:
		return "a private channel"
	case svcv1.ChannelKind_CHANNEL_KIND_DM:
		return "a DM"
	case svcv1.ChannelKind_CHANNEL_KIND_VOICE:
		return "a voice channel"
	}
	return "a channel of unknown kind"
}
