package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"hearth/auth"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// mountSignIn serves the built-in issuer's discovery, keys and sign-in endpoints (when it
// runs) and the issuers document a browser client reads before it signs in (always).
func mountSignIn(mux *http.ServeMux, opts Options) {
	builtIn := ""
	if opts.Issuer != nil {
		builtIn = opts.Issuer.URL()
		mux.Handle("GET /.well-known/", opts.Issuer.Handler())
	}
	if opts.SignIn != nil {
		mux.Handle("/oauth/", opts.SignIn.Handler())
	}
	mux.Handle("GET "+auth.IssuersPath, auth.IssuersHandler(builtIn, opts.OIDCClients))
}

// SignUpCommunity is the community as the built-in issuer's sign-up sees it: what to ask, and
// the engine's Join for the new account's login (issuer, subject).
func SignUpCommunity(eng *engine.Engine, issuer string) auth.Community {
	return signUpCommunity{eng: eng, issuer: issuer}
}

type signUpCommunity struct {
	eng    *engine.Engine
	issuer string
}

func (c signUpCommunity) SignUpInfo() auth.SignUpInfo {
	info := c.eng.ServerInfo()
	return auth.SignUpInfo{Name: info.GetName(), InviteOnly: info.GetInviteOnly(), JoinQuestions: info.GetJoinQuestions(), BecomesOwner: c.eng.NextJoinBecomesOwner()}
}

func (c signUpCommunity) IsMember(subject string) bool {
	_, ok := c.eng.MemberForLogin(engine.Login{Issuer: c.issuer, Subject: subject})
	return ok
}

// Join is the Join call's engine method, with the engine's refusals turned into what the
// sign-up page shows: the message and the status the same error gets on plain endpoints.
func (c signUpCommunity) Join(ctx context.Context, j auth.JoinRequest) (string, error) {
	m, _, err := c.eng.Join(ctx, engine.JoinInput{
		Login:             engine.Login{Issuer: c.issuer, Subject: j.Subject},
		PreferredUsername: j.Username,
		Name:              j.DisplayName,
		ClientAddr:        j.ClientAddr,
		Req: &svcv1.JoinRequest{
			DisplayName: j.DisplayName,
			InviteCode:  j.InviteCode,
			Answers:     j.Answers,
		},
	})
	if err == nil {
		return m.GetUsername(), nil
	}
	return "", pageRefusal(err)
}

// CheckInvite is the engine's CheckInvite, its refusal worded for the sign-up page.
func (c signUpCommunity) CheckInvite(code string) error {
	if err := c.eng.CheckInvite(code); err != nil {
		return pageRefusal(err)
	}
	return nil
}

// pageRefusal turns an engine's refusal of a Join into what the sign-up page shows: the message
// and the status the same error gets on plain endpoints. Other errors are the server's.
func pageRefusal(err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code == engine.CodeInternal {
		return err
	}
	msg := pageMessage(ee.Msg)
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
		if !strings.HasSuffix(msg, ".") {
			msg += "."
		}
	}
	return &auth.Refusal{Status: httpStatus(err), Message: msg, RetryAfter: ee.RetryAfter, Field: joinField(ee.Msg)}
}

// pageMessage words a Join refusal for the sign-up page: the engine's messages name the
// request's fields (invite_code, answers[1]), which mean nothing to a person on the page.
func pageMessage(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "answers has "); ok {
		return "you gave " + rest
	}
	if rest, ok := strings.CutPrefix(msg, "answers["); ok {
		if i := strings.IndexByte(rest, ']'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return "answer " + strconv.Itoa(n+1) + rest[i+1:]
			}
		}
	}
	if rest, ok := strings.CutPrefix(msg, "display_name "); ok {
		return "the display name " + rest
	}
	return strings.ReplaceAll(msg, "invite_code", "the invite code")
}

// joinField is the sign-up page's field a Join refusal is about, read from the field its
// message names (the engine's messages name the request's field), so that the page puts the
// focus there; "" for a refusal about no field (banned, a plugin's gate, a rate limit).
func joinField(msg string) string {
	switch {
	case strings.Contains(msg, "invite_code"):
		return "invite"
	case strings.HasPrefix(msg, "display_name"):
		return "display_name"
	case strings.HasPrefix(msg, "answers["):
		if i := strings.IndexByte(msg, ']'); i > len("answers[") {
			return "answer" + msg[len("answers["):i]
		}
	case strings.HasPrefix(msg, "answers"):
		return "answer0"
	}
	return ""
}
