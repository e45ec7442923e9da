package auth

import (
	"context"
	"net/http"
	"time"
)

// Community is what the built-in issuer's sign-up needs from the community it signs people up
// to. The assembly implements it with the engine (auth imports neither engine nor web).
type Community interface {
	// SignUpInfo says what the sign-up page asks for.
	SignUpInfo() SignUpInfo
	// Join makes the account's login a member, as the Join call would, and returns the
	// member's username: Join makes it unique with a numeric suffix (DECISIONS.md), so it is
	// not j.Username when a bot or another login holds that name. A refusal the person should
	// read (banned, no or a bad invite, the answers, a plugin's gate, a rate limit) is a
	// *Refusal; any other error is the server's.
	Join(ctx context.Context, j JoinRequest) (username string, err error)
	// IsMember tells whether the login (this issuer, subject) is a member now.
	IsMember(subject string) bool
	// CheckInvite tells whether an invite code would let a newcomer join now, changing
	// nothing: nil, or the *Refusal Join would give (revoked, expired, used up...).
	CheckInvite(code string) error
}

// SignUpInfo is the community as the sign-up page shows it.
type SignUpInfo struct {
	Name          string
	InviteOnly    bool
	JoinQuestions []string
	// BecomesOwner: the next person to join becomes the owner (the page tells them).
	BecomesOwner bool
}

// JoinRequest is a sign-up's Join.
type JoinRequest struct {
	// Subject is the new account's subject; the login is (this issuer, Subject).
	Subject     string
	Username    string
	DisplayName string
	InviteCode  string
	Answers     []string
	// ClientAddr is the address the sign-up came from, for Join's rate limit.
	ClientAddr string
}

// Refusal is a Join the community refused: Status is the HTTP status the sign-up page answers
// with, Message what it tells the person.
type Refusal struct {
	Status     int
	Message    string
	RetryAfter time.Duration
	// Field is the id of the form field the refusal is about (username, password, invite,
	// answer0...): the page shown again puts the focus there. Empty puts it on the message.
	Field string
}

func (r *Refusal) Error() string { return r.Message }

// refusal makes a Refusal with a status about a form field, for the page's own refusals.
func refusal(status int, field, msg string) *Refusal {
	return &Refusal{Status: status, Message: msg, Field: field}
}

// errWrongCredentials puts the focus on the password, which the page never fills back in.
var errWrongCredentials = refusal(http.StatusUnauthorized, "password", "Wrong username or password.")
