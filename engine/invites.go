package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Invites. Moderators and up create them; Join in an invite-only community takes one (admit in
// members.go counts the use inside the writer, so max_uses holds however many join at once).

const (
	inviteCodeLen      = 10
	inviteLifetimeMaxS = int64(365 * 24 * time.Hour / time.Second) // one year
	// inviteCodeInputMax bounds a code sent to Join or RevokeInvite: real ones are 10
	// characters, and the refusal repeats what was sent.
	inviteCodeInputMax = 64
)

// newInviteCode is 10 characters of A-Z and 2-7: 50 bits from crypto/rand.
func newInviteCode() string { return rand.Text()[:inviteCodeLen] }

// CreateInvite makes a new invite code.
func (e *Engine) CreateInvite(ctx context.Context, c Caller, req *svcv1.CreateInviteRequest) (*svcv1.CreateInviteResponse, error) {
	if s := req.GetExpiresInSeconds(); s < 0 || s > inviteLifetimeMaxS {
		return nil, invalid("expires_in_seconds must be 0 (never) to %s (one year); got %d", thousands(int(inviteLifetimeMaxS)), s)
	}
	if n := req.GetMaxUses(); n < 0 {
		return nil, invalid("max_uses must be 0 (no limit) or more; got %d", n)
	}
	return submit(e, func(tx *Tx) (*svcv1.CreateInviteResponse, error) {
		if _, err := tx.Snap().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "creating invites"); err != nil {
			return nil, err
		}
		code := newInviteCode()
		for {
			// Revoked codes stay stored, so a code is never handed out twice.
			_, err := tx.read().Invite(code)
			if isNotFound(err) {
				break
			}
			if err != nil {
				return nil, err
			}
			code = newInviteCode()
		}
		inv := &svcv1.Invite{
			Code:        code,
			CreatedBy:   c.ID,
			CreatedAtMs: tx.NowMs(),
			MaxUses:     req.GetMaxUses(),
		}
		if s := req.GetExpiresInSeconds(); s > 0 {
			inv.ExpiresAtMs = tx.Now().Add(time.Duration(s) * time.Second).UnixMilli()
		}
		if err := tx.mutate().PutInvite(&storepb.InviteRecord{Invite: inv}); err != nil {
			return nil, err
		}
		if err := auditInvite(tx, c, svcv1.AuditAction_AUDIT_ACTION_INVITE_CREATED, inv); err != nil {
			return nil, err
		}
		return &svcv1.CreateInviteResponse{Invite: inv}, nil
	})
}

// ListInvites lists every invite not revoked, newest first, expired and used-up ones included.
func (e *Engine) ListInvites(ctx context.Context, c Caller, _ *svcv1.ListInvitesRequest) (*svcv1.ListInvitesResponse, error) {
	if _, err := e.snap.Load().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "listing invites"); err != nil {
		return nil, err
	}
	out := &svcv1.ListInvitesResponse{}
	err := e.db.View(func(r *store.Reader) error {
		return r.Invites(func(inv *storepb.InviteRecord) error {
			if !inv.GetRevoked() {
				out.Invites = append(out.Invites, inv.GetInvite())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out.Invites, func(i, j int) bool {
		a, b := out.Invites[i], out.Invites[j]
		if a.GetCreatedAtMs() != b.GetCreatedAtMs() {
			return a.GetCreatedAtMs() > b.GetCreatedAtMs()
		}
		return a.GetCode() > b.GetCode()
	})
	return out, nil
}

// RevokeInvite stops an invite from being listed or accepted. Revoking it again is fine.
func (e *Engine) RevokeInvite(ctx context.Context, c Caller, req *svcv1.RevokeInviteRequest) (*svcv1.RevokeInviteResponse, error) {
	code := strings.ToUpper(strings.TrimSpace(req.GetCode()))
	if code == "" {
		return nil, invalid("code is required")
	}
	if err := checkLen("code", code, inviteCodeInputMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.RevokeInviteResponse, error) {
		if _, err := tx.Snap().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "revoking invites"); err != nil {
			return nil, err
		}
		inv, err := tx.read().Invite(code)
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound("invite %s does not exist", req.GetCode())
		}
		if err != nil {
			return nil, err
		}
		if inv.GetRevoked() {
			return &svcv1.RevokeInviteResponse{}, nil
		}
		inv = proto.Clone(inv).(*storepb.InviteRecord)
		inv.Revoked = true
		if err := tx.mutate().PutInvite(inv); err != nil {
			return nil, err
		}
		if err := auditInvite(tx, c, svcv1.AuditAction_AUDIT_ACTION_INVITE_REVOKED, inv.GetInvite()); err != nil {
			return nil, err
		}
		return &svcv1.RevokeInviteResponse{}, nil
	})
}

// CheckInvite tells, without a token and changing nothing, whether an invite code would let a
// newcomer join now: nil, or the refusal Join would give (no code, not a valid invite, revoked,
// expired, used up). In a community that is not invite only any code does (nil). The sign-up
// page asks it as it opens, so that a person is told before they fill in the form.
func (e *Engine) CheckInvite(code string) error {
	if !e.snap.Load().Settings().GetInviteOnly() {
		return nil
	}
	if err := checkLen("invite_code", code, inviteCodeInputMax); err != nil {
		return err
	}
	norm := strings.ToUpper(strings.TrimSpace(code))
	if norm == "" {
		return denied("this community is invite only: invite_code is required")
	}
	var inv *storepb.InviteRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		inv, err = r.Invite(norm)
		if isNotFound(err) {
			inv, err = nil, nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return inviteRefusal(inv, code, e.clock.Now().UnixMilli())
}
