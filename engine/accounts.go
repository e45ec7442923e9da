package engine

import (
	"context"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// What the built-in issuer's sign-in asks of the community (EXTENSIONS.md, section 8). The
// issuer keeps the accounts (auth); the community decides ranks, so these answer from the
// snapshot, and the assembly hands them to the issuer.

// TwoStepRequired tells whether the login's member must have TOTP or a passkey before a
// sign-in completes: their rank is ModerationSettings.require_2fa_rank or higher (unset asks it
// of nobody). A login that is no member (yet) is asked nothing.
func (e *Engine) TwoStepRequired(l Login) bool {
	d := e.snap.Load()
	min := d.Settings().GetModeration().GetRequire_2FaRank()
	if min == svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED {
		return false
	}
	m := d.memberByLogin(l.Issuer, l.Subject)
	return m != nil && m.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE && rankOf(m) >= min
}

// NextJoinBecomesOwner tells whether the next person to join becomes the owner: nobody owns
// the community yet and -owner names no login. The sign-up page says so to the first person.
func (e *Engine) NextJoinBecomesOwner() bool {
	return e.snap.Load().Settings().GetOwnerId() == "" && e.opts.Owner == nil
}

// PasswordResetTarget checks a CreatePasswordResetLink: the caller is an admin or the owner,
// the member is a person in the community of lower rank. It returns the member's login; the
// issuer of that login makes the link (or says it cannot).
func (e *Engine) PasswordResetTarget(_ context.Context, c Caller, req *svcv1.CreatePasswordResetLinkRequest) (Login, error) {
	id := req.GetMemberId()
	if id == "" {
		return Login{}, invalid("member_id is required")
	}
	d := e.snap.Load()
	me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "making password reset links")
	if err != nil {
		return Login{}, err
	}
	t := d.Member(id)
	switch t.GetState() {
	case storepb.MemberState_MEMBER_STATE_ACTIVE:
	case storepb.MemberState_MEMBER_STATE_LEFT, storepb.MemberState_MEMBER_STATE_BANNED:
		return Login{}, notFound("member %s is not in this community", id)
	default:
		return Login{}, notFound("member %s does not exist", id)
	}
	if t.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
		return Login{}, precondition("member %s is a bot: bots have tokens, not passwords (RotateBotToken)", id)
	}
	if id == c.ID {
		return Login{}, denied("a password reset link is for another member: change your own password on the account page, or ask the server's operator for `hearth reset-link`")
	}
	if rankOf(t) >= me.GetMember().GetRole() {
		return Login{}, denied("making a password reset link needs a higher rank than the member's; member %s is %s", id, article(rankName(rankOf(t))))
	}
	return Login{Issuer: t.GetIssuer(), Subject: t.GetSubject()}, nil
}
