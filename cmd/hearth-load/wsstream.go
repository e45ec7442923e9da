package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lxzan/gws"
	"google.golang.org/protobuf/encoding/protojson"

	svcv1 "hearth/proto/svc/v1"
)

// The subprotocols of GET /events (web/events.go): the codec, and the token.
const (
	wsProto  = "hearth.v1.proto"
	wsJSON   = "hearth.v1.json"
	wsBearer = "hearth.v1.bearer."
)

// openWSStream is openStream over GET /events, the browser's stream: a WebSocket of the
// stream's own (the member's connection from joining is closed first, as for h2Stream), read
// by the library's loop on a goroutine of its own, which checks each event as it comes.
func (r *run) openWSStream(phase context.Context, i int, afterSeq int64) error {
	m := r.members[i]
	m.transport.CloseIdleConnections()
	h := &wsReader{r: r, i: i, json: r.cfg.JSONCodec, first: make(chan error, 1), afterSeq: afterSeq}
	c, err := dialEvents(phase, r.cfg.URL, r.cfg.TLS, m.source, m.token, afterSeq, r.cfg.JSONCodec, h)
	if err != nil {
		return err
	}
	r.streams.readers.Go(func() {
		c.ReadLoop()
		if h.opened {
			r.streamEnded(h.end)
		}
	})
	// Until the first event arrives the phase's deadline applies; after it, the run's.
	select {
	case err = <-h.first:
	case <-phase.Done():
		err = phase.Err()
	}
	if err != nil {
		c.NetConn().Close()
		return err
	}
	context.AfterFunc(r.streams.ctx, func() { c.NetConn().Close() })
	return nil
}

// dialEvents opens GET /events on the server at base (http:// or https://) from source,
// with token and the codec's subprotocol; h reads it once its loop runs.
func dialEvents(ctx context.Context, base string, tlsConf *tls.Config, source net.IP, token string, afterSeq int64, json bool, h gws.Event) (*gws.Conn, error) {
	sub := wsProto
	if json {
		sub = wsJSON
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if source != nil {
		d.LocalAddr = &net.TCPAddr{IP: source}
	}
	wait := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	opts := &gws.ClientOption{
		Addr:             "ws" + strings.TrimPrefix(base, "http") + "/events?after_seq=" + strconv.FormatInt(afterSeq, 10),
		RequestHeader:    http.Header{"Sec-Websocket-Protocol": {sub + ", " + wsBearer + token}},
		HandshakeTimeout: wait,
		NewDialer:        func() (gws.Dialer, error) { return d, nil },
		// Events are at most a few KB; the server sends nothing larger than an event.
		ReadMaxPayloadSize: 1 << 20,
	}
	if tlsConf != nil {
		opts.TlsConfig = tlsConf.Clone()
		// A WebSocket's handshake is HTTP/1.1.
		opts.TlsConfig.NextProtos = []string{"http/1.1"}
	}
	c, res, err := gws.NewClient(h, opts)
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("GET /events: %s: %w", res.Status, err)
		}
		return nil, fmt.Errorf("GET /events: %w", err)
	}
	return c, nil
}

// wsReader checks the events of one GET /events stream; gws calls it on the stream's reading
// goroutine (ReadLoop).
type wsReader struct {
	gws.BuiltinEventHandler
	r        *run
	i        int
	json     bool
	afterSeq int64
	// first is told how the first event went (or why none came).
	first chan error
	// opened, end and ev belong to the reading goroutine (and to whoever waits for ReadLoop).
	opened bool
	end    error
	ev     eventFacts

	once sync.Once
}

func (h *wsReader) OnMessage(_ *gws.Conn, msg *gws.Message) {
	defer msg.Close()
	var err error
	if h.json {
		ev := &svcv1.Event{}
		if err = protojson.Unmarshal(msg.Bytes(), ev); err == nil {
			h.ev = factsOf(ev)
		}
	} else {
		err = h.ev.decode(msg.Bytes())
	}
	if !h.opened {
		if err == nil {
			err = firstEvent(h.ev, h.afterSeq)
		}
		h.opened = err == nil
		h.tell(err)
		return
	}
	if err != nil {
		h.r.errs.add("stream", err)
		return
	}
	h.r.receive(h.i, h.ev)
}

func (h *wsReader) OnClose(_ *gws.Conn, err error) {
	var ce *gws.CloseError
	if errors.As(err, &ce) && ce.Code == 1000 {
		err = nil
	}
	h.end = err
	if err == nil {
		err = errors.New("the stream ended before its first event")
	}
	h.tell(err)
}

// tell sends the first event's outcome, once.
func (h *wsReader) tell(err error) { h.once.Do(func() { h.first <- err }) }
