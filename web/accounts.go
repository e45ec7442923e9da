package web

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
)

// CreatePasswordResetLink: the engine checks the ranks and finds the member's login; the
// built-in issuer makes the link, when the login is one of its accounts.
func (s *serverService) CreatePasswordResetLink(ctx context.Context, r *connect.Request[svcv1.CreatePasswordResetLinkRequest]) (*connect.Response[svcv1.CreatePasswordResetLinkResponse], error) {
	caller := callerOf(ctx)
	login, err := s.eng.PasswordResetTarget(ctx, caller, r.Msg)
	if err != nil {
		noteCause(ctx, err)
		return nil, toConnect(err)
	}
	id := r.Msg.GetMemberId()
	if s.signIn == nil || login.Issuer != s.signIn.IssuerURL() {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("member %s signs in with another issuer (%s): their password is reset there", id, login.Issuer))
	}
	link, err := s.signIn.CreateResetLink(context.WithoutCancel(ctx), login.Subject, caller.ID)
	if errors.Is(err, auth.ErrNoAccount) {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("member %s has no account with a password on this server (their login was made with hearth token): there is no password to reset", id))
	}
	if err != nil {
		noteCause(ctx, err)
		return nil, connect.NewError(connect.CodeInternal, errors.New("the reset link could not be made"))
	}
	if err := s.eng.AuditPasswordResetLink(caller.ID, id); err != nil {
		// The link works, but a link the log does not show is one nobody gets.
		return nil, toConnect(err)
	}
	return connect.NewResponse(&svcv1.CreatePasswordResetLinkResponse{Url: link.URL, ExpiresAtMs: link.Expires.UnixMilli()}), nil
}
