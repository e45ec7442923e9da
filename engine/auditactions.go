package engine

import (
	"slices"
	"strings"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The audit entries of the actions on channels, roles, settings, invites, emoji, bots and
// plugins: what each says of the change (audit.go keeps the log). Names of roles and emoji are
// in the details (every member sees them); channels are named by id only, as a moderator may
// not see the channel.

// auditRole records a role created (before nil), changed or deleted (after nil); a change
// that changed nothing is not recorded.
func auditRole(tx *Tx, c Caller, action svcv1.AuditAction, before, after *svcv1.Role) error {
	var detail string
	switch {
	case before == nil:
		detail = "role " + quoteName(after.GetName())
	case after == nil:
		detail = "role " + quoteName(before.GetName())
	default:
		changed := changedFields(before, after)
		if len(changed) == 0 {
			return nil
		}
		detail = "role " + quoteName(after.GetName()) + ": " + strings.Join(changed, ", ")
	}
	return appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, Detail: detail})
}

// rolesChange says which roles a member got and lost.
func rolesChange(d *Snapshot, before, after []string) string {
	var parts []string
	for _, id := range after {
		if !slices.Contains(before, id) {
			parts = append(parts, "+"+quoteName(d.Role(id).GetName()))
		}
	}
	for _, id := range before {
		if !slices.Contains(after, id) {
			name := id
			if r := d.Role(id); r != nil {
				name = quoteName(r.GetName())
			}
			parts = append(parts, "-"+name)
		}
	}
	return "roles " + strings.Join(parts, " ")
}

// auditChannel records a channel created (before nil) or changed; a change that changed
// nothing is not recorded. The detail names the fields changed, with slowmode's new value.
func auditChannel(tx *Tx, c Caller, before, after *svcv1.Channel) error {
	action := svcv1.AuditAction_AUDIT_ACTION_CHANNEL_UPDATED
	var detail string
	if before == nil {
		action = svcv1.AuditAction_AUDIT_ACTION_CHANNEL_CREATED
		detail = strings.ToLower(strings.TrimPrefix(after.GetKind().String(), "CHANNEL_KIND_")) + " channel"
	} else {
		changed := changedFields(before, after, "last_message_seq", "member_count")
		if len(changed) == 0 {
			return nil
		}
		for i, f := range changed {
			if f == "slowmode_s" {
				changed[i] = "slowmode_s " + itoa(int(after.GetSlowmodeS()))
			}
		}
		detail = strings.Join(changed, ", ")
	}
	return appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, ChannelId: after.GetId(), Detail: detail})
}

// auditSettings records the settings an UpdateServerSettings changed: lockdown turned on or
// off as an action of its own, the other fields by name (the moderation settings have
// UpdateModerationSettings).
func auditSettings(tx *Tx, c Caller, before, after *storepb.Settings) error {
	if before.GetLockdown() != after.GetLockdown() {
		action := svcv1.AuditAction_AUDIT_ACTION_LOCKDOWN_OFF
		if after.GetLockdown() {
			action = svcv1.AuditAction_AUDIT_ACTION_LOCKDOWN_ON
		}
		if err := appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action}); err != nil {
			return err
		}
	}
	changed := changedFields(before, after, "lockdown", "moderation", "owner_id")
	if len(changed) == 0 {
		return nil
	}
	return appendAudit(tx, &svcv1.AuditEntry{
		ActorId: c.ID,
		Action:  svcv1.AuditAction_AUDIT_ACTION_SETTINGS_CHANGED,
		Detail:  strings.Join(changed, ", "),
	})
}

// quoteName is a name in a detail.
func quoteName(s string) string { return `"` + s + `"` }

// auditInvite records an invite created or revoked, with its code and limits.
func auditInvite(tx *Tx, c Caller, action svcv1.AuditAction, inv *svcv1.Invite) error {
	detail := "invite " + inv.GetCode()
	if action == svcv1.AuditAction_AUDIT_ACTION_INVITE_CREATED {
		if n := inv.GetMaxUses(); n > 0 {
			detail += ", " + plural(int(n), "use", "uses")
		}
		if at := inv.GetExpiresAtMs(); at > 0 {
			detail += ", expires " + auditTime(at)
		}
	}
	return appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, Detail: detail})
}

// auditEmoji records emoji added (one entry for the emoji of one change) or deleted.
func auditEmoji(tx *Tx, c Caller, action svcv1.AuditAction, names []string) error {
	detail := ":" + strings.Join(names, ": :") + ":"
	if len(names) > 1 {
		detail = plural(len(names), "emoji", "emoji") + ": " + detail
	}
	return appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, Detail: detail})
}
