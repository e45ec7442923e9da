package engine

import (
	"context"
	"slices"
	"sort"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Leaving, kicks, bans and ranks. Nobody acts on a member of equal or higher rank; the owner's
// rank is never given or taken here.

// LeaveCommunity takes the caller out of the community. The owner cannot leave, nor can a bot.
func (e *Engine) LeaveCommunity(ctx context.Context, c Caller, _ *svcv1.LeaveCommunityRequest) (*svcv1.LeaveCommunityResponse, error) {
	return submit(e, func(tx *Tx) (*svcv1.LeaveCommunityResponse, error) {
		me, err := tx.Snap().caller(c)
		if err != nil {
			return nil, err
		}
		if me.GetMember().GetRole() == svcv1.MemberRole_MEMBER_ROLE_OWNER {
			return nil, precondition("the owner cannot leave the community")
		}
		// A bot that left could never come back (bots do not Join) nor be deleted (DeleteBot
		// takes active bots), and would keep its username for good: bots go by DeleteBot only.
		if me.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
			return nil, precondition("a bot cannot leave the community: an admin removes it with DeleteBot")
		}
		if err := e.removeMember(tx, me, storepb.MemberState_MEMBER_STATE_LEFT, ""); err != nil {
			return nil, err
		}
		return &svcv1.LeaveCommunityResponse{}, nil
	})
}

// KickMember takes a member of lower rank out of the community; they may join again.
func (e *Engine) KickMember(ctx context.Context, c Caller, req *svcv1.KickMemberRequest) (*svcv1.KickMemberResponse, error) {
	if req.GetMemberId() == "" {
		return nil, invalid("member_id is required")
	}
	if err := checkLen("reason", req.GetReason(), reasonMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.KickMemberResponse, error) {
		target, err := moderationTarget(tx.Snap(), c, req.GetMemberId(), "kicking", false)
		if err != nil {
			return nil, err
		}
		if err := e.removeMember(tx, target, storepb.MemberState_MEMBER_STATE_LEFT, ""); err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_MEMBER_KICKED, req.GetMemberId(), req.GetReason(), ""); err != nil {
			return nil, err
		}
		return &svcv1.KickMemberResponse{}, nil
	})
}

// BanMember takes a member of lower rank out of the community and keeps their login from
// joining again until UnbanMember. A member who already left can be banned too (by their rank
// when they left), so that leaving is no way around a ban.
func (e *Engine) BanMember(ctx context.Context, c Caller, req *svcv1.BanMemberRequest) (*svcv1.BanMemberResponse, error) {
	if req.GetMemberId() == "" {
		return nil, invalid("member_id is required")
	}
	if err := checkLen("reason", req.GetReason(), reasonMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.BanMemberResponse, error) {
		target, err := moderationTarget(tx.Snap(), c, req.GetMemberId(), "banning", true)
		if err != nil {
			return nil, err
		}
		if target.GetState() == storepb.MemberState_MEMBER_STATE_BANNED {
			return &svcv1.BanMemberResponse{}, nil
		}
		target = proto.Clone(target).(*storepb.MemberRecord)
		target.BannedReason = req.GetReason()
		if err := e.removeMember(tx, target, storepb.MemberState_MEMBER_STATE_BANNED, c.ID); err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_MEMBER_BANNED, req.GetMemberId(), req.GetReason(), ""); err != nil {
			return nil, err
		}
		return &svcv1.BanMemberResponse{}, nil
	})
}

// moderationTarget finds the member a kick or ban is about, and checks the caller may act on
// them: moderator or higher, of higher rank than the target (for a banned or departed member,
// their rank when they were last in), and the target is a person.
func moderationTarget(d *Snapshot, c Caller, id, what string, departedToo bool) (*storepb.MemberRecord, error) {
	me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, what+" members")
	if err != nil {
		return nil, err
	}
	t := d.Member(id)
	switch t.GetState() {
	case storepb.MemberState_MEMBER_STATE_ACTIVE:
	case storepb.MemberState_MEMBER_STATE_LEFT, storepb.MemberState_MEMBER_STATE_BANNED:
		if !departedToo {
			return nil, notFound("member %s is not in this community", id)
		}
	default:
		return nil, notFound("member %s does not exist", id)
	}
	if rankOf(t) >= me.GetMember().GetRole() {
		return nil, denied("%s needs a higher rank than the member's; member %s is %s", what, id, article(rankName(rankOf(t))))
	}
	if t.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
		return nil, precondition("member %s is a bot: bots are removed with DeleteBot", id)
	}
	return t, nil
}

// rankOf is a member's rank; for one who left or was banned, their rank when they were last in
// (a member row keeps its rank until the member joins again).
func rankOf(m *storepb.MemberRecord) svcv1.MemberRole { return m.GetMember().GetRole() }

func article(rank string) string {
	if rank == "admin" || rank == "owner" {
		return "an " + rank
	}
	return "a " + rank
}

// removeMember records that a member left, was kicked or was banned. An active member also
// leaves every private channel (the remaining members get channel_updated) and every OPT_IN
// channel they joined (someone who comes back starts over), and the others get member_left; the
// member's own streams end with it, and their push subscriptions are deleted. DMs keep them in member_ids: the conversation stays readable
// history for the others. A member who had already left only changes state.
func (e *Engine) removeMember(tx *Tx, rec *storepb.MemberRecord, state storepb.MemberState, by string) error {
	d := tx.Snap()
	id := rec.GetMember().GetId()
	wasActive := rec.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE
	rec = proto.Clone(rec).(*storepb.MemberRecord)
	rec.State = state
	if wasActive {
		rec.LeftAtMs = tx.NowMs()
	}
	if state == storepb.MemberState_MEMBER_STATE_BANNED {
		rec.BannedBy = by
		rec.BannedAtMs = tx.NowMs()
		rec.BannedProfile = proto.Clone(rec.GetMember()).(*svcv1.Member)
	}
	if err := tx.putMember(rec); err != nil {
		return err
	}
	if !wasActive {
		return nil
	}
	for _, ch := range d.Channels() {
		chID := ch.GetChannel().GetId()
		switch ch.GetChannel().GetKind() {
		case svcv1.ChannelKind_CHANNEL_KIND_PRIVATE:
			if !slices.Contains(ch.GetChannel().GetMemberIds(), id) {
				continue
			}
			ch = proto.Clone(ch).(*storepb.ChannelRecord)
			ch.Channel.MemberIds = slices.DeleteFunc(ch.Channel.MemberIds, func(m string) bool { return m == id })
			if err := tx.putChannel(ch); err != nil {
				return err
			}
			if _, err := e.channelUpdated(tx, ch, toViewers(chID)); err != nil {
				return err
			}
		case svcv1.ChannelKind_CHANNEL_KIND_TEXT:
			if d.Joined(chID, id) {
				if err := tx.setJoined(chID, id, false); err != nil {
					return err
				}
			}
		}
	}
	// Their devices stop being theirs here: a member who comes back subscribes again, so that no
	// device left behind (a shared or a sold phone) hears the community after a rejoin.
	var subs []*storepb.PushSubscriptionRecord
	if err := tx.read().PushSubscriptions(id, func(s *storepb.PushSubscriptionRecord) error {
		subs = append(subs, s)
		return nil
	}); err != nil {
		return err
	}
	for _, s := range subs {
		if err := tx.mutate().DeletePushSubscription(s); err != nil {
			return err
		}
	}
	left := toEveryone()
	left.ExceptMemberIds = []string{id}
	if _, err := tx.emit(left, &svcv1.Event{Kind: &svcv1.Event_MemberLeft{MemberLeft: id}}); err != nil {
		return err
	}
	tx.afterCommit(func() { e.presence.forget(id) })
	return nil
}

// UnbanMember lets a banned login join again. Moderator or higher, of higher rank than the
// member was when banned.
func (e *Engine) UnbanMember(ctx context.Context, c Caller, req *svcv1.UnbanMemberRequest) (*svcv1.UnbanMemberResponse, error) {
	id := req.GetMemberId()
	if id == "" {
		return nil, invalid("member_id is required")
	}
	return submit(e, func(tx *Tx) (*svcv1.UnbanMemberResponse, error) {
		d := tx.Snap()
		me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "unbanning members")
		if err != nil {
			return nil, err
		}
		t := d.Member(id)
		if t.GetState() != storepb.MemberState_MEMBER_STATE_BANNED {
			return nil, notFound("member %s is not banned", id)
		}
		if rankOf(t) >= me.GetMember().GetRole() {
			return nil, denied("unbanning needs a higher rank than the member's; member %s was %s", id, article(rankName(rankOf(t))))
		}
		t = proto.Clone(t).(*storepb.MemberRecord)
		t.State = storepb.MemberState_MEMBER_STATE_LEFT
		t.BannedBy, t.BannedAtMs, t.BannedProfile, t.BannedReason = "", 0, nil, ""
		if err := tx.putMember(t); err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_MEMBER_UNBANNED, id, "", ""); err != nil {
			return nil, err
		}
		return &svcv1.UnbanMemberResponse{}, nil
	})
}

// ListBans lists every ban, newest first, with the profile at ban time.
func (e *Engine) ListBans(ctx context.Context, c Caller, _ *svcv1.ListBansRequest) (*svcv1.ListBansResponse, error) {
	d := e.snap.Load()
	if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "listing bans"); err != nil {
		return nil, err
	}
	out := &svcv1.ListBansResponse{}
	for _, m := range d.members {
		if m.GetState() != storepb.MemberState_MEMBER_STATE_BANNED {
			continue
		}
		profile := proto.Clone(m.GetBannedProfile()).(*svcv1.Member)
		// A banned login is never online.
		profile.Presence = svcv1.Presence_PRESENCE_OFFLINE
		out.Bans = append(out.Bans, &svcv1.Ban{Member: profile, BannedBy: m.GetBannedBy(), BannedAtMs: m.GetBannedAtMs(), Reason: m.GetBannedReason()})
	}
	sort.Slice(out.Bans, func(i, j int) bool {
		a, b := out.Bans[i], out.Bans[j]
		if a.GetBannedAtMs() != b.GetBannedAtMs() {
			return a.GetBannedAtMs() > b.GetBannedAtMs()
		}
		return a.GetMember().GetId() > b.GetMember().GetId()
	})
	return out, nil
}

// SetMemberRole changes a member's rank: admin or owner, on a member of lower rank, to a rank
// lower than the caller's (MEMBER, MODERATOR or ADMIN).
func (e *Engine) SetMemberRole(ctx context.Context, c Caller, req *svcv1.SetMemberRoleRequest) (*svcv1.SetMemberRoleResponse, error) {
	id, role := req.GetMemberId(), req.GetRole()
	if id == "" {
		return nil, invalid("member_id is required")
	}
	switch role {
	case svcv1.MemberRole_MEMBER_ROLE_MEMBER, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, svcv1.MemberRole_MEMBER_ROLE_ADMIN:
	default:
		return nil, invalid("role must be MEMBER_ROLE_MEMBER, MEMBER_ROLE_MODERATOR or MEMBER_ROLE_ADMIN; got %s", role)
	}
	return submit(e, func(tx *Tx) (*svcv1.SetMemberRoleResponse, error) {
		d := tx.Snap()
		me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "changing ranks")
		if err != nil {
			return nil, err
		}
		t := d.active(id)
		if t == nil {
			return nil, notFound("member %s is not in this community", id)
		}
		mine := me.GetMember().GetRole()
		if t.GetMember().GetRole() >= mine {
			return nil, denied("changing a rank needs a higher rank than the member's; member %s is %s", id, article(rankName(t.GetMember().GetRole())))
		}
		if role >= mine {
			return nil, denied("you can only give a rank lower than your own; %s is not", rankName(role))
		}
		if t.GetMember().GetRole() == role {
			return &svcv1.SetMemberRoleResponse{Member: e.memberView(t.GetMember())}, nil
		}
		// Admins see every TEXT channel, so a rank change to or from admin changes what the
		// member sees of the role-limited ones.
		before := memberVisibility(d, id)
		detail := "rank " + describeRank(t.GetMember().GetRole()) + " -> " + describeRank(role)
		t = proto.Clone(t).(*storepb.MemberRecord)
		t.Member.Role = role
		if err := tx.putMember(t); err != nil {
			return nil, err
		}
		if err := e.emitMemberUpdated(tx, t.GetMember()); err != nil {
			return nil, err
		}
		if _, err := e.announceVisibility(tx, before); err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_MEMBER_RANK_CHANGED, id, "", detail); err != nil {
			return nil, err
		}
		return &svcv1.SetMemberRoleResponse{Member: e.memberView(t.GetMember())}, nil
	})
}
