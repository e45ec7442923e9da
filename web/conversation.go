package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// Pins and polls (engine/pins.go, engine/polls.go): EXTENSIONS.md 2 and 4.

func (s *chatService) PinMessage(ctx context.Context, r *connect.Request[svcv1.PinMessageRequest]) (*connect.Response[svcv1.PinMessageResponse], error) {
	return call(ctx, r, s.eng.PinMessage)
}

func (s *chatService) UnpinMessage(ctx context.Context, r *connect.Request[svcv1.UnpinMessageRequest]) (*connect.Response[svcv1.UnpinMessageResponse], error) {
	return call(ctx, r, s.eng.UnpinMessage)
}

func (s *chatService) ListPins(ctx context.Context, r *connect.Request[svcv1.ListPinsRequest]) (*connect.Response[svcv1.ListPinsResponse], error) {
	return call(ctx, r, s.eng.ListPins)
}

func (s *chatService) VotePoll(ctx context.Context, r *connect.Request[svcv1.VotePollRequest]) (*connect.Response[svcv1.VotePollResponse], error) {
	return call(ctx, r, s.eng.VotePoll)
}

func (s *chatService) ClosePoll(ctx context.Context, r *connect.Request[svcv1.ClosePollRequest]) (*connect.Response[svcv1.ClosePollResponse], error) {
	return call(ctx, r, s.eng.ClosePoll)
}
