package h2c

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// What this server advertises and holds itself to (docs/decisions.md, "The h2c transport").
const (
	// maxHandlers is SETTINGS_MAX_CONCURRENT_STREAMS, and also the bound on handlers running
	// at once: a stream the client reset still counts until its handler returns, so opening
	// and resetting streams in a loop (CVE-2023-44487) cannot pile handlers up.
	maxHandlers = 250
	// streamWindow is the window advertised for each request body (SETTINGS_INITIAL_WINDOW_SIZE),
	// connWindow the connection's: what a client may send that no handler has read yet. As
	// net/http's 1 MB per stream; the connection's is twice that, so one stream whose handler
	// does not read cannot stall the uploads of the others.
	streamWindow = 1 << 20
	connWindow   = 2 << 20
	// headerTableSize (below) is SETTINGS_HEADER_TABLE_SIZE: the HPACK table of the client's headers
	// this server keeps per connection, once the client has acknowledged it (until then, the
	// default 4,096 bytes). Most h2c connections carry one long stream: the table saves little
	// and would be kept for the connection's life.
	// ourMaxFrameSize is SETTINGS_MAX_FRAME_SIZE (the default, not sent).
	ourMaxFrameSize = 16384
	// readBufferSize is the connection's read buffer: small, as an idle connection keeps it;
	// larger frames are read straight into the framer's buffer.
	readBufferSize = 1024
	// maxJunkPerSecond bounds the frames that cost work and carry nothing (SETTINGS, PING,
	// RST_STREAM, PRIORITY, empty DATA, refused streams); past it the connection is closed
	// with ENHANCE_YOUR_CALM.
	maxJunkPerSecond = 1000
	// drainTime is how long a connection closing after GOAWAY waits for the client to close
	// its side, so the GOAWAY is read rather than lost to a reset.
	drainTime = time.Second
	// maxWriteChunk bounds the DATA a stream writes while holding the write lock.
	maxWriteChunk = 64 << 10
)

// headerTableSize is SETTINGS_HEADER_TABLE_SIZE (see above); a variable for the conformance
// test, which also runs the two h2spec cases that assume the default against a server that
// keeps it.
var headerTableSize = func() *atomic.Uint32 {
	var v atomic.Uint32
	v.Store(1024)
	return &v
}()

// writeStall is how long one write to the socket may block (the peer is not reading) before
// the connection is closed: it holds the write lock of every stream meanwhile. A variable for
// a test of what happens once it has passed.
var writeStall = func() *atomic.Int64 {
	var v atomic.Int64
	v.Store(int64(30 * time.Second))
	return &v
}()

var errClientDisconnected = errors.New("h2c: client disconnected")

// conn is one HTTP/2 connection.
type conn struct {
	s          *Server
	nc         net.Conn
	hs         *http.Server
	handler    http.Handler
	remoteAddr string
	// base is what every request's context is made from: the server's values. Not a context
	// the connection cancels: a stream's own would then be its child, kept in a map of the
	// connection's (hundreds of bytes of every connection's memory); close cancels each.
	base context.Context

	// Read side: the reader goroutine's own.
	br        *bufio.Reader
	fr        *http2.Framer
	dec       *hpack.Decoder
	ackedOurs bool
	tableSize uint32 // SETTINGS_HEADER_TABLE_SIZE
	junk      int
	junkSince time.Time
	ctl       []ctlFrame // control frames to write once the buffered input is handled

	// Write side, under wmu: the HPACK encoder's table follows the order of the header
	// blocks on the wire, so a block is encoded and written under the same lock.
	wmu       sync.Mutex
	enc       *hpack.Encoder
	hsink     headerSink
	werr      error
	wdeadline time.Time
	stall     time.Duration // writeStall
	// unsent is what a TryFlush could not write at once, the rest of whole frames: every
	// write writes it first (writeLocked).
	unsent    []byte
	hasUnsent atomic.Bool // len(unsent) > 0, for a Flush with nothing of its own to look
	// fd is the socket's descriptor, for writes that do not wait (TryFlush, writeNow); hasFD
	// is false when the connection has none.
	fd    uintptr
	hasFD bool

	// The connection's state, under mu; cond wakes writers waiting for send window.
	mu            sync.Mutex
	cond          sync.Cond
	streams       map[uint32]*stream
	maxStreamID   uint32    // the highest stream the client opened
	maxUnserved   uint32    // the highest it opened after our GOAWAY (not served)
	recent        [8]uint32 // the last streams closed (forgetLocked)
	recentNext    uint8
	handlers      int   // handlers running
	sendWindow    int64 // the connection's send window (the client's)
	peerWindow    int64 // the client's SETTINGS_INITIAL_WINDOW_SIZE
	peerMaxFrame  int   // the client's SETTINGS_MAX_FRAME_SIZE
	recvAvail     int64 // the connection's receive window left
	recvUnsent    int64 // bytes read by handlers (or dropped) not yet given back
	closed        bool
	goingAway     bool
	goAwaySent    bool // the GOAWAY is out: the last handler to end may close our side
	ready         bool // our SETTINGS went out
	idleTimer     *time.Timer
	drainStarted  bool
	reportedState http.ConnState
}

func newConn(s *Server, nc net.Conn, ctx context.Context) *conn {
	c := &conn{
		s:            s,
		nc:           nc,
		hs:           s.HTTP,
		handler:      s.HTTP.Handler,
		remoteAddr:   nc.RemoteAddr().String(),
		streams:      make(map[uint32]*stream),
		sendWindow:   65535,
		peerWindow:   65535,
		peerMaxFrame: 16384,
		recvAvail:    connWindow,
		// serveH2 reports StateNew.
		reportedState: http.StateNew,
	}
	if c.handler == nil {
		c.handler = http.DefaultServeMux
	}
	c.cond.L = &c.mu
	c.fd, c.hasFD = socketOf(nc)
	c.base = ctx
	c.br = bufio.NewReaderSize(nc, readBufferSize)
	c.fr = http2.NewFramer(nil, c.br)
	c.fr.SetMaxReadFrameSize(ourMaxFrameSize)
	c.dec = hpack.NewDecoder(4096, nil)
	c.fr.ReadMetaHeaders = c.dec
	c.fr.MaxHeaderListSize = c.maxHeaderListSize()
	c.enc = hpack.NewEncoder(&c.hsink)
	c.tableSize = headerTableSize.Load()
	c.stall = time.Duration(writeStall.Load())
	c.enc.SetMaxDynamicTableSizeLimit(c.tableSize)
	return c
}

func (c *conn) maxHeaderListSize() uint32 {
	n := c.hs.MaxHeaderBytes
	if n <= 0 {
		n = http.DefaultMaxHeaderBytes
	}
	return uint32(n)
}

func (c *conn) idleTimeout() time.Duration {
	if c.hs.IdleTimeout > 0 {
		return c.hs.IdleTimeout
	}
	return c.hs.ReadTimeout
}

func (c *conn) logf(format string, args ...any) {
	if c.hs.ErrorLog != nil {
		c.hs.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

// serve reads and handles frames until the connection ends, then closes it.
func (c *conn) serve() {
	err := c.run()
	var ce http2.ConnectionError
	switch {
	case errors.As(err, &ce):
		c.goAwayAndDrain(http2.ErrCode(ce))
	case errors.Is(err, http2.ErrFrameTooLarge):
		c.goAwayAndDrain(http2.ErrCodeFrameSize)
	}
	c.close(errClientDisconnected)
}

// close ends the connection: every stream's handler sees its context cancelled and its body
// fail, and writers waiting for window wake to fail.
func (c *conn) close(cause error) {
	// A write in progress finishes (or fails) first, and so does the state it reports.
	c.wmu.Lock()
	c.mu.Lock()
	c.closed = true
	c.wmu.Unlock()
	if c.idleTimer != nil {
		c.idleTimer.Stop()
	}
	streams := make([]*stream, 0, len(c.streams))
	for _, st := range c.streams {
		streams = append(streams, st)
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	c.nc.Close()
	// A stream whose handler may still run is here, or was reset, which canceled its context
	// already: one forgotten as its answer ended had a handler that returned.
	for _, st := range streams {
		st.cancel(canceled(cause))
		st.body.fail(cause)
	}
}

func (c *conn) run() error {
	// Our SETTINGS and the connection's window open the server's side of the preface.
	c.queue(ctlFrame{kind: ctlSettings})
	c.queue(ctlFrame{kind: ctlWindow, id: 0, n: connWindow - 65535})
	if err := c.flushCtl(); err != nil {
		return err
	}
	c.mu.Lock()
	c.ready = true
	early := c.goingAway
	c.goingAway = false
	c.mu.Unlock()
	if early {
		// Shut down before our SETTINGS went out: the GOAWAY goes after them.
		c.shutdown()
	}
	// The client's preface ends with its SETTINGS, which must come in time.
	if t := c.hs.ReadHeaderTimeout; t > 0 {
		c.nc.SetReadDeadline(time.Now().Add(t))
	}
	f, err := c.fr.ReadFrame()
	if err != nil {
		return err
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	c.nc.SetReadDeadline(time.Time{})
	if err := c.onSettings(sf); err != nil {
		return err
	}
	c.mu.Lock()
	c.armIdle()
	c.mu.Unlock()
	for {
		if c.br.Buffered() == 0 || len(c.ctl) >= 64 {
			if err := c.flushCtl(); err != nil {
				return err
			}
		}
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.onStreamError(se)
				continue
			}
			return err
		}
		if err := c.dispatch(f); err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.onStreamError(se)
				continue
			}
			return err
		}
	}
}

func (c *conn) dispatch(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		return c.onHeaders(f)
	case *http2.DataFrame:
		return c.onData(f)
	case *http2.SettingsFrame:
		if f.IsAck() {
			if !c.ackedOurs {
				c.ackedOurs = true
				// The client applied our HEADER_TABLE_SIZE before acknowledging it: its
				// encoder evicted down to it as ours does here, so the tables stay alike.
				c.dec.SetMaxDynamicTableSize(c.tableSize)
				c.dec.SetAllowedMaxDynamicTableSize(c.tableSize)
				return nil
			}
			return c.junkFrame()
		}
		if err := c.junkFrame(); err != nil {
			return err
		}
		return c.onSettings(f)
	case *http2.PingFrame:
		if f.IsAck() {
			return c.junkFrame()
		}
		if err := c.junkFrame(); err != nil {
			return err
		}
		c.queue(ctlFrame{kind: ctlPing, ping: f.Data})
		return nil
	case *http2.WindowUpdateFrame:
		return c.onWindowUpdate(f)
	case *http2.RSTStreamFrame:
		return c.onReset(f)
	case *http2.PriorityFrame:
		if f.StreamDep == f.StreamID {
			return http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeProtocol}
		}
		return c.junkFrame()
	case *http2.GoAwayFrame:
		// The client opens no more streams; those running finish.
		c.shutdown()
		return nil
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol)
	default:
		// Unknown frame types (and PRIORITY_UPDATE) are ignored.
		return c.junkFrame()
	}
}

// junkFrame counts a frame that costs work and carries nothing.
func (c *conn) junkFrame() error {
	now := time.Now()
	if now.Sub(c.junkSince) > time.Second {
		c.junkSince, c.junk = now, 0
	}
	c.junk++
	if c.junk > maxJunkPerSecond {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	return nil
}

// onSettings takes the client's settings under the write lock (the HPACK encoder is under it)
// and acknowledges them.
func (c *conn) onSettings(f *http2.SettingsFrame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			return err
		}
		switch s.ID {
		case http2.SettingInitialWindowSize:
			return c.setPeerWindow(int64(s.Val))
		case http2.SettingMaxFrameSize:
			c.mu.Lock()
			c.peerMaxFrame = int(s.Val)
			c.mu.Unlock()
		case http2.SettingHeaderTableSize:
			c.enc.SetMaxDynamicTableSize(s.Val)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.queue(ctlFrame{kind: ctlSettingsAck})
	if _, ok := f.Value(http2.SettingInitialWindowSize); ok {
		// A new initial window may let DATA through that waited for it: the acknowledgement
		// goes now, before any such DATA can take the write lock, as the point from which the
		// client counts the new window (h2spec's 6.9.2/1 reads frames until the ACK and drops
		// the rest). Other acknowledgements wait to go with the rest of a burst's.
		return c.flushCtlLocked()
	}
	return nil
}

// setPeerWindow applies a new SETTINGS_INITIAL_WINDOW_SIZE to every open stream's send window.
func (c *conn) setPeerWindow(v int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delta := v - c.peerWindow
	c.peerWindow = v
	for _, st := range c.streams {
		st.sendWindow += delta
		if st.sendWindow > 1<<31-1 {
			return http2.ConnectionError(http2.ErrCodeFlowControl)
		}
	}
	c.cond.Broadcast()
	return nil
}

func (c *conn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.StreamID == 0 {
		c.sendWindow += int64(f.Increment)
		if c.sendWindow > 1<<31-1 {
			return http2.ConnectionError(http2.ErrCodeFlowControl)
		}
		c.cond.Broadcast()
		return nil
	}
	if f.StreamID%2 == 0 || c.idleLocked(f.StreamID) {
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	st := c.streams[f.StreamID]
	if st == nil {
		return nil // closed, or not served: a window update may cross our end of the stream
	}
	st.sendWindow += int64(f.Increment)
	if st.sendWindow > 1<<31-1 {
		return http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeFlowControl}
	}
	c.cond.Broadcast()
	return nil
}

func (c *conn) onReset(f *http2.RSTStreamFrame) error {
	c.mu.Lock()
	if f.StreamID%2 == 0 || c.idleLocked(f.StreamID) {
		c.mu.Unlock()
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	st := c.streams[f.StreamID]
	c.mu.Unlock()
	if st != nil {
		st.end(f.ErrCode, fmt.Errorf("h2c: stream reset by the client (%v)", f.ErrCode), false)
	}
	return c.junkFrame()
}

// onStreamError resets the stream; its handler, if it runs, sees its context end.
func (c *conn) onStreamError(se http2.StreamError) {
	c.mu.Lock()
	// A stream refused as it opened is closed, not idle, for the frames that follow.
	if se.StreamID%2 == 1 && se.StreamID > c.maxStreamID && !c.goingAway {
		c.maxStreamID = se.StreamID
	}
	st := c.streams[se.StreamID]
	c.mu.Unlock()
	if st != nil && (st.end(se.Code, fmt.Errorf("h2c: stream error: %v", se.Code), true) || st.wasReset()) {
		// Ended now, or reset already (its RST_STREAM is out, or the client's came).
		return
	}
	// The stream is closed, or was refused as it opened: whether its answer's last frame went
	// out before the error's frame was read or after (DATA after the client's END_STREAM: RFC
	// 9113, 5.1), the client is told the same, and what it sent before it heard is ignored.
	c.mu.Lock()
	c.rememberLocked(se.StreamID, true)
	c.mu.Unlock()
	c.queue(ctlFrame{kind: ctlReset, id: se.StreamID, code: se.Code})
}

// shutdown starts a graceful end: GOAWAY with the last stream taken, and the connection
// closes once no handler runs.
func (c *conn) shutdown() {
	c.mu.Lock()
	if c.goingAway || c.closed {
		c.mu.Unlock()
		return
	}
	c.goingAway = true
	if !c.ready {
		c.mu.Unlock()
		return
	}
	last := c.maxStreamID
	c.mu.Unlock()
	c.writeFrames(func(o *outBuf) error { return o.fr.WriteGoAway(last, http2.ErrCodeNo, nil) })
	if c.sentGoAway() {
		c.startDrain()
	}
}

// sentGoAway notes that the GOAWAY went out, and reports whether no handler runs: then the
// caller closes our side. Until then a handler that ends does not (handlerDone), or the GOAWAY
// could find the connection half closed.
func (c *conn) sentGoAway() (idle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.goAwaySent = true
	return c.handlers == 0
}

// armIdle starts the idle timer when no handler runs; mu held.
func (c *conn) armIdle() {
	t := c.idleTimeout()
	if t <= 0 || c.closed {
		return
	}
	if c.idleTimer == nil {
		c.idleTimer = time.AfterFunc(t, c.onIdle)
		return
	}
	c.idleTimer.Reset(t)
}

func (c *conn) onIdle() {
	c.mu.Lock()
	idle := c.handlers == 0
	c.mu.Unlock()
	if idle {
		c.shutdown()
	}
}

// startDrain half-closes the connection after its GOAWAY: the reader sees the client close
// its side (or drainTime pass) and ends the connection.
func (c *conn) startDrain() {
	c.mu.Lock()
	if c.drainStarted || c.closed {
		c.mu.Unlock()
		return
	}
	c.drainStarted = true
	c.mu.Unlock()
	c.wmu.Lock()
	// What a TryFlush left goes before the end: a frame is never cut short.
	if c.writeUnsent() == nil {
		if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}
	c.wmu.Unlock()
	c.nc.SetReadDeadline(time.Now().Add(drainTime))
}

// goAwayAndDrain ends the connection for an error of the client's: GOAWAY with its code,
// then the rest of what it sends is read and dropped until it closes or drainTime passes.
func (c *conn) goAwayAndDrain(code http2.ErrCode) {
	c.mu.Lock()
	last := c.maxStreamID
	c.goingAway = true
	c.mu.Unlock()
	c.ctl = c.ctl[:0]
	c.writeFrames(func(o *outBuf) error { return o.fr.WriteGoAway(last, code, nil) })
	c.sentGoAway()
	c.startDrain()
	c.drain()
}

func (c *conn) drain() {
	c.nc.SetReadDeadline(time.Now().Add(drainTime))
	io.Copy(io.Discard, c.nc)
}

// setState reports the connection's state to the ConnState hook; mu held.
func (c *conn) setState(st http.ConnState) {
	if c.hs.ConnState == nil || c.closed || c.reportedState == st {
		return
	}
	c.reportedState = st
	c.hs.ConnState(c.nc, st)
}
