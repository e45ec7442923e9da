package web

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/h2c"
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
	live, known := streamCodec(r.Header().Get("Content-Type"), s.eng.SignURLs)
	end, err := s.eng.SubscribeTo(ctx, callerOf(ctx), r.Msg.GetAfterSeq(), trySink(aw, conn, send, live, known))
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

// tryHeld bounds what a stream gathers in its response while sending without waiting: a
// frame finding more than this held goes to the stream's goroutine.
const tryHeld = 8 << 10

// trySink is the stream's sink, with TrySend when the response can write without waiting
// (an h2c connection, h2c.NowWriter): the engine's deliverers then write its live events. A
// frame's writes only gather in the response; the last of what the stream had goes with a
// TryFlush, or straight to the socket when it is all there is (TryWrite).
//
// A frame Connect would send uncompressed (below compressMinBytes, in a codec the request's
// content type names: live) is written to the response as it would write it, the frame's cached
// encoding behind its envelope's prefix: Connect's Send, its envelope and its copies were a
// tenth of the server's work in the standard load run, once per stream per event
// (docs/performance.md). Any other frame goes through Connect, its flush held.
func trySink(aw *answerWriter, conn connect.StreamingHandlerConn, send engine.SendFunc, live codec, known bool) engine.Sink {
	sink := engine.Sink{Send: send}
	if aw == nil {
		return sink
	}
	var nw h2c.NowWriter
	for w := http.ResponseWriter(aw); nw == nil; {
		if n, ok := w.(h2c.NowWriter); ok && n.WritesNow() {
			nw = n
			break
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return sink
		}
		w = u.Unwrap()
	}
	// encoded is f as Connect's Send would write it, nil when it is Connect's to send. The
	// stream is live: its first heartbeat went out through Connect, with the answer's header.
	encoded := func(f *engine.Frame) []byte {
		if !known {
			return nil
		}
		b, err := live.enveloped(f)
		if err != nil || len(b)-envelopePrefix >= compressMinBytes {
			return nil
		}
		return b
	}
	sink.TrySend = func(f *engine.Frame, more bool) (taken, flushed bool, err error) {
		if nw.Buffered() > tryHeld {
			return false, false, nil
		}
		if aw.through == nil {
			// Connect's writes (here and on the stream's goroutine) go straight to the
			// connection's writer from now on, past the request log's and the status
			// writers, which only pass a 200's body on.
			aw.through = nw
		}
		b := encoded(f)
		if b != nil && !more {
			// The usual delivery, one frame with nothing held before it: to the socket
			// without a stop in the response's buffer.
			if taken, flushed, err = nw.TryWrite(b); taken {
				return true, flushed, err
			}
			// Not taken: it goes as any other write, which meets any failure TryWrite met.
		}
		nw.HoldWrites(true)
		if b != nil {
			// A write that fails writes nothing; Connect's Send meets the same failure and
			// reports it as it reports any.
			_, err = nw.Write(b)
		}
		if b == nil || err != nil {
			aw.holdFlushes(true)
			err = conn.Send(f)
		}
		nw.HoldWrites(false)
		if err != nil || more {
			return true, false, err
		}
		flushed, err = nw.TryFlush()
		return true, flushed, err
	}
	sink.Flush = func() error {
		aw.holdFlushes(false)
		return nw.FlushError()
	}
	return sink
}
