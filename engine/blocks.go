package engine

import (
	"context"

	svcv1 "hearth/proto/svc/v1"
)

// Blocking and muting are each member's own: they change nothing for anyone else, so their
// events go to the member's own devices only. A block keeps the two out of DMs with each other
// (dmBlocked); both keep the other's messages out of the member's unread and mention counts
// (counts in state.go). Both are idempotent: repeating one changes nothing and sends nothing.

// BlockMember blocks a member for the caller.
func (e *Engine) BlockMember(ctx context.Context, c Caller, req *svcv1.BlockMemberRequest) (*svcv1.BlockMemberResponse, error) {
	return &svcv1.BlockMemberResponse{}, e.relate(c, req.GetMemberId(), blocking, true)
}

// UnblockMember undoes BlockMember.
func (e *Engine) UnblockMember(ctx context.Context, c Caller, req *svcv1.UnblockMemberRequest) (*svcv1.UnblockMemberResponse, error) {
	return &svcv1.UnblockMemberResponse{}, e.relate(c, req.GetMemberId(), blocking, false)
}

// MuteMember mutes a member for the caller.
func (e *Engine) MuteMember(ctx context.Context, c Caller, req *svcv1.MuteMemberRequest) (*svcv1.MuteMemberResponse, error) {
	return &svcv1.MuteMemberResponse{}, e.relate(c, req.GetMemberId(), muting, true)
}

// UnmuteMember undoes MuteMember.
func (e *Engine) UnmuteMember(ctx context.Context, c Caller, req *svcv1.UnmuteMemberRequest) (*svcv1.UnmuteMemberResponse, error) {
	return &svcv1.UnmuteMemberResponse{}, e.relate(c, req.GetMemberId(), muting, false)
}

type relation int

const (
	blocking relation = iota
	muting
)

// relate turns the caller's block or mute of a member on or off. The member may have left (a
// DM with them stays): any member row will do.
func (e *Engine) relate(c Caller, target string, rel relation, on bool) error {
	verb := map[relation]string{blocking: "block", muting: "mute"}[rel]
	if !on {
		verb = "un" + verb
	}
	if target == "" {
		return invalid("member_id is required")
	}
	if target == c.ID {
		return invalid("member_id is your own id; you cannot %s yourself", verb)
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		d := tx.Snap()
		if _, err := d.caller(c); err != nil {
			return struct{}{}, err
		}
		if d.Member(target) == nil {
			return struct{}{}, notFound("member %s does not exist", target)
		}
		var ev *svcv1.Event
		switch rel {
		case blocking:
			if d.Blocked(c.ID, target) == on {
				return struct{}{}, nil
			}
			if err := tx.setBlock(c.ID, target, on); err != nil {
				return struct{}{}, err
			}
			ev = &svcv1.Event{Kind: &svcv1.Event_MemberUnblocked{MemberUnblocked: target}}
			if on {
				ev = &svcv1.Event{Kind: &svcv1.Event_MemberBlocked{MemberBlocked: target}}
			}
		case muting:
			if d.muted(c.ID, target) == on {
				return struct{}{}, nil
			}
			if err := tx.setMute(c.ID, target, on); err != nil {
				return struct{}{}, err
			}
			ev = &svcv1.Event{Kind: &svcv1.Event_MemberUnmuted{MemberUnmuted: target}}
			if on {
				ev = &svcv1.Event{Kind: &svcv1.Event_MemberMuted{MemberMuted: target}}
			}
		}
		_, err := tx.emit(toMembers(c.ID), ev)
		return struct{}{}, err
	})
	return err
}
