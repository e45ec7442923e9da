package engine

import (
	svcv1 "hearth/proto/svc/v1"
)

// AuditPasswordResetLink records in the audit log that a password reset link was made for a
// member (EXTENSIONS.md 6 and 8): by actorID (CreatePasswordResetLink), or by the server's
// operator (hearth reset-link) when actorID is empty. The link itself is the built-in issuer's,
// made outside the writer; the entry follows it.
func (e *Engine) AuditPasswordResetLink(actorID, memberID string) error {
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		return struct{}{}, appendAudit(tx, &svcv1.AuditEntry{
			ActorId:        actorID,
			Action:         svcv1.AuditAction_AUDIT_ACTION_PASSWORD_RESET_LINK_CREATED,
			TargetMemberId: memberID,
		})
	})
	return err
}
