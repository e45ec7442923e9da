package engine

import (
	"context"
	"encoding/binary"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The audit log (EXTENSIONS.md 6): one entry for every moderation and administration action,
// written by the change that does the action, in its transaction, with audit_appended to the
// moderators and higher. Entries are kept at least auditKeepDays, and never less than the
// retention keeps messages (forever when it keeps them forever); a purge on the jobs loop
// deletes the older ones, as the retention purge does messages.

const (
	// auditKeepDays is how long the audit log keeps an entry at least.
	auditKeepDays = 365
	// auditPageDefault and auditPageMax bound a page of ListAuditLog.
	auditPageDefault = 50
	auditPageMax     = 200
	// auditPurgeBatch bounds the entries one purge change deletes.
	auditPurgeBatch = 256
	// reasonMax bounds the reasons of kicks, bans and timeouts (characters).
	reasonMax = 500
	// auditDetailMax bounds an entry's detail (characters): it is made by the server, from a
	// few words and names.
	auditDetailMax = 500
	// idMax bounds the ids a call names (ids are 36 characters).
	idMax = 64
)

// appendAudit records an action in the audit log, inside the change that does it: the entry
// gets its id and time here, is stored, and goes to the moderators and higher as
// audit_appended (an entry about a channel, to those of them who see the channel: nothing of a
// channel someone cannot see reaches them, not even that it exists; ListAuditLog leaves such
// entries out too). Every action of the log calls it, with actor_id, action and whatever of
// target_member_id, channel_id, message_id, reason and detail it has.
func appendAudit(tx *Tx, entry *svcv1.AuditEntry) error {
	entry.AtMs = tx.NowMs()
	entry.Id = auditID(entry.AtMs, tx.nextSeq())
	entry.Detail = cutRunes(entry.GetDetail(), auditDetailMax)
	if err := tx.mutate().AddAudit(entry); err != nil {
		return err
	}
	aud := toModerators()
	aud.ChannelId = entry.GetChannelId()
	_, err := tx.emit(aud, &svcv1.Event{Kind: &svcv1.Event_AuditAppended{AuditAppended: entry}})
	return err
}

// auditID is a UUIDv7 of the entry's time whose counter bits are the seq of its audit_appended
// event: unique, and in the order of the log (the writer's clock never goes back, and seqs only
// grow), so the store lists entries by time from their keys alone.
func auditID(atMs, seq int64) string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[8:], uint64(seq))
	u[8] = u[8]&0x3F | 0x80 // variant 10; a seq below 2^62 keeps its bits
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(atMs))
	copy(u[0:6], ms[2:])
	u[6] = 0x70 // version 7, rand_a 0
	return u.String()
}

// toModerators is the audience of moderators, admins and the owner.
func toModerators() *storepb.Audience {
	return &storepb.Audience{Kind: storepb.Audience_KIND_MODERATORS}
}

// auditKeepMs is how long the audit log keeps entries under these settings, 0 for ever.
func auditKeepMs(s *storepb.Settings) int64 {
	days := s.GetRetentionDays()
	if days <= 0 {
		return 0
	}
	days = max(days, auditKeepDays)
	return int64(days) * 24 * time.Hour.Milliseconds()
}

// ListAuditLog lists the audit log, newest first.
func (e *Engine) ListAuditLog(ctx context.Context, c Caller, req *svcv1.ListAuditLogRequest) (*svcv1.ListAuditLogResponse, error) {
	limit := int(req.GetLimit())
	switch {
	case limit == 0:
		limit = auditPageDefault
	case limit < 1 || limit > auditPageMax:
		return nil, invalid("limit must be 1 to %d (default %d); got %d", auditPageMax, auditPageDefault, limit)
	}
	if a := req.GetAction(); a != svcv1.AuditAction_AUDIT_ACTION_UNSPECIFIED && svcv1.AuditAction_name[int32(a)] == "" {
		return nil, invalid("action %d is not an AuditAction", int32(a))
	}
	if err := checkBytes("member_id", req.GetMemberId(), idMax); err != nil {
		return nil, err
	}
	if err := checkBytes("before_id", req.GetBeforeId(), idMax); err != nil {
		return nil, err
	}
	d := e.snap.Load()
	if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "reading the audit log"); err != nil {
		return nil, err
	}
	// An entry about a channel the caller does not see is not theirs to read.
	keep := func(a *svcv1.AuditEntry) bool {
		ch := d.Channel(a.GetChannelId())
		return ch == nil || d.sees(c.ID, ch)
	}
	out := &svcv1.ListAuditLogResponse{Entries: []*svcv1.AuditEntry{}}
	err := e.db.View(func(r *store.Reader) error {
		if id := req.GetBeforeId(); id != "" {
			a, err := r.AuditEntry(id)
			if isNotFound(err) || (err == nil && !keep(a)) {
				return notFound("before_id %s is not an entry of the audit log", id)
			} else if err != nil {
				return err
			}
		}
		entries, more, err := r.Audit(store.AuditQuery{
			Before: req.GetBeforeId(),
			Action: req.GetAction(),
			Member: req.GetMemberId(),
			Limit:  limit,
			Keep:   keep,
		})
		if err != nil {
			return err
		}
		out.Entries = append(out.Entries, entries...)
		out.HasMore = more
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PurgeAuditNow deletes the audit entries past their keeping time now; the jobs loop runs it
// every minute.
func (e *Engine) PurgeAuditNow() error {
	for {
		more, err := submit(e, func(tx *Tx) (bool, error) {
			keep := auditKeepMs(tx.Snap().Settings())
			if keep == 0 {
				return false, nil
			}
			var old []*svcv1.AuditEntry
			if err := tx.read().OldAudit(tx.NowMs()-keep, auditPurgeBatch, func(a *svcv1.AuditEntry) { old = append(old, a) }); err != nil {
				return false, err
			}
			for _, a := range old {
				if err := tx.mutate().DeleteAudit(a); err != nil {
					return false, err
				}
			}
			return len(old) == auditPurgeBatch, nil
		})
		if err != nil || !more {
			return err
		}
	}
}

func (e *Engine) runAuditPurge() {
	if err := e.PurgeAuditNow(); err != nil && CodeOf(err) != CodeUnavailable {
		e.log.Error("purging the audit log", "err", err)
	}
}

// changedFields names the fields whose values differ between two messages of the same type,
// in field order, leaving out skip: what an entry's detail says was changed. Comparing
// every field, rather than a list of them, keeps the detail right as fields are added.
func changedFields(before, after proto.Message, skip ...string) []string {
	a, b := before.ProtoReflect(), after.ProtoReflect()
	var out []string
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		name := string(f.Name())
		if containsString(skip, name) {
			continue
		}
		if !a.Get(f).Equal(b.Get(f)) {
			out = append(out, name)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// auditTime is a time in an entry's detail.
func auditTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC")
}

// describeRank is a rank as an entry's detail says it.
func describeRank(r svcv1.MemberRole) string { return strings.TrimPrefix(r.String(), "MEMBER_ROLE_") }

// auditMember records an action of the caller on a member.
func auditMember(tx *Tx, c Caller, action svcv1.AuditAction, target, reason, detail string) error {
	return appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, TargetMemberId: target, Reason: reason, Detail: detail})
}
