package engine

import (
	"fmt"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// Slowmode (EXTENSIONS.md 6): in a channel with slowmode_s, a member below moderator sends at
// most one message (thread replies included) per slowmode_s. When each member last sent there
// is a row of the store (written with the message, in its change), so the rule holds across
// a batch, a restart and a restore alike; the row expires when no slowmode could need it.

// slowmodeMaxS bounds Channel.slowmode_s: 6 hours.
const slowmodeMaxS = 6 * 60 * 60

// checkSlowmode checks UpdateChannel's slowmode_s.
func checkSlowmode(req *svcv1.UpdateChannelRequest) error {
	if s := req.GetSlowmodeS(); s < 0 || s > slowmodeMaxS {
		return invalid("slowmode_s must be 0 (off) to %s seconds (6 hours); got %d", thousands(slowmodeMaxS), s)
	}
	return nil
}

// slowmode applies a channel's slowmode to a message the caller is about to send in it, inside
// the send's change: it refuses one sent too soon after the member's last, and otherwise marks
// now as their last. Call it after the send's checks, before its first write: a refusal must
// leave no trace, and the mark must not outlive a send that failed.
func slowmode(tx *Tx, c Caller, ch *svcv1.Channel) error {
	every := int64(ch.GetSlowmodeS()) * 1000
	if every <= 0 || tx.Snap().rank(c.ID) >= svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		return nil
	}
	last, err := tx.read().LastSent(ch.GetId(), c.ID)
	if err != nil {
		return err
	}
	if wait := last + every - tx.NowMs(); last > 0 && wait > 0 {
		d := time.Duration(wait) * time.Millisecond
		return &Error{
			Code: CodeResourceExhausted,
			Msg: fmt.Sprintf("slowmode: this channel takes one message every %s from each member; wait %s",
				time.Duration(every)*time.Millisecond, roundUp(d)),
			RetryAfter: d,
		}
	}
	return tx.mutate().PutLastSent(ch.GetId(), c.ID, tx.NowMs(), slowmodeMaxS*time.Second)
}
