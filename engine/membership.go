package engine

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Who is in which conversation: DMs, private channel members, and joining TEXT channels in
// OPT_IN mode.

// OpenDM returns the DM between the caller and the given members, creating it the first time.
func (e *Engine) OpenDM(ctx context.Context, c Caller, req *svcv1.OpenDMRequest) (*svcv1.OpenDMResponse, error) {
	return write(e, func(tx *Tx) (*svcv1.OpenDMResponse, error) {
		d := tx.Dir()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		var others []string
		for _, id := range req.GetMemberIds() {
			if id != c.ID && !slices.Contains(others, id) {
				others = append(others, id)
			}
		}
		if len(others) < 1 || len(others) > dmOthersMax {
			return nil, invalid("member_ids must name 1 to %d other members; got %d", dmOthersMax, len(others))
		}
		for _, id := range others {
			if d.Active(id) == nil {
				return nil, notFound("member %s is not in this community", id)
			}
		}
		members := append([]string{c.ID}, others...)
		if err := dmBlocked(d, c.ID, members); err != nil {
			return nil, err
		}
		if rec := d.DM(members); rec != nil {
			if !slices.Contains(rec.GetHiddenMemberIds(), c.ID) {
				view, err := e.channelView(tx.read(), rec, tx.seq)
				return &svcv1.OpenDMResponse{Channel: view}, err
			}
			rec = proto.Clone(rec).(*storepb.ChannelRecord)
			rec.HiddenMemberIds = slices.DeleteFunc(rec.HiddenMemberIds, func(id string) bool { return id == c.ID })
			if err := tx.putChannel(rec); err != nil {
				return nil, err
			}
			view, err := e.channelUpdated(tx, rec, toMembers(c.ID))
			return &svcv1.OpenDMResponse{Channel: view}, err
		}
		slices.Sort(members)
		ch := &svcv1.Channel{
			Id:          uuid.Must(uuid.NewV7()).String(),
			Kind:        svcv1.ChannelKind_CHANNEL_KIND_DM,
			MemberIds:   members,
			CreatedAtMs: tx.NowMs(),
		}
		if err := tx.putChannel(&storepb.ChannelRecord{Channel: ch}); err != nil {
			return nil, err
		}
		if _, err := tx.emit(toViewers(ch.Id), &svcv1.Event{Kind: &svcv1.Event_ChannelCreated{ChannelCreated: ch}}); err != nil {
			return nil, err
		}
		return &svcv1.OpenDMResponse{Channel: ch}, nil
	})
}

// AddChannelMembers adds members to a private channel the caller is in.
func (e *Engine) AddChannelMembers(ctx context.Context, c Caller, req *svcv1.AddChannelMembersRequest) (*svcv1.AddChannelMembersResponse, error) {
	if n := len(req.GetMemberIds()); n == 0 || n > channelMembersAdd {
		return nil, invalid("member_ids must name 1 to %d members; got %d", channelMembersAdd, n)
	}
	return write(e, func(tx *Tx) (*svcv1.AddChannelMembersResponse, error) {
		d := tx.Dir()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_PRIVATE {
			return nil, invalid("members are added to private channels only")
		}
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		var added []string
		for _, id := range req.GetMemberIds() {
			if d.Active(id) == nil {
				return nil, notFound("member %s is not in this community", id)
			}
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
		view, err := e.channelUpdated(tx, rec, toViewers(rec.GetChannel().GetId()))
		return &svcv1.AddChannelMembersResponse{Channel: view}, err
	})
}

// RemoveChannelMember takes a member out of a private channel, or hides a DM for the caller.
func (e *Engine) RemoveChannelMember(ctx context.Context, c Caller, req *svcv1.RemoveChannelMemberRequest) (*svcv1.RemoveChannelMemberResponse, error) {
	return write(e, func(tx *Tx) (*svcv1.RemoveChannelMemberResponse, error) {
		d := tx.Dir()
		me, err := d.caller(c)
		if err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		target := req.GetMemberId()
		switch rec.GetChannel().GetKind() {
		case svcv1.ChannelKind_CHANNEL_KIND_TEXT:
			return nil, invalid("TEXT channels have no member list: members leave them with LeaveChannel")
		case svcv1.ChannelKind_CHANNEL_KIND_DM:
			if target != c.ID {
				return nil, invalid("in a DM you can only remove yourself (which hides it until someone writes)")
			}
			view, err := e.hideDM(tx, rec, c.ID)
			return &svcv1.RemoveChannelMemberResponse{Channel: view}, err
		}
		if target != c.ID {
			if me.GetMember().GetRole() < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
				return nil, denied("removing someone else needs the moderator rank or higher")
			}
			if t := d.Member(target); t != nil && t.GetMember().GetRole() >= me.GetMember().GetRole() && t.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE {
				return nil, denied("you can only remove members of a lower rank than yours")
			}
			if !slices.Contains(rec.GetChannel().GetMemberIds(), target) {
				return nil, notFound("member %s is not in this channel", target)
			}
		}
		view, err := e.leavePrivate(tx, rec, target)
		return &svcv1.RemoveChannelMemberResponse{Channel: view}, err
	})
}

// leavePrivate takes a member out of a private channel: channel_deleted to them,
// channel_updated to the rest.
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

// hideDM hides a DM for one member until someone writes there: channel_deleted to their
// devices.
func (e *Engine) hideDM(tx *Tx, rec *storepb.ChannelRecord, memberID string) (*svcv1.Channel, error) {
	chID := rec.GetChannel().GetId()
	if !slices.Contains(rec.GetHiddenMemberIds(), memberID) {
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		rec.HiddenMemberIds = append(rec.HiddenMemberIds, memberID)
		if err := tx.putChannel(rec); err != nil {
			return nil, err
		}
		if _, err := tx.emit(toMembers(memberID), &svcv1.Event{Kind: &svcv1.Event_ChannelDeleted{ChannelDeleted: chID}}); err != nil {
			return nil, err
		}
	}
	return e.channelView(tx.read(), rec, tx.seq)
}

// JoinChannel joins a TEXT channel the caller sees (OPT_IN mode).
func (e *Engine) JoinChannel(ctx context.Context, c Caller, req *svcv1.JoinChannelRequest) (*svcv1.JoinChannelResponse, error) {
	return write(e, func(tx *Tx) (*svcv1.JoinChannelResponse, error) {
		d := tx.Dir()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			return nil, invalid("only TEXT channels are joined; private channels and DMs add members")
		}
		if !d.OptIn() {
			return nil, precondition("in CHANNEL_MODE_ROLES every member is in every channel they see; there is nothing to join")
		}
		if d.Joined(rec.GetChannel().GetId(), c.ID) {
			view, err := e.channelView(tx.read(), rec, tx.seq)
			return &svcv1.JoinChannelResponse{Channel: view}, err
		}
		if err := tx.setJoined(rec.GetChannel().GetId(), c.ID, true); err != nil {
			return nil, err
		}
		view, err := e.channelUpdated(tx, rec, toMembers(c.ID))
		return &svcv1.JoinChannelResponse{Channel: view}, err
	})
}

// LeaveChannel leaves a TEXT channel (OPT_IN mode) or a private channel, or hides a DM.
func (e *Engine) LeaveChannel(ctx context.Context, c Caller, req *svcv1.LeaveChannelRequest) (*svcv1.LeaveChannelResponse, error) {
	return write(e, func(tx *Tx) (*svcv1.LeaveChannelResponse, error) {
		d := tx.Dir()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		chID := rec.GetChannel().GetId()
		switch rec.GetChannel().GetKind() {
		case svcv1.ChannelKind_CHANNEL_KIND_PRIVATE:
			_, err = e.leavePrivate(tx, rec, c.ID)
		case svcv1.ChannelKind_CHANNEL_KIND_DM:
			_, err = e.hideDM(tx, rec, c.ID)
		default:
			if !d.OptIn() {
				return nil, precondition("in CHANNEL_MODE_ROLES every member is in every channel they see; nobody leaves one")
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

// BrowseChannels lists every TEXT channel the caller sees, joined or not, with member_count.
func (e *Engine) BrowseChannels(ctx context.Context, c Caller, _ *svcv1.BrowseChannelsRequest) (*svcv1.BrowseChannelsResponse, error) {
	d := e.dir.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	out := &svcv1.BrowseChannelsResponse{}
	members := d.ActiveMembers()
	err := e.db.View(func(r *store.Reader) error {
		for _, rec := range d.Channels() {
			if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT || !d.Sees(c.ID, rec) {
				continue
			}
			view, err := e.channelView(r, rec, d.Seq())
			if err != nil {
				return err
			}
			var n int32
			for _, m := range members {
				if d.In(m.GetMember().GetId(), rec) {
					n++
				}
			}
			view.MemberCount = n
			out.Channels = append(out.Channels, view)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
