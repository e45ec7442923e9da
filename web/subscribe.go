package web

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

func (s *chatService) Subscribe(ctx context.Context, r *connect.Request[svcv1.SubscribeRequest], stream *connect.ServerStream[svcv1.Event]) error {
	l := requestLogOf(ctx)
	l.streamOpened(ctx, svcv1connect.ChatServiceSubscribeProcedure)
	sink := &streamSink{conn: stream.Conn()}
	if is := intakeOf(ctx); is != nil {
		sink.aw, sink.timeout = &is.aw, is.writes.timeout
		sink.aw.streaming(true)
		sink.writes = is.writes.watch(sink.aw.rc)
	}
	end, err := s.eng.Subscribe(ctx, callerOf(ctx), r.Msg.GetAfterSeq(), sink)
	if sink.aw != nil {
		is := intakeOf(ctx)
		is.writes.unwatch(sink.writes)
		// The stream's end goes out as any answer's last write does.
		sink.aw.streaming(false)
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

// streamSink is a Subscribe stream's sink (engine.Sink) on any of net/http's transports
// (HTTP/1.1, HTTP/2 over TLS, h2c): the stream's one writer hands it everything queued, and
// it writes that as one write. The frames go through Connect, as their cached encoding (see
// codec); Connect's flush after each is held back (answerWriter.holdFlushes) until the last,
// so a batch costs one flush: one write to the socket, one DATA frame's hand-off to the
// connection over HTTP/2. A batch must be written within Config.WriteTimeout (writeWatch): a
// client that does not take it in time is cut off, and the stream ends as a slow consumer.
type streamSink struct {
	conn connect.StreamingHandlerConn
	// aw and writes are nil outside the intake (a test's handler).
	aw      *answerWriter
	writes  *watchedWrites
	timeout time.Duration
}

func (k *streamSink) Write(frames []*engine.Frame) error {
	if k.aw == nil {
		for _, f := range frames {
			if err := k.conn.Send(f); err != nil {
				return err
			}
		}
		return nil
	}
	k.writes.begin()
	k.aw.holdFlushes(true)
	var err error
	for i, f := range frames {
		if i == len(frames)-1 {
			k.aw.holdFlushes(false)
		}
		if err = k.conn.Send(f); err != nil {
			break
		}
	}
	k.aw.holdFlushes(false)
	k.writes.end()
	if k.writes.cut.Load() {
		// Cut off: the stream is over, even when the write that failed was a flush, whose
		// error the handler never sees (http.Flusher), and the batch seemed to go.
		return fmt.Errorf("%w: the client did not take a write within %s (%v)", engine.ErrSlowConsumer, k.timeout, err)
	}
	return err
}
