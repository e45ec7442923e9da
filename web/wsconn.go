package web

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/lxzan/gws"
)

// wsConn is a WebSocket connection as the events endpoint uses it, whichever library speaks
// the protocol (wsLibrary). Its writes go to a heldConn: the writer holds them while it writes
// a batch of messages, which then leaves as one write.
type wsConn interface {
	// write writes one data message: binary, or text.
	write(binary bool, b []byte) error
	// ping writes a ping carrying p.
	ping(p []byte) error
	// read reads the client's frames until the connection fails or closes: the library
	// answers pings and the close handshake, onPong is told of each pong, data messages up to
	// the read limit are dropped, a larger one closes the connection (1009).
	read() error
	// close sends a close frame and closes the connection.
	close(code int, reason string)
}

// wsLibrary accepts a WebSocket upgrade on w, answering with subprotocol and refusing client
// messages over readLimit bytes; onPong is called, on the reading goroutine, with each
// pong's payload. w's Hijack gives the library a heldConn.
type wsLibrary interface {
	accept(w http.ResponseWriter, r *http.Request, subprotocol string, readLimit int, onPong func([]byte)) (wsConn, error)
}

// heldConn is a hijacked connection whose writes can be held and written as one (a batch of
// events: one write to the socket, one TLS record or a few), each within a write deadline.
// The libraries write a frame at a time, each under their own lock; mu orders ours.
type heldConn struct {
	net.Conn
	timeout time.Duration

	mu       sync.Mutex
	hold     bool
	buf      []byte
	deadline time.Time
	// released is called once, when the connection is closed (the per-address count).
	released func()
	closed   bool
}

// maxHeld is the most a held write keeps before it writes through: a batch's first bytes go
// then, the rest when the batch ends.
const maxHeld = 64 << 10

// keptHeld is the largest buffer a connection keeps between batches.
const keptHeld = 4 << 10

func (c *heldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold && len(c.buf)+len(p) <= maxHeld {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if err := c.flushLocked(); err != nil {
		return 0, err
	}
	return c.writeLocked(p)
}

// holdWrites holds the writes that follow, until release.
func (c *heldConn) holdWrites() {
	c.mu.Lock()
	c.hold = true
	c.mu.Unlock()
}

// release writes what was held, as one write.
func (c *heldConn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hold = false
	return c.flushLocked()
}

func (c *heldConn) flushLocked() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.writeLocked(c.buf)
	if cap(c.buf) > keptHeld {
		c.buf = nil
	} else {
		c.buf = c.buf[:0]
	}
	return err
}

// writeLocked writes p within the write deadline, moved to now+timeout before a write when
// the one set is less than half of that away (as answerWriter does): a write that cannot go
// is cut off between half a timeout and a timeout after it began.
func (c *heldConn) writeLocked(p []byte) (int, error) {
	if now := time.Now(); c.deadline.Sub(now) < c.timeout/2 {
		c.deadline = now.Add(c.timeout)
		c.Conn.SetWriteDeadline(c.deadline)
	}
	return c.Conn.Write(p)
}

// Close closes the connection, and gives back its place among its address's connections.
func (c *heldConn) Close() error {
	c.mu.Lock()
	first := !c.closed
	c.closed = true
	c.mu.Unlock()
	err := c.Conn.Close()
	if first && c.released != nil {
		c.released()
	}
	return err
}

// hijackWriter gives whoever hijacks the connection a heldConn.
type hijackWriter struct {
	http.ResponseWriter
	timeout  time.Duration
	released func(net.Conn)
	conn     *heldConn
}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	raw, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &heldConn{Conn: raw, timeout: w.timeout}
	if w.released != nil {
		w.conn.released = func() { w.released(raw) }
	}
	// What the client sent after its request stays in the reader; writes go to the heldConn.
	return w.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.conn, 4<<10)), nil
}

func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// coderLibrary is github.com/coder/websocket.
type coderLibrary struct{}

type coderConn struct{ c *websocket.Conn }

func (coderLibrary) accept(w http.ResponseWriter, r *http.Request, subprotocol string, readLimit int, onPong func([]byte)) (wsConn, error) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{subprotocol},
		// The endpoint checks the origin itself, as CORS does (eventsOrigin).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
		OnPongReceived:     func(_ context.Context, p []byte) { onPong(p) },
	})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(int64(readLimit))
	return coderConn{c}, nil
}

func (c coderConn) write(binary bool, b []byte) error {
	typ := websocket.MessageText
	if binary {
		typ = websocket.MessageBinary
	}
	// No context with a deadline: the heldConn's deadline bounds the write, without a timer
	// per message.
	return c.c.Write(context.Background(), typ, b)
}

func (c coderConn) ping([]byte) error {
	// coder's Ping writes the ping and waits for its pong, which the reading goroutine reads:
	// it waits on a goroutine of its own, for a moment, so that the writer does not. The
	// endpoint's read deadline, cleared by the pong (onPong), is what ends a silent client.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), coderPingWait)
		defer cancel()
		c.c.Ping(ctx)
	}()
	return nil
}

// coderPingWait bounds the goroutine that waits for a pong (see coderConn.ping).
const coderPingWait = 30 * time.Second

func (c coderConn) read() error {
	for {
		_, _, err := c.c.Read(context.Background())
		if err != nil {
			return err
		}
	}
}

func (c coderConn) close(code int, reason string) {
	c.c.Close(websocket.StatusCode(code), reason)
}

// gwsLibrary is github.com/lxzan/gws.
type gwsLibrary struct{}

type gwsConn struct {
	c *gws.Conn
	h *gwsEvents
}

// gwsEvents are a connection's event handler: gws calls it from the reading goroutine.
type gwsEvents struct {
	gws.BuiltinEventHandler
	onPong func([]byte)
	err    error
	done   chan struct{}
}

func (e *gwsEvents) OnPong(_ *gws.Conn, p []byte) { e.onPong(p) }
func (e *gwsEvents) OnClose(_ *gws.Conn, err error) {
	e.err = err
	close(e.done)
}

func (gwsLibrary) accept(w http.ResponseWriter, r *http.Request, subprotocol string, readLimit int, onPong func([]byte)) (wsConn, error) {
	h := &gwsEvents{onPong: onPong, done: make(chan struct{})}
	up := gws.NewUpgrader(h, &gws.ServerOption{
		SubProtocols:       []string{subprotocol},
		ReadMaxPayloadSize: readLimit,
		CheckUtf8Enabled:   true,
	})
	c, err := up.Upgrade(w, r)
	if err != nil {
		return nil, err
	}
	return gwsConn{c, h}, nil
}

func (c gwsConn) write(binary bool, b []byte) error {
	op := gws.OpcodeText
	if binary {
		op = gws.OpcodeBinary
	}
	return c.c.WriteMessage(op, b)
}

func (c gwsConn) ping(p []byte) error { return c.c.WritePing(p) }

func (c gwsConn) read() error {
	c.c.ReadLoop()
	<-c.h.done
	return c.h.err
}

func (c gwsConn) close(code int, reason string) {
	c.c.WriteClose(uint16(code), []byte(reason))
}
