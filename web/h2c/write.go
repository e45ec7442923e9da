package h2c

import (
	"os"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// outBuf collects the frames of one write to the socket. It comes from a pool for the write
// and goes back after, so an idle connection keeps no write buffer.
type outBuf struct {
	b  []byte
	hb []byte // the header block being encoded
	fr *http2.Framer
}

func (o *outBuf) Write(p []byte) (int, error) {
	o.b = append(o.b, p...)
	return len(p), nil
}

var outPool = sync.Pool{New: func() any {
	o := &outBuf{b: make([]byte, 0, 4096)}
	o.fr = http2.NewFramer(o, nil)
	return o
}}

// maxPooled is the largest buffer given back to the pool; larger ones (a big flush) go.
const maxPooled = 256 << 10

func getOut() *outBuf { return outPool.Get().(*outBuf) }

func putOut(o *outBuf) {
	if cap(o.b) > maxPooled || cap(o.hb) > maxPooled {
		return
	}
	o.b, o.hb = o.b[:0], o.hb[:0]
	outPool.Put(o)
}

// headerSink is the HPACK encoder's output: the outBuf of the write in progress.
type headerSink struct{ o *outBuf }

func (h *headerSink) Write(p []byte) (int, error) {
	h.o.hb = append(h.o.hb, p...)
	return len(p), nil
}

// writeFrames takes the write lock, lets fill put frames in a pooled buffer and writes them
// to the socket in one write. A write that fails or stalls past writeStall closes the
// connection: a frame may have gone out in part.
func (c *conn) writeFrames(fill func(o *outBuf) error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(fill)
}

func (c *conn) writeLocked(fill func(o *outBuf) error) error {
	if err := c.writeUnsent(); err != nil {
		return err
	}
	o := getOut()
	defer putOut(o)
	if err := fill(o); err != nil {
		return err
	}
	if len(o.b) == 0 {
		return nil
	}
	c.moveDeadline()
	return c.write(o.b)
}

// writeUnsent writes the rest of the frames a TryFlush began, before anything else goes (and
// whether or not anything else does); wmu held.
func (c *conn) writeUnsent() error {
	if c.werr != nil {
		return c.werr
	}
	if len(c.unsent) == 0 {
		return nil
	}
	c.moveDeadline()
	if err := c.write(c.unsent); err != nil {
		return err
	}
	c.unsent = nil
	c.hasUnsent.Store(false)
	return nil
}

// moveDeadline keeps the socket's write deadline writeStall ahead; wmu held. Moving it
// costs a timer update; it moves once a second at most.
func (c *conn) moveDeadline() {
	if now := time.Now(); c.wdeadline.Sub(now) < c.stall-time.Second {
		c.wdeadline = now.Add(c.stall)
		c.nc.SetWriteDeadline(c.wdeadline)
	}
}

// write writes b to the socket, waiting as long as writeStall; wmu held.
func (c *conn) write(b []byte) error {
	if _, err := c.nc.Write(b); err != nil {
		c.werr = err
		c.nc.Close()
		return err
	}
	return nil
}

// writeHeaderBlock encodes fields with the connection's encoder (wmu held) into o as a
// HEADERS frame and as many CONTINUATION frames as the client's frame size needs.
func (c *conn) writeHeaderBlock(o *outBuf, id uint32, endStream bool, encode func(enc func(name, value string))) error {
	c.hsink.o = o
	o.hb = o.hb[:0]
	encode(func(name, value string) {
		c.enc.WriteField(hpackField(name, value))
	})
	c.hsink.o = nil
	block := o.hb
	max := c.frameSize()
	first := true
	for {
		frag := block
		if len(frag) > max {
			frag = frag[:max]
		}
		block = block[len(frag):]
		end := len(block) == 0
		var err error
		if first {
			err = o.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: frag, EndStream: endStream, EndHeaders: end})
			first = false
		} else {
			err = o.fr.WriteContinuation(id, end, frag)
		}
		if err != nil {
			return err
		}
		if end {
			return nil
		}
	}
}

func (c *conn) frameSize() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerMaxFrame
}

// Control frames the reader answers with; they wait in c.ctl until the input it has buffered
// is handled, so a burst of them costs one write.
type ctlKind uint8

const (
	ctlSettings ctlKind = iota
	ctlSettingsAck
	ctlPing
	ctlReset
	ctlWindow
)

type ctlFrame struct {
	kind ctlKind
	id   uint32
	code http2.ErrCode
	n    uint32
	ping [8]byte
}

func (c *conn) queue(f ctlFrame) { c.ctl = append(c.ctl, f) }

func (c *conn) flushCtl() error {
	if len(c.ctl) == 0 {
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.flushCtlLocked()
}

// flushCtlLocked writes the queued control frames; wmu held.
func (c *conn) flushCtlLocked() error {
	// Window the handlers gave back meanwhile goes in the same write.
	var connGive uint32
	c.mu.Lock()
	if c.recvUnsent > 0 {
		connGive = uint32(c.recvUnsent)
		c.recvAvail += c.recvUnsent
		c.recvUnsent = 0
	}
	c.mu.Unlock()
	err := c.writeLocked(func(o *outBuf) error {
		for _, f := range c.ctl {
			var err error
			switch f.kind {
			case ctlSettings:
				err = o.fr.WriteSettings(
					http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: maxHandlers},
					http2.Setting{ID: http2.SettingInitialWindowSize, Val: streamWindow},
					http2.Setting{ID: http2.SettingHeaderTableSize, Val: c.tableSize},
					http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: c.maxHeaderListSize()},
				)
			case ctlSettingsAck:
				err = o.fr.WriteSettingsAck()
			case ctlPing:
				err = o.fr.WritePing(true, f.ping)
			case ctlReset:
				err = o.fr.WriteRSTStream(f.id, f.code)
			case ctlWindow:
				err = o.fr.WriteWindowUpdate(f.id, f.n)
			}
			if err != nil {
				return err
			}
		}
		if connGive > 0 {
			return o.fr.WriteWindowUpdate(0, connGive)
		}
		return nil
	})
	c.ctl = c.ctl[:0]
	return err
}

// giveBack returns n bytes of receive window that a handler read (or that were dropped): the
// connection's, and the stream's if st is still receiving. The window goes back in a
// WINDOW_UPDATE once enough has gathered that the client would otherwise slow down.
func (c *conn) giveBack(st *stream, n int) {
	if n <= 0 {
		return
	}
	var connGive, streamGive uint32
	c.mu.Lock()
	c.recvUnsent += int64(n)
	if c.recvUnsent >= connWindow/4 || c.recvUnsent >= c.recvAvail {
		connGive = uint32(c.recvUnsent)
		c.recvAvail += c.recvUnsent
		c.recvUnsent = 0
	}
	if st != nil && !st.remoteClosed && !st.reset {
		st.recvUnsent += int64(n)
		if st.recvUnsent >= streamWindow/4 || st.recvUnsent >= st.recvAvail {
			streamGive = uint32(st.recvUnsent)
			st.recvAvail += st.recvUnsent
			st.recvUnsent = 0
		}
	}
	closed := c.closed
	c.mu.Unlock()
	if closed || (connGive == 0 && streamGive == 0) {
		return
	}
	c.writeFrames(func(o *outBuf) error {
		if connGive > 0 {
			if err := o.fr.WriteWindowUpdate(0, connGive); err != nil {
				return err
			}
		}
		if streamGive > 0 {
			return o.fr.WriteWindowUpdate(st.id, streamGive)
		}
		return nil
	})
}

// reserve takes up to want bytes of send window for st, waiting (without the write lock)
// until some is open, the stream ends, the connection closes or the stream's write deadline
// passes. nowait returns 0 at once when none is open.
func (c *conn) reserve(st *stream, want int, nowait bool) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if err := st.writeErrLocked(); err != nil {
			return 0, err
		}
		if c.closed {
			return 0, errClientDisconnected
		}
		n := int64(want)
		n = min(n, st.sendWindow, c.sendWindow, maxWriteChunk)
		if n > 0 {
			st.sendWindow -= n
			c.sendWindow -= n
			return int(n), nil
		}
		if nowait {
			return 0, nil
		}
		c.cond.Wait()
	}
}

// unreserve gives back window taken for data that was not sent.
func (c *conn) unreserve(st *stream, n int) {
	c.mu.Lock()
	st.sendWindow += int64(n)
	c.sendWindow += int64(n)
	c.cond.Broadcast()
	c.mu.Unlock()
}

// errWriteTimeout is what writes after a stream's write deadline return.
var errWriteTimeout = &deadlineError{"h2c: write deadline exceeded"}

type deadlineError struct{ msg string }

func (e *deadlineError) Error() string { return e.msg }
func (e *deadlineError) Unwrap() error { return os.ErrDeadlineExceeded }
