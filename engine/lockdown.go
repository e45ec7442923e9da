package engine

import "hearth/engine/store/storepb"

// Lockdown (EXTENSIONS.md 6): while Settings.lockdown is on, Join is refused to anyone who is
// not already a member, whatever invite they bring; members (and bots, which never Join) go on
// as before. Join checks it before it asks the plugins, and again in its change.

// errLockdown is Join's refusal during a lockdown.
var errLockdown = &Error{Code: CodeFailedPrecondition, Msg: "this community is closed to new members for now (lockdown); try again later"}

// lockedOut refuses a Join during a lockdown by a login that is not an active member (rec, nil
// for a login never seen). A banned login is left to the ban's refusal.
func lockedOut(s *storepb.Settings, rec *storepb.MemberRecord) error {
	if !s.GetLockdown() {
		return nil
	}
	switch rec.GetState() {
	case storepb.MemberState_MEMBER_STATE_ACTIVE, storepb.MemberState_MEMBER_STATE_BANNED:
		return nil
	}
	return errLockdown
}
