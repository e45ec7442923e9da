package engine

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// ClaimMember gives an imported placeholder's history to a real member. The placeholder's
// messages may be many, so the work goes in changes of claimBatch messages, each found through
// the placeholder's list (store.PlaceholderUses), rewritten and taken off the list in the same
// change. The first change marks the placeholder (Member.claimed_by), and every reader and
// every later import from then on knows where its history goes; the last one removes it. A
// claim cut short (a crash, a call that ended) is finished by the same call again, and when the
// engine opens.

// claimBatch is how many messages one change of a claim rewrites.
const claimBatch = 500

// ClaimMember gives a placeholder's messages, reactions, mentions, files and conversations to a
// member and removes the placeholder (admins and the owner).
func (e *Engine) ClaimMember(ctx context.Context, c Caller, req *svcv1.ClaimMemberRequest) (*svcv1.ClaimMemberResponse, error) {
	ph, to := req.GetPlaceholderId(), req.GetMemberId()
	if ph == "" {
		return nil, invalid("placeholder_id is required")
	}
	if to == "" {
		return nil, invalid("member_id is required")
	}
	if ph == to {
		return nil, invalid("member_id must be another member than the placeholder")
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "claiming imported members"); err != nil {
			return struct{}{}, err
		}
		p := d.active(ph)
		if p == nil {
			return struct{}{}, notFound("placeholder_id: member %s is not in this community", ph)
		}
		if !p.GetMember().GetImported() {
			return struct{}{}, invalid("placeholder_id: member %s is not an imported placeholder", ph)
		}
		m := d.active(to)
		if m == nil {
			return struct{}{}, notFound("member_id: member %s is not in this community", to)
		}
		if m.GetMember().GetImported() {
			return struct{}{}, invalid("member_id: member %s is an imported placeholder itself; claim it for a real member first", to)
		}
		switch by := p.GetMember().GetClaimedBy(); by {
		case to:
			return struct{}{}, nil
		case "":
		default:
			return struct{}{}, precondition("placeholder_id: member %s is being claimed by member %s", ph, by)
		}
		p = proto.Clone(p).(*storepb.MemberRecord)
		p.Member.ClaimedBy = to
		if err := tx.putMember(p); err != nil {
			return struct{}{}, err
		}
		if err := e.emitMemberUpdated(tx, p.GetMember()); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, appendAudit(tx, &svcv1.AuditEntry{
			ActorId: c.ID, Action: svcv1.AuditAction_AUDIT_ACTION_MEMBER_CLAIMED, TargetMemberId: to,
			Detail: "imported @" + p.GetMember().GetUsername() + " (" + ph + ")",
		})
	})
	if err != nil {
		return nil, err
	}
	if err := e.finishClaim(ph, to); err != nil {
		return nil, err
	}
	m := e.snap.Load().Member(to)
	if m == nil {
		return nil, notFound("member_id: member %s is not in this community", to)
	}
	return &svcv1.ClaimMemberResponse{Member: e.memberView(m.GetMember())}, nil
}

// finishClaim moves what remains of a placeholder's history to the member claiming it, a
// change at a time, and removes the placeholder once nothing names it.
func (e *Engine) finishClaim(ph, to string) error {
	for {
		done, err := submit(e, func(tx *Tx) (bool, error) {
			p := tx.Snap().active(ph)
			if p == nil || p.GetMember().GetClaimedBy() != to {
				return true, nil // finished meanwhile
			}
			var ids []string
			if err := tx.read().PlaceholderUses(ph, claimBatch, func(id string) { ids = append(ids, id) }); err != nil {
				return false, err
			}
			if len(ids) == 0 {
				return true, e.endClaim(tx, p, to)
			}
			// The change's one event comes after the messages: they carry its seq.
			seq := tx.nextSeq()
			for _, id := range ids {
				if err := claimMessage(tx, id, ph, to, seq); err != nil {
					return false, err
				}
				if err := tx.mutate().DeletePlaceholderUse(ph, id); err != nil {
					return false, err
				}
			}
			return false, e.emitMemberUpdated(tx, p.GetMember())
		})
		if err != nil || done {
			return err
		}
	}
}

// claimMessage rewrites one message naming a placeholder: its author, its reactions, its
// mentions, and the owner of its files.
func claimMessage(tx *Tx, id, ph, to string, seq int64) error {
	m, err := tx.read().Message(id)
	if isNotFound(err) {
		return nil // purged or deleted since
	}
	if err != nil {
		return err
	}
	m = proto.Clone(m).(*svcv1.Message)
	en, err := tx.read().Entry(m.GetChannelId(), m.GetCreatedSeq())
	if err != nil {
		return err
	}
	if m.AuthorId == ph {
		m.AuthorId, en.AuthorId = to, to
		for _, a := range m.GetAttachments() {
			u, err := tx.read().Upload(a.GetId())
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			u = proto.Clone(u).(*storepb.UploadRecord)
			u.OwnerId = to
			if err := tx.mutate().PutUpload(u); err != nil {
				return err
			}
		}
	}
	for _, r := range m.GetReactions() {
		r.MemberIds = replaceMember(r.MemberIds, ph, to)
	}
	m.Text = strings.ReplaceAll(m.Text, "<@"+ph+">", "<@"+to+">")
	en.MentionIds = replaceMember(en.MentionIds, ph, to)
	m.Seq = seq
	if err := tx.mutate().PutEntry(m.GetChannelId(), m.GetCreatedSeq(), en); err != nil {
		return err
	}
	return tx.mutate().PutMessage(m)
}

// replaceMember puts to in the place of ph in ids, once.
func replaceMember(ids []string, ph, to string) []string {
	i := slices.Index(ids, ph)
	if i < 0 {
		return ids
	}
	if slices.Contains(ids, to) {
		return slices.Delete(ids, i, i+1)
	}
	ids[i] = to
	return ids
}

// endClaim is a claim's last change: the conversations the placeholder was in become the
// member's, its source key maps to the member, its picture goes, and it leaves.
func (e *Engine) endClaim(tx *Tx, p *storepb.MemberRecord, to string) error {
	d := tx.Snap()
	ph := p.GetMember().GetId()
	for _, rec := range d.Channels() {
		ch := rec.GetChannel()
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT || !slices.Contains(ch.GetMemberIds(), ph) {
			continue
		}
		before := slices.Clone(ch.GetMemberIds())
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		rec.Channel.MemberIds = replaceMember(rec.Channel.MemberIds, ph, to)
		rec.HiddenMemberIds = slices.DeleteFunc(rec.HiddenMemberIds, func(id string) bool { return id == ph })
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
			slices.Sort(rec.Channel.MemberIds)
			tx.d.dropDM(before, ch.GetId())
		}
		if err := tx.putChannel(rec); err != nil {
			return err
		}
		tx.withholdEarlier(ch.GetId(), []string{to}, false)
		if _, err := e.channelUpdated(tx, rec, toViewers(ch.GetId())); err != nil {
			return err
		}
	}
	if key := p.GetImportSource(); key != "" {
		if err := tx.mutate().PutImported(key, &storepb.ImportedRecord{Id: to}); err != nil {
			return err
		}
	}
	if id, _, ok := parseFileRef(p.GetMember().GetAvatarUrl(), ""); ok {
		if err := tx.dropFile(id); err != nil {
			return err
		}
	}
	return e.removeMember(tx, p, storepb.MemberState_MEMBER_STATE_DELETED, "")
}

// dropDM forgets the DM key of a DM whose members change (a claim), if it still names it.
func (d *draft) dropDM(members []string, id string) {
	k := dmKey(members)
	if d.dms[k] == id {
		own(d, ownDMs, &d.dms)
		delete(d.dms, k)
	}
}

// claimedAs is who an imported member's history goes to: the member who claimed the
// placeholder, or the id itself.
func claimedAs(d *Snapshot, id string) string {
	if by := d.Member(id).GetMember().GetClaimedBy(); by != "" {
		return by
	}
	return id
}

// resumeClaims finishes, in the background, the claims a stop cut short.
func (e *Engine) resumeClaims() {
	for _, m := range e.snap.Load().activeMembers() {
		ph, to := m.GetMember().GetId(), m.GetMember().GetClaimedBy()
		if to == "" {
			continue
		}
		go func() {
			if err := e.finishClaim(ph, to); err != nil && CodeOf(err) != CodeUnavailable {
				e.log.Error("finishing a claim of an imported member", "placeholder", ph, "member", to, "err", err)
			}
		}()
	}
}
