package web

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/lxzan/gws"
)

// heldConn is a hijacked connection whose writes can be held and written as one (a batch of
// events: one write to the socket, one TLS record or a few), each within a write deadline.
// The libraries write a frame at a time, each under their own lock; mu orders ours.
type heldConn struct {
	net.Conn
	timeout time.Duration

	mu   sync.Mutex
	hold bool
	// buf holds a batch's writes, in a buffer of heldBufs' while it holds any.
	buf      *[]byte
	deadline time.Time
	// released is called once, when the connection is closed (the per-address count).
	released func()
	closed   bool
}

// maxHeld is the most a held write keeps before it writes through: a batch's first bytes go
// then, the rest when the batch ends.
const maxHeld = 64 << 10

// heldBufs are the buffers of the batches being written, shared by every connection: an idle
// stream keeps none (a buffer a connection kept between batches was the most it held of its
// own). One that grew past keptHeld is let go of rather than kept for the next.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}

// keptHeld is the largest buffer heldBufs keeps.
const keptHeld = 16 << 10

func (c *heldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold && c.held()+len(p) <= maxHeld {
		if c.buf == nil {
			c.buf = heldBufs.Get().(*[]byte)
		}
		*c.buf = append(*c.buf, p...)
		return len(p), nil
	}
	if err := c.flushLocked(); err != nil {
		return 0, err
	}
	return c.writeLocked(p)
}

// held is how many bytes are held.
func (c *heldConn) held() int {
	if c.buf == nil {
		return 0
	}
	return len(*c.buf)
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

// flushLocked writes what is held, and gives its buffer back.
func (c *heldConn) flushLocked() error {
	if c.buf == nil {
		return nil
	}
	b := c.buf
	c.buf = nil
	_, err := c.writeLocked(*b)
	if cap(*b) <= keptHeld {
		*b = (*b)[:0]
		heldBufs.Put(b)
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

// wsReadBuffer is the read buffer of a hijacked /events connection: its client sends only
// pongs and a close, each a few bytes, so net/http's 4 KiB reader is not kept for it.
const wsReadBuffer = 256

// hijackHeld takes w's connection from net/http, for a WebSocket: writes go to the heldConn it
// returns, within timeout; reads through the reader it returns, net/http's while that holds
// what the client sent after its request, else a small one of its own. released, when not nil,
// is called with the connection once it is closed.
func hijackHeld(w http.ResponseWriter, timeout time.Duration, released func(net.Conn)) (*heldConn, *bufio.Reader, error) {
	raw, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, err
	}
	c := &heldConn{Conn: raw, timeout: timeout}
	if released != nil {
		c.released = func() { released(raw) }
	}
	br := brw.Reader
	if br.Buffered() == 0 {
		br = bufio.NewReaderSize(c, wsReadBuffer)
	}
	return c, br, nil
}

// wsConn is a GET /events connection, with github.com/lxzan/gws speaking the protocol (chosen
// by benchmark: docs/decisions.md, "Live events for browsers: Subscribe or WebSocket"). Its
// writes go to a heldConn: the sink holds them while it writes a batch of messages, which then
// leaves as one write.
type wsConn struct {
	c *gws.Conn
	h *wsEvents
}

// wsEvents is a connection's own part of the event handler, kept as its gws session (which
// Hearth stores nothing else in): the library calls the one handler, wsHandler, on the
// connection's reading goroutine (read).
type wsEvents struct {
	onPong func([]byte)
	err    error
}

// The session's storage holds nothing: the connection's state is wsEvents' fields.
func (*wsEvents) Len() int                     { return 0 }
func (*wsEvents) Load(string) (any, bool)      { return nil, false }
func (*wsEvents) Delete(string)                {}
func (*wsEvents) Store(string, any)            {}
func (*wsEvents) Range(func(string, any) bool) {}

// wsHandler hands gws's events to the connection's wsEvents.
type wsHandler struct{ gws.BuiltinEventHandler }

func (wsHandler) OnPong(c *gws.Conn, p []byte)   { c.Session().(*wsEvents).onPong(p) }
func (wsHandler) OnClose(c *gws.Conn, err error) { c.Session().(*wsEvents).err = err }

// wsUpgraders are the upgraders of the two subprotocols, made once: an upgrader made per
// connection left its options, its configuration and a buffer pool with each connection.
// They refuse client messages over wsReadLimit bytes (1009).
var wsUpgraders = sync.OnceValue(func() map[string]*gws.Upgrader {
	up := func(subprotocol string) *gws.Upgrader {
		return gws.NewUpgrader(wsHandler{}, &gws.ServerOption{
			SubProtocols:       []string{subprotocol},
			ReadMaxPayloadSize: wsReadLimit,
			CheckUtf8Enabled:   true,
			NewSession:         func() gws.SessionStorage { return &wsEvents{} },
		})
	}
	return map[string]*gws.Upgrader{wsProto: up(wsProto), wsJSON: up(wsJSON)}
})

// acceptWS accepts a WebSocket upgrade of r on c, hijacked from net/http with br reading it
// (hijackHeld), answering with subprotocol (wsProto or wsJSON); onPong is called, on the
// reading goroutine, with each pong's payload. On an error the library has answered the
// request and closed c.
func acceptWS(c *heldConn, br *bufio.Reader, r *http.Request, subprotocol string, onPong func([]byte)) (wsConn, error) {
	ws, err := wsUpgraders()[subprotocol].UpgradeFromConn(c, br, r)
	if err != nil {
		return wsConn{}, err
	}
	// Before the connection's first read (read), so before any pong.
	h := ws.Session().(*wsEvents)
	h.onPong = onPong
	return wsConn{ws, h}, nil
}

// write writes one data message: binary, or text.
func (c wsConn) write(binary bool, b []byte) error {
	op := gws.OpcodeText
	if binary {
		op = gws.OpcodeBinary
	}
	return c.c.WriteMessage(op, b)
}

// ping writes a ping.
func (c wsConn) ping() error { return c.c.WritePing(nil) }

// read reads the client's frames until the connection fails or closes: the library answers
// pings and the close handshake, tells OnPong of each pong, drops data messages up to the read
// limit and closes the connection on a larger one (1009).
func (c wsConn) read() error {
	c.c.ReadLoop()
	return c.h.err
}

// close sends a close frame and closes the connection (the library does, once).
func (c wsConn) close(code int, reason string) {
	c.c.WriteClose(uint16(code), []byte(reason))
}
