package web

import (
	"context"
	"errors"
	"time"

	"hearth/auth"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// AccountSecurity is the built-in issuer's auth.SecurityStore on the database's accounts: an
// adapter between the issuer's types and the store's records, so that engine/store needs no
// auth.
func AccountSecurity(a *store.Accounts) auth.SecurityStore { return accountSecurity{a} }

type accountSecurity struct{ a *store.Accounts }

func (s accountSecurity) Security(_ context.Context, subject string) (auth.Security, error) {
	rec, err := s.a.Security(subject)
	if err != nil {
		return auth.Security{}, err
	}
	return securityOf(rec), nil
}

func (s accountSecurity) UpdateSecurity(_ context.Context, subject string, change func(*auth.Security) error) error {
	err := s.a.UpdateSecurity(subject, func(rec *storepb.AccountSecurityRecord) error {
		sec := securityOf(rec)
		if err := change(&sec); err != nil {
			return err
		}
		setSecurity(rec, sec)
		return nil
	})
	if errors.Is(err, store.ErrEmailTaken) {
		return auth.ErrEmailTaken
	}
	return err
}

func (s accountSecurity) SubjectByEmail(_ context.Context, address string) (string, error) {
	sub, err := s.a.SubjectByEmail(address)
	if errors.Is(err, store.ErrNotFound) {
		return "", auth.ErrAccountNotFound
	}
	return sub, err
}

func tokenKind(k auth.TokenKind) store.AccountTokenKind {
	switch k {
	case auth.ResetLinkToken:
		return store.ResetLinkTokens
	case auth.EmailLinkToken:
		return store.EmailLinkTokens
	}
	return store.DeviceCookieToken
}

func (s accountSecurity) PutToken(_ context.Context, kind auth.TokenKind, hash []byte, t auth.AccountToken) error {
	return s.a.PutAccountToken(tokenKind(kind), hash, &storepb.AccountTokenRecord{
		Subject:       t.Subject,
		CreatedAtMs:   t.Created.UnixMilli(),
		ExpiresAtMs:   t.Expires.UnixMilli(),
		CreatedBy:     t.CreatedBy,
		Email:         t.Email,
		Subjects:      t.Subjects,
		RemoveTwoStep: t.RemoveTwoStep,
	})
}

func (s accountSecurity) Token(_ context.Context, kind auth.TokenKind, hash []byte, take bool) (auth.AccountToken, error) {
	rec, err := s.a.AccountToken(tokenKind(kind), hash, take)
	if errors.Is(err, store.ErrNotFound) {
		return auth.AccountToken{}, auth.ErrTokenNotFound
	}
	if err != nil {
		return auth.AccountToken{}, err
	}
	return auth.AccountToken{
		Subject:       rec.GetSubject(),
		Created:       time.UnixMilli(rec.GetCreatedAtMs()),
		Expires:       time.UnixMilli(rec.GetExpiresAtMs()),
		CreatedBy:     rec.GetCreatedBy(),
		Email:         rec.GetEmail(),
		Subjects:      rec.GetSubjects(),
		RemoveTwoStep: rec.GetRemoveTwoStep(),
	}, nil
}

func (s accountSecurity) PutDevice(_ context.Context, subject string, d auth.Device) error {
	return s.a.PutDevice(subject, &storepb.DeviceRecord{
		Family:       d.Family,
		Name:         d.Name,
		CreatedAtMs:  d.Created.UnixMilli(),
		LastUsedAtMs: d.LastUsed.UnixMilli(),
		Epoch:        d.Epoch,
		ExpiresAtMs:  d.Expires.UnixMilli(),
		Device:       d.Cookie,
	})
}

func (s accountSecurity) TouchDevice(_ context.Context, subject, family string, at, expires time.Time) error {
	return s.a.TouchDevice(subject, family, at, expires)
}

func (s accountSecurity) Devices(_ context.Context, subject string) ([]auth.Device, error) {
	recs, err := s.a.Devices(subject)
	if err != nil {
		return nil, err
	}
	out := make([]auth.Device, 0, len(recs))
	for _, r := range recs {
		out = append(out, auth.Device{
			Family:   r.GetFamily(),
			Name:     r.GetName(),
			Created:  time.UnixMilli(r.GetCreatedAtMs()),
			LastUsed: time.UnixMilli(r.GetLastUsedAtMs()),
			Epoch:    r.GetEpoch(),
			Expires:  time.UnixMilli(r.GetExpiresAtMs()),
			Cookie:   r.GetDevice(),
		})
	}
	return out, nil
}

func (s accountSecurity) DeleteDevices(_ context.Context, subject string, families ...string) error {
	return s.a.DeleteDevices(subject, families...)
}

func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func timeMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func securityOf(r *storepb.AccountSecurityRecord) auth.Security {
	s := auth.Security{
		TOTPSealed:      r.GetTotpSealed(),
		TOTPEnabled:     r.GetTotpEnabled(),
		TOTPEnabledAt:   msTime(r.GetTotpEnabledAtMs()),
		TOTPLastStep:    r.GetTotpLastStep(),
		RecoveryHashes:  r.GetRecoveryHashes(),
		Email:           r.GetEmail(),
		EmailVerifiedAt: msTime(r.GetEmailVerifiedAtMs()),
	}
	for _, p := range r.GetPasskeys() {
		s.Passkeys = append(s.Passkeys, auth.Passkey{
			ID:         p.GetId(),
			Name:       p.GetName(),
			Created:    msTime(p.GetCreatedAtMs()),
			LastUsed:   msTime(p.GetLastUsedAtMs()),
			Credential: p.GetCredentialJson(),
		})
	}
	return s
}

func setSecurity(r *storepb.AccountSecurityRecord, s auth.Security) {
	r.TotpSealed = s.TOTPSealed
	r.TotpEnabled = s.TOTPEnabled
	r.TotpEnabledAtMs = timeMs(s.TOTPEnabledAt)
	r.TotpLastStep = s.TOTPLastStep
	r.RecoveryHashes = s.RecoveryHashes
	r.Email = s.Email
	r.EmailVerifiedAtMs = timeMs(s.EmailVerifiedAt)
	r.Passkeys = r.Passkeys[:0]
	for _, p := range s.Passkeys {
		r.Passkeys = append(r.Passkeys, &storepb.PasskeyRecord{
			Id:             p.ID,
			Name:           p.Name,
			CreatedAtMs:    timeMs(p.Created),
			LastUsedAtMs:   timeMs(p.LastUsed),
			CredentialJson: p.Credential,
		})
	}
}
