package auth

import (
	"context"
	"errors"
	"time"
)

// What the built-in issuer keeps beside an account (EXTENSIONS.md, section 8): its second
// factors, its email address, the devices signed in to it, and one-time tokens (password reset
// links, address verification links, the device cookies of browsers that signed in).

// Security is an account's second factors and email address.
type Security struct {
	// TOTPSealed is the TOTP secret, sealed with the issuer's key (sealer); TOTPEnabled is set
	// once a code from it was confirmed.
	TOTPSealed    []byte
	TOTPEnabled   bool
	TOTPEnabledAt time.Time
	// TOTPLastStep is the last 30-second step a code was accepted for: a code works once.
	TOTPLastStep int64
	// RecoveryHashes are the SHA-256 of the recovery codes not used yet.
	RecoveryHashes [][]byte
	Passkeys       []Passkey
	// Email is the verified address; empty when none.
	Email           string
	EmailVerifiedAt time.Time
}

// TwoStep tells whether signing in with a password needs a second step: TOTP is on, or a
// passkey exists.
func (s Security) TwoStep() bool { return s.TOTPEnabled || len(s.Passkeys) > 0 }

// Passkey is a WebAuthn credential of an account.
type Passkey struct {
	ID       []byte
	Name     string
	Created  time.Time
	LastUsed time.Time
	// Credential is go-webauthn's Credential as JSON.
	Credential []byte
}

// TokenKind is the kind of a one-time token.
type TokenKind int

// The kinds of one-time tokens.
const (
	ResetLinkToken TokenKind = iota + 1
	EmailLinkToken
	DeviceCookieToken
)

// AccountToken is what is stored of a one-time token, under the token's SHA-256.
type AccountToken struct {
	Subject string
	Created time.Time
	Expires time.Time
	// CreatedBy is who made a reset link: a member id, "operator" or "email".
	CreatedBy string
	// Email is the address a verification link verifies.
	Email string
	// Subjects are the accounts that completed a sign-in in a browser (device cookies).
	Subjects []string
	// RemoveTwoStep: a reset link that also turns two-step sign-in off (the operator's).
	RemoveTwoStep bool
}

// Device is a signed-in device: one refresh token family.
type Device struct {
	Family   string
	Name     string
	Created  time.Time
	LastUsed time.Time
	// Epoch is the account's token epoch when the sign-in began.
	Epoch   int64
	Expires time.Time
	// Cookie is the hex SHA-256 of the device cookie of the browser that signed in.
	Cookie string
}

// ErrEmailTaken answers an UpdateSecurity that sets an address another account verified.
var ErrEmailTaken = errors.New("the email address belongs to another account")

// SecurityStore keeps what Security, AccountToken and Device describe. engine/store keeps it
// in the one database (through an adapter of the web layer), in transactions of its own.
type SecurityStore interface {
	// Security reads an account's record (empty when it has none).
	Security(ctx context.Context, subject string) (Security, error)
	// UpdateSecurity changes an account's record in one transaction; change may run more than
	// once. An Email another account holds is ErrEmailTaken and changes nothing.
	UpdateSecurity(ctx context.Context, subject string, change func(*Security) error) error
	// SubjectByEmail finds the account of a verified address (ErrAccountNotFound if none).
	SubjectByEmail(ctx context.Context, address string) (string, error)

	// PutToken stores a one-time token under its hash until its expiry.
	PutToken(ctx context.Context, kind TokenKind, hash []byte, t AccountToken) error
	// Token reads a token; take deletes it too, in the same transaction (of two takes of one
	// token, one gets ErrTokenNotFound). ErrTokenNotFound if none.
	Token(ctx context.Context, kind TokenKind, hash []byte, take bool) (AccountToken, error)

	// PutDevice stores a device until its expiry; TouchDevice records a use and a new expiry.
	PutDevice(ctx context.Context, subject string, d Device) error
	TouchDevice(ctx context.Context, subject, family string, at, expires time.Time) error
	// Devices lists an account's devices; DeleteDevices deletes those named, or all.
	Devices(ctx context.Context, subject string) ([]Device, error)
	DeleteDevices(ctx context.Context, subject string, families ...string) error
}
