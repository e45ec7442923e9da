package web

import (
	"context"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

func (s *chatService) Subscribe(ctx context.Context, r *connect.Request[svcv1.SubscribeRequest], stream *connect.ServerStream[svcv1.Event]) error {
	conn := stream.Conn()
	// Frames go to the connection as they are: the codec sends their cached encoding. A frame
	// with more to follow waits in the response's buffer: one flush for what the stream had.
	aw := answerWriterOf(ctx)
	send := func(f *engine.Frame, more bool) error {
		if aw != nil {
			aw.holdFlushes(more)
		}
		return conn.Send(f)
	}
	l := requestLogOf(ctx)
	l.streamOpened(ctx, svcv1connect.ChatServiceSubscribeProcedure)
	end, err := s.eng.Subscribe(ctx, callerOf(ctx), r.Msg.GetAfterSeq(), send)
	if aw != nil {
		// A send that failed with more to come left the hold on: the stream's end goes out.
		aw.holdFlushes(false)
	}
	if l != nil {
		l.end = end
		if end == engine.StreamRefused {
			l.opened = false
		}
	}
	noteCause(ctx, err)
	return toConnect(err)
}
