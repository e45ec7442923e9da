package web

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/metrics"
)

// access says what a call needs from its caller.
type access int

const (
	// needsMember: an active member (person or bot). The default.
	needsMember access = iota
	// public: nothing; no token is read.
	public
	// needsLogin: a person's valid token, member or not (Join).
	needsLogin
)

// callAccess lists the calls that are not member-only.
var callAccess = map[string]access{
	svcv1connect.ServerServiceGetServerInfoProcedure: public,
	svcv1connect.ServerServiceJoinProcedure:          needsLogin,
}

// duringSetup lists the calls anyone may make while the community needs setup; every other
// call is the owner's alone until the setup is finished.
var duringSetup = map[string]bool{
	svcv1connect.ServerServiceGetServerInfoProcedure: true,
	svcv1connect.ServerServiceGetMeProcedure:         true,
	svcv1connect.ServerServiceJoinProcedure:          true,
}

type ctxKey int

const (
	callerKey ctxKey = iota
	identityKey
)

// callerOf is the authenticated member of a call.
func callerOf(ctx context.Context) engine.Caller {
	c, _ := ctx.Value(callerKey).(engine.Caller)
	return c
}

// identityOf is the verified login of a Join call.
func identityOf(ctx context.Context) auth.Identity {
	id, _ := ctx.Value(identityKey).(auth.Identity)
	return id
}

// authenticator checks tokens for Connect calls and plain endpoints alike.
type authenticator struct {
	eng      *engine.Engine
	verifier *auth.Verifier
	metrics  *metrics.Metrics
}

// authenticate resolves the caller of a call to procedure (a Connect procedure, or a plain
// endpoint's route) and puts them in the context. Plain endpoints call it before they read
// their body. Once the caller is known, the request no longer counts among those in flight
// before authentication from its address.
func (a *authenticator) authenticate(ctx context.Context, procedure string, h http.Header) (context.Context, error) {
	need, listed := callAccess[procedure]
	if !listed {
		need = needsMember
	}
	if need == public {
		return ctx, nil
	}
	ctx, err := a.resolve(ctx, procedure, need, h)
	if err != nil {
		return nil, err
	}
	authenticated(ctx)
	return ctx, nil
}

func (a *authenticator) resolve(ctx context.Context, procedure string, need access, h http.Header) (context.Context, error) {
	token, err := auth.BearerToken(h)
	if err != nil {
		return nil, unauthenticated(err.Error())
	}
	var caller engine.Caller
	if auth.IsBotToken(token) {
		if need == needsLogin {
			return nil, denied("bots cannot join; an admin creates them with CreateBot")
		}
		c, ok := a.eng.BotForTokenHash(auth.HashBotToken(token))
		if !ok {
			return nil, unauthenticated("unknown bot token")
		}
		caller = c
	} else {
		id, exp, err := a.verifier.VerifyExpiry(ctx, token)
		if err != nil {
			return nil, unauthenticated(err.Error())
		}
		login := engine.Login{Issuer: id.Issuer, Subject: id.Subject}
		if a.eng.LoginBanned(login) {
			return nil, engine.ErrBanned
		}
		if need == needsLogin {
			return context.WithValue(ctx, identityKey, id), nil
		}
		c, ok := a.eng.MemberForLogin(login)
		if !ok {
			return nil, denied("you are not a member of this community; call Join first")
		}
		// A call is over long before its token expires; a Subscribe stream ends then.
		c.Expires = exp
		caller = c
	}
	if !duringSetup[procedure] && a.eng.NeedsSetup() && !a.eng.IsOwner(caller) {
		return nil, denied("the community is being set up; until the owner finishes, only the owner can do this")
	}
	noteMember(ctx, caller.ID)
	return context.WithValue(ctx, callerKey, caller), nil
}

// unauthenticated keeps the auth package's message, which says which check failed. The
// errors are the engine's, so that Connect calls and plain endpoints map them alike.
func unauthenticated(msg string) error {
	return &engine.Error{Code: engine.CodeUnauthenticated, Msg: msg}
}

func denied(msg string) error {
	return &engine.Error{Code: engine.CodePermissionDenied, Msg: msg}
}

// gate authenticates every Connect call once its headers are in and before any of its body
// is read (connect.WithRequestGate): a call without a valid token never gets the server to
// read, decode or hold its message. A call the intake refused (too many in flight from its
// address) is answered here too, in its own protocol. Refused calls never reach the
// interceptors, so the metrics count them and the request log writes their line here.
func (a *authenticator) gate(ctx context.Context, spec connect.Spec, _ connect.Peer, h http.Header) (context.Context, error) {
	out := ctx
	err := refusal(ctx)
	if err == nil {
		auth := func() (err error) {
			out, err = a.authenticate(ctx, spec.Procedure, h)
			return err
		}
		if spec.StreamType == connect.StreamTypeUnary {
			err = auth()
		} else {
			// Verifying a token needs a deep stack; a stream's goroutine lives as long as the
			// stream and would keep it, so the check runs on a fresh stack (see
			// engine.RunOnFreshStack).
			err = engine.RunOnFreshStack(auth)
		}
	}
	if err != nil {
		err = toConnect(err)
		if a.metrics != nil {
			a.metrics.Refused(spec.Procedure, err)
		}
		if l := requestLogOf(ctx); l != nil {
			l.logged, l.counted = true, true
			l.logCall(ctx, spec.Procedure, err)
		}
		return nil, err
	}
	return out, nil
}
