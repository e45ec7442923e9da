package web

import (
	"context"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
)

// The bot calls of BotService. Tokens are made here, with auth's generator: the engine gets
// only their hashes, and the token itself leaves the server once, in the response.

func (s *botService) CreateBot(ctx context.Context, r *connect.Request[svcv1.CreateBotRequest]) (*connect.Response[svcv1.CreateBotResponse], error) {
	token, hash, err := auth.NewBotToken()
	if err != nil {
		return nil, toConnect(err)
	}
	bot, err := s.eng.CreateBot(ctx, callerOf(ctx), r.Msg, hash)
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&svcv1.CreateBotResponse{Bot: bot, Token: token}), nil
}

func (s *botService) ListBots(ctx context.Context, r *connect.Request[svcv1.ListBotsRequest]) (*connect.Response[svcv1.ListBotsResponse], error) {
	return call(ctx, r, s.eng.ListBots)
}

func (s *botService) DeleteBot(ctx context.Context, r *connect.Request[svcv1.DeleteBotRequest]) (*connect.Response[svcv1.DeleteBotResponse], error) {
	return call(ctx, r, s.eng.DeleteBot)
}

func (s *botService) RotateBotToken(ctx context.Context, r *connect.Request[svcv1.RotateBotTokenRequest]) (*connect.Response[svcv1.RotateBotTokenResponse], error) {
	token, hash, err := auth.NewBotToken()
	if err != nil {
		return nil, toConnect(err)
	}
	if err := s.eng.RotateBotToken(ctx, callerOf(ctx), r.Msg, hash); err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&svcv1.RotateBotTokenResponse{Token: token}), nil
}
