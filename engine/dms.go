package engine

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Direct messages. A DM is a channel whose member_ids never change: the same set of members
// always gets the same DM. A member "leaves" a DM only by hiding it (RemoveChannelMember or
// LeaveChannel with their own id); it comes back to them when someone writes there or when they
// open it again.

// OpenDM returns the DM between the caller and the given members, creating it the first time.
func (e *Engine) OpenDM(ctx context.Context, c Caller, req *svcv1.OpenDMRequest) (*svcv1.OpenDMResponse, error) {
	others, err := dmOthers(c.ID, req.GetMemberIds())
	if err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.OpenDMResponse, error) {
		d := tx.Snap()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		for _, id := range others {
			if d.active(id) == nil {
				return nil, notFound("member_ids: member %s is not in this community", id)
			}
		}
		members := append([]string{c.ID}, others...)
		if err := dmPartiesBlocked(d, c.ID, members); err != nil {
			return nil, err
		}
		if rec := d.DM(members); rec != nil {
			view, err := e.showDM(tx, rec, c.ID)
			return &svcv1.OpenDMResponse{Channel: view}, err
		}
		// Opening a DM that exists is reading; starting one is not, for a timed-out member.
		if err := checkNotTimedOut(d.active(c.ID).GetMember(), tx.Now()); err != nil {
			return nil, err
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

// dmOthers checks OpenDM's member_ids: the caller's own id and repeats are dropped, and 1 to 8
// others must remain.
func dmOthers(caller string, ids []string) ([]string, error) {
	var others []string
	for i, id := range ids {
		if id == "" {
			return nil, invalid("member_ids[%d] is empty", i)
		}
		if id != caller && !slices.Contains(others, id) {
			if len(others) == dmOthersMax {
				return nil, invalid("member_ids names more than %d other members; a DM has 1 to %d others", dmOthersMax, dmOthersMax)
			}
			others = append(others, id)
		}
	}
	if len(others) == 0 {
		return nil, invalid("member_ids must name 1 to %d other members; got none", dmOthersMax)
	}
	return others, nil
}

// dmPartiesBlocked refuses to open a DM in which one member blocked another: they could not
// write there anyway. The message never says who blocked whom (see dmBlocked).
func dmPartiesBlocked(d *Snapshot, caller string, members []string) error {
	if err := dmBlocked(d, caller, members); err != nil {
		return err
	}
	for i, a := range members {
		for _, b := range members[i+1:] {
			if d.Blocked(a, b) || d.Blocked(b, a) {
				return denied("this DM cannot be opened: some of its members cannot send messages to each other")
			}
		}
	}
	return nil
}

// showDM puts a DM back in a member's sidebar if they had hid it (channel_updated to their
// devices) and returns it.
func (e *Engine) showDM(tx *Tx, rec *storepb.ChannelRecord, memberID string) (*svcv1.Channel, error) {
	if !slices.Contains(rec.GetHiddenMemberIds(), memberID) {
		return e.channelView(tx.read(), rec, tx.seq)
	}
	rec = proto.Clone(rec).(*storepb.ChannelRecord)
	rec.HiddenMemberIds = slices.DeleteFunc(rec.HiddenMemberIds, func(id string) bool { return id == memberID })
	if err := tx.putChannel(rec); err != nil {
		return nil, err
	}
	return e.channelUpdated(tx, rec, toMembers(memberID))
}

// hideDM hides a DM for one member until someone writes there: channel_deleted to their
// devices. Hiding twice changes nothing.
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

// unhideDM puts back the members who hid a DM, now that someone writes there: channel_updated to
// them, before the message itself, so their clients know the channel when the message arrives.
func (e *Engine) unhideDM(tx *Tx, rec *storepb.ChannelRecord) error {
	if len(rec.GetHiddenMemberIds()) == 0 {
		return nil
	}
	back := rec.GetHiddenMemberIds()
	rec = proto.Clone(rec).(*storepb.ChannelRecord)
	rec.HiddenMemberIds = nil
	if err := tx.putChannel(rec); err != nil {
		return err
	}
	_, err := e.channelUpdated(tx, rec, toMembers(back...))
	return err
}
