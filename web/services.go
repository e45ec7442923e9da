package web

import (
	"context"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	"hearth/engine/plugins"
	svcv1 "hearth/proto/svc/v1"
)

// The Connect handlers. Each is one line: the engine does the work, call() maps its errors.
// The service types embed no Unimplemented*Handler, so that the compiler holds them to every
// call of the .proto files: a call without a handler does not build, it never answers
// `unimplemented`.

type chatService struct {
	eng *engine.Engine
}

func (s *chatService) GetState(ctx context.Context, r *connect.Request[svcv1.GetStateRequest]) (*connect.Response[svcv1.GetStateResponse], error) {
	return call(ctx, r, s.eng.GetState)
}

func (s *chatService) CreateChannel(ctx context.Context, r *connect.Request[svcv1.CreateChannelRequest]) (*connect.Response[svcv1.CreateChannelResponse], error) {
	return call(ctx, r, s.eng.CreateChannel)
}

func (s *chatService) UpdateChannel(ctx context.Context, r *connect.Request[svcv1.UpdateChannelRequest]) (*connect.Response[svcv1.UpdateChannelResponse], error) {
	return call(ctx, r, s.eng.UpdateChannel)
}

func (s *chatService) ListMessages(ctx context.Context, r *connect.Request[svcv1.ListMessagesRequest]) (*connect.Response[svcv1.ListMessagesResponse], error) {
	return call(ctx, r, s.eng.ListMessages)
}

func (s *chatService) ListMyThreads(ctx context.Context, r *connect.Request[svcv1.ListMyThreadsRequest]) (*connect.Response[svcv1.ListMyThreadsResponse], error) {
	return call(ctx, r, s.eng.ListMyThreads)
}

func (s *chatService) SendMessage(ctx context.Context, r *connect.Request[svcv1.SendMessageRequest]) (*connect.Response[svcv1.SendMessageResponse], error) {
	return call(ctx, r, s.eng.SendMessage)
}

func (s *chatService) EditMessage(ctx context.Context, r *connect.Request[svcv1.EditMessageRequest]) (*connect.Response[svcv1.EditMessageResponse], error) {
	return call(ctx, r, s.eng.EditMessage)
}

func (s *chatService) DeleteMessage(ctx context.Context, r *connect.Request[svcv1.DeleteMessageRequest]) (*connect.Response[svcv1.DeleteMessageResponse], error) {
	return call(ctx, r, s.eng.DeleteMessage)
}

func (s *chatService) React(ctx context.Context, r *connect.Request[svcv1.ReactRequest]) (*connect.Response[svcv1.ReactResponse], error) {
	return call(ctx, r, s.eng.React)
}

func (s *chatService) MarkRead(ctx context.Context, r *connect.Request[svcv1.MarkReadRequest]) (*connect.Response[svcv1.MarkReadResponse], error) {
	return call(ctx, r, s.eng.MarkRead)
}

func (s *chatService) SetTyping(ctx context.Context, r *connect.Request[svcv1.SetTypingRequest]) (*connect.Response[svcv1.SetTypingResponse], error) {
	return call(ctx, r, s.eng.SetTyping)
}

func (s *chatService) SetPresence(ctx context.Context, r *connect.Request[svcv1.SetPresenceRequest]) (*connect.Response[svcv1.SetPresenceResponse], error) {
	return call(ctx, r, s.eng.SetPresence)
}

type serverService struct {
	eng *engine.Engine
	// signIn is the built-in issuer's sign-in, nil with -no-local-issuer (accounts.go).
	signIn *auth.Provider
}

func (s *serverService) GetServerInfo(ctx context.Context, r *connect.Request[svcv1.GetServerInfoRequest]) (*connect.Response[svcv1.GetServerInfoResponse], error) {
	return connect.NewResponse(s.eng.ServerInfo()), nil
}

func (s *serverService) UpdateServerSettings(ctx context.Context, r *connect.Request[svcv1.UpdateServerSettingsRequest]) (*connect.Response[svcv1.GetServerInfoResponse], error) {
	return call(ctx, r, s.eng.UpdateServerSettings)
}

func (s *serverService) GetMe(ctx context.Context, r *connect.Request[svcv1.GetMeRequest]) (*connect.Response[svcv1.GetMeResponse], error) {
	return call(ctx, r, s.eng.GetMe)
}

func (s *serverService) Join(ctx context.Context, r *connect.Request[svcv1.JoinRequest]) (*connect.Response[svcv1.JoinResponse], error) {
	id := identityOf(ctx)
	m, created, err := s.eng.Join(ctx, engine.JoinInput{
		Login:             engine.Login{Issuer: id.Issuer, Subject: id.Subject},
		PreferredUsername: id.PreferredUsername,
		Name:              id.Name,
		ClientAddr:        clientAddr(ctx),
		Req:               r.Msg,
	})
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&svcv1.JoinResponse{Member: m, Created: created}), nil
}

func (s *serverService) UpdateProfile(ctx context.Context, r *connect.Request[svcv1.UpdateProfileRequest]) (*connect.Response[svcv1.UpdateProfileResponse], error) {
	return call(ctx, r, s.eng.UpdateProfile)
}

func (s *serverService) ListMembers(ctx context.Context, r *connect.Request[svcv1.ListMembersRequest]) (*connect.Response[svcv1.ListMembersResponse], error) {
	return call(ctx, r, s.eng.ListMembers)
}

type botService struct {
	eng     *engine.Engine
	plugins *plugins.Host
}
