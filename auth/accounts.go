package auth

import (
	"context"
	"errors"
	"time"
)

// Account is a person's account on the built-in issuer.
type Account struct {
	// Subject is the login's sub: a stable random id, never the username.
	Subject string
	// Username is lowercase, in the bot username alphabet, unique among accounts.
	Username    string
	DisplayName string
	Password    PasswordHash
	CreatedAt   time.Time
	// Pending is set from the sign-up until its Join succeeded: a pending account cannot sign
	// in, and once stale it gives its username back.
	Pending bool
	// TokenEpoch moves on at sign-out and at a password change: refresh tokens of an older
	// epoch are revoked.
	TokenEpoch        int64
	PasswordChangedAt time.Time
}

// PasswordHash is an argon2id hash and the parameters it was made with.
type PasswordHash struct {
	Algorithm   string
	Version     uint32
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint32
	Salt        []byte
	Hash        []byte
}

// RefreshToken is what is stored of one refresh token, under the SHA-256 of the token.
type RefreshToken struct {
	Hash     []byte
	Subject  string
	Family   string
	Epoch    int64
	ClientID string
	Scopes   []string
	IssuedAt time.Time
	Expires  time.Time
	AuthTime time.Time
	AMR      []string
	// Spent is set once the token was exchanged for the next one.
	Spent bool
	// FamilyRevoked is filled by the store when reading: the token's family was revoked.
	FamilyRevoked bool
}

// The store's answers that are not failures of the store itself.
var (
	ErrAccountNotFound = errors.New("no such account")
	ErrUsernameTaken   = errors.New("username taken")
	ErrTokenNotFound   = errors.New("no such refresh token")
	// ErrTokenSpent answers a rotation of a refresh token that was rotated already.
	ErrTokenSpent = errors.New("refresh token already used")
)

// AccountStore keeps accounts and refresh tokens. web implements it over engine/store's
// Accounts in the one database; its writes touch only keys of their own, in transactions of their own, so they
// never race the engine's writer. Every method is safe for concurrent use.
type AccountStore interface {
	// CreateAccount stores a new account under its subject and username. A username held by a
	// pending account created before staleBefore is taken over (the stale account is deleted);
	// any other holder makes it ErrUsernameTaken.
	CreateAccount(ctx context.Context, a Account, staleBefore time.Time) error
	// Account and AccountByUsername return ErrAccountNotFound when there is none.
	Account(ctx context.Context, subject string) (Account, error)
	AccountByUsername(ctx context.Context, username string) (Account, error)
	// ActivateAccount clears Pending.
	ActivateAccount(ctx context.Context, subject string) error
	// DeleteAccount deletes an account and frees its username (a sign-up whose Join was
	// refused). Deleting a missing account is fine.
	DeleteAccount(ctx context.Context, subject string) error
	// SetPassword replaces the password and moves TokenEpoch on, in one write.
	SetPassword(ctx context.Context, subject string, p PasswordHash, at time.Time) error
	// RevokeRefreshTokens moves TokenEpoch on: every refresh token of the account is revoked.
	RevokeRefreshTokens(ctx context.Context, subject string) error

	// PutRefreshToken stores a new refresh token; the store drops it after it expires.
	PutRefreshToken(ctx context.Context, t RefreshToken) error
	// RefreshToken reads one by hash, with FamilyRevoked filled; ErrTokenNotFound if none.
	RefreshToken(ctx context.Context, hash []byte) (RefreshToken, error)
	// RotateRefreshToken marks the token oldHash spent and stores next, in one transaction.
	// A token already spent (by an earlier or a concurrent rotation) is ErrTokenSpent and
	// changes nothing.
	RotateRefreshToken(ctx context.Context, oldHash []byte, next RefreshToken) error
	// RevokeFamily revokes every refresh token of a family; the mark is kept until until,
	// when no token of the family can be valid any more.
	RevokeFamily(ctx context.Context, family string, until time.Time) error
}
