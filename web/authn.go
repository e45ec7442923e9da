package web

import (
	"context"
	"net"
	"net/http"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	"hearth/proto/svc/v1/svcv1connect"
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
}

// authenticate resolves the caller of a call to procedure (a Connect procedure, or a plain
// endpoint's route) and puts them in the context.
func (a *authenticator) authenticate(ctx context.Context, procedure string, h http.Header) (context.Context, error) {
	need, listed := callAccess[procedure]
	if !listed {
		need = needsMember
	}
	if need == public {
		return ctx, nil
	}
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
		id, err := a.verifier.Verify(ctx, token)
		if err != nil {
			return nil, unauthenticated(err.Error())
		}
		if need == needsLogin {
			return context.WithValue(ctx, identityKey, id), nil
		}
		login := engine.Login{Issuer: id.Issuer, Subject: id.Subject}
		c, ok := a.eng.MemberForLogin(login)
		if !ok {
			if a.eng.LoginBanned(login) {
				return nil, denied("this login is banned from the community")
			}
			return nil, denied("you are not a member of this community; call Join first")
		}
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

// interceptor authenticates every Connect call, unary and streaming.
type interceptor struct{ a *authenticator }

func (i interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx, err := i.a.authenticate(ctx, req.Spec().Procedure, req.Header())
		if err != nil {
			return nil, toConnect(err)
		}
		return next(withPeer(ctx, req.Peer()), req)
	}
}

func (i interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		// Verifying a token needs a deep stack; a stream's goroutine lives as long as the
		// stream and would keep it, so the check runs on a fresh stack (see engine.RunOnFreshStack).
		err := engine.RunOnFreshStack(func() (err error) {
			ctx, err = i.a.authenticate(ctx, conn.Spec().Procedure, conn.RequestHeader())
			return err
		})
		if err != nil {
			return toConnect(err)
		}
		return next(withPeer(ctx, conn.Peer()), conn)
	}
}

const peerKey ctxKey = 100

func withPeer(ctx context.Context, p connect.Peer) context.Context {
	return context.WithValue(ctx, peerKey, p.Addr)
}

// clientAddr is the host the call came from (for per-address rate limits).
func clientAddr(ctx context.Context) string {
	addr, _ := ctx.Value(peerKey).(string)
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
