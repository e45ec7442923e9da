package engine

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Timeouts (EXTENSIONS.md 6). A timed-out member reads as before but puts nothing new before
// anyone until the timeout ends: every call that would (send, edit, react, vote, pin, start a
// DM, type, report) asks checkNotTimedOut first. The timeout lives on the member row
// (Member.timed_out_until_ms), so leaving and coming back keeps it, and it ends by itself: a
// time in the past is no timeout (views show 0).

const (
	timeoutMinS = 60
	timeoutMaxS = 28 * 24 * 60 * 60 // 2,419,200: 28 days
)

// checkNotTimedOut refuses an action of a member who is timed out at now, saying when the
// timeout ends. Every call that a timeout stops calls it, with the member as its change (or,
// outside the writer, the Snapshot) sees them.
func checkNotTimedOut(m *svcv1.Member, now time.Time) error {
	until := m.GetTimedOutUntilMs()
	if until <= now.UnixMilli() {
		return nil
	}
	left := time.Duration(until-now.UnixMilli()) * time.Millisecond
	return denied("you are timed out until %s (%s from now): until then you can read, but not send, edit, react, vote, pin, start DMs, type, report or join voice",
		auditTime(until), roundUp(left))
}

// roundUp rounds a wait up to the second (at least one), as people read it.
func roundUp(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}

// timedOutView clears a timeout that has ended, for the views of a member.
func timedOutView(m *svcv1.Member, now time.Time) {
	if m.GetTimedOutUntilMs() <= now.UnixMilli() {
		m.TimedOutUntilMs = 0
	}
}

// TimeoutMember times a member out, changes the timeout, or ends it (duration_s 0).
func (e *Engine) TimeoutMember(ctx context.Context, c Caller, req *svcv1.TimeoutMemberRequest) (*svcv1.TimeoutMemberResponse, error) {
	id := req.GetMemberId()
	if id == "" {
		return nil, invalid("member_id is required")
	}
	if s := req.GetDurationS(); s != 0 && (s < timeoutMinS || s > timeoutMaxS) {
		return nil, invalid("duration_s must be %d to %s seconds (28 days), or 0 to end a timeout; got %d", timeoutMinS, thousands(timeoutMaxS), s)
	}
	if err := checkLen("reason", req.GetReason(), reasonMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.TimeoutMemberResponse, error) {
		d := tx.Snap()
		me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "timing members out")
		if err != nil {
			return nil, err
		}
		t := d.active(id)
		if t == nil {
			return nil, notFound("member %s is not in this community", id)
		}
		// As for a kick: nobody acts on a member of equal or higher rank (bots included: a bot
		// that misbehaves can be timed out too).
		if rankOf(t) >= me.GetMember().GetRole() {
			return nil, denied("timing out needs a higher rank than the member's; member %s is %s", id, article(rankName(rankOf(t))))
		}
		now := tx.NowMs()
		var until int64
		detail := "ended"
		if s := req.GetDurationS(); s > 0 {
			until = now + s*1000
			detail = "until " + auditTime(until) + " (" + (time.Duration(s) * time.Second).String() + ")"
		} else if t.GetMember().GetTimedOutUntilMs() <= now {
			// Nothing runs to end.
			return &svcv1.TimeoutMemberResponse{Member: e.memberView(t.GetMember())}, nil
		}
		t = proto.Clone(t).(*storepb.MemberRecord)
		t.Member.TimedOutUntilMs = until
		if err := tx.putMember(t); err != nil {
			return nil, err
		}
		if err := e.emitMemberUpdated(tx, t.GetMember()); err != nil {
			return nil, err
		}
		err = appendAudit(tx, &svcv1.AuditEntry{
			ActorId:        c.ID,
			Action:         svcv1.AuditAction_AUDIT_ACTION_MEMBER_TIMED_OUT,
			TargetMemberId: id,
			Reason:         req.GetReason(),
			Detail:         detail,
		})
		if err != nil {
			return nil, err
		}
		return &svcv1.TimeoutMemberResponse{Member: e.memberView(t.GetMember())}, nil
	})
}
