package webtest

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// CreateBot has admin (an admin or the owner) create a bot with CreateBot, and returns a client
// that calls with the bot's token.
func (s *Server) CreateBot(admin *Client, username string) *Client {
	s.t.Helper()
	res, err := admin.Bot.CreateBot(context.Background(), connect.NewRequest(&svcv1.CreateBotRequest{Username: username}))
	if err != nil {
		s.t.Fatalf("create bot %s: %v", username, err)
	}
	c := s.Client(res.Msg.GetToken())
	c.Member = res.Msg.GetBot()
	return c
}
