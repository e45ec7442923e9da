package h2c

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// responseBufferSize is how much a response gathers before it writes without a Flush. The
// buffer is taken on the first write after a flush and given back by the flush.
const responseBufferSize = 16 << 10

var responseBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, responseBufferSize)
	return &b
}}

// responseWriter is a stream's http.ResponseWriter. It writes its frames itself, in the
// handler's goroutine (write.go).
type responseWriter struct {
	st     *stream
	c      *conn
	isHead bool

	handlerHeader http.Header
	snapHeader    http.Header // the header as WriteHeader found it
	status        int
	wroteHeader   bool
	sentHeader    bool
	bodyAllowed   bool
	declaredLen   int64 // Content-Length the handler set, -1 without
	wrote         int64
	trailers      []string
	handlerDone   bool
	buf           *[]byte
	holdWrites    bool  // writes only gather in buf (see HoldWrites)
	err           error // the first failed write: every later one fails alike
}

func newResponseWriter(st *stream, req *http.Request) *responseWriter {
	return &responseWriter{st: st, c: st.c, isHead: req.Method == "HEAD", handlerHeader: make(http.Header), declaredLen: -1}
}

func (w *responseWriter) Header() http.Header { return w.handlerHeader }

func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.wroteHeader || w.handlerDone {
		return
	}
	if code < 200 {
		// Informational answers (103 Early Hints) are not sent.
		return
	}
	w.wroteHeader, w.status = true, code
	w.snapHeader = w.handlerHeader.Clone()
	w.bodyAllowed = bodyAllowedForStatus(code)
	if cl := w.snapHeader.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseUint(cl, 10, 63); err == nil {
			w.declaredLen = int64(n)
		} else {
			w.snapHeader.Del("Content-Length")
		}
	}
}

func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == 204, status == 304:
		return false
	}
	return true
}

var errTooLong = errors.New("h2c: handler wrote more than the declared Content-Length")

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.handlerDone {
		return 0, errStreamClosed
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !w.bodyAllowed {
		return 0, http.ErrBodyNotAllowed
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.declaredLen >= 0 && w.wrote+int64(len(p)) > w.declaredLen {
		return 0, errTooLong
	}
	w.wrote += int64(len(p))
	if w.holdWrites {
		if w.buf == nil {
			w.buf = responseBuffers.Get().(*[]byte)
		}
		*w.buf = append(*w.buf, p...)
		return len(p), nil
	}
	if w.buf == nil && len(p) < responseBufferSize {
		w.buf = responseBuffers.Get().(*[]byte)
	}
	if w.buf != nil && len(*w.buf)+len(p) <= responseBufferSize {
		*w.buf = append(*w.buf, p...)
		return len(p), nil
	}
	var pending []byte
	if w.buf != nil {
		pending = *w.buf
	}
	err := w.send(pending, p, false)
	w.release()
	if err != nil {
		w.err = err
		return 0, err
	}
	return len(p), nil
}

// Flush writes what the handler wrote (the headers, at least) to the client.
func (w *responseWriter) Flush() { w.FlushError() }

// FlushError is Flush with its error, for http.ResponseController.
func (w *responseWriter) FlushError() error {
	if w.handlerDone {
		return errStreamClosed
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.err != nil {
		return w.err
	}
	var pending []byte
	if w.buf != nil {
		pending = *w.buf
	}
	err := w.send(pending, nil, false)
	w.release()
	if err == nil && len(pending) == 0 && w.c.hasUnsent.Load() {
		// What a TryFlush left to the connection goes now, if nothing else sent it.
		err = w.c.writeFrames(func(*outBuf) error { return nil })
	}
	if err != nil {
		w.err = err
	}
	return err
}

// SetReadDeadline and SetWriteDeadline are http.ResponseController's, for this stream only.
func (w *responseWriter) SetReadDeadline(t time.Time) error {
	if w.st.body != nil {
		w.st.body.setDeadline(t)
	}
	return nil
}

func (w *responseWriter) SetWriteDeadline(t time.Time) error {
	w.st.setWriteDeadline(t)
	return nil
}

// release gives the buffer back; one that held writes grew past its size goes.
func (w *responseWriter) release() {
	if w.buf != nil {
		if cap(*w.buf) <= responseBufferSize {
			*w.buf = (*w.buf)[:0]
			responseBuffers.Put(w.buf)
		}
		w.buf = nil
	}
}

// finish ends the response once the handler returned: what is buffered, the trailers,
// END_STREAM; if the client has not ended its side, RST_STREAM NO_ERROR after.
func (w *responseWriter) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.handlerDone = true
	w.promoteTrailers()
	var pending []byte
	if w.buf != nil {
		pending = *w.buf
	}
	if w.err == nil {
		if err := w.send(pending, nil, true); err != nil && w.c.werr == nil {
			w.st.end(http2.ErrCodeInternal, err, true)
		}
	} else {
		w.st.end(http2.ErrCodeInternal, w.err, true)
	}
	w.release()
}

func (w *responseWriter) declareTrailer(k string) {
	k = http.CanonicalHeaderKey(strings.TrimSpace(k))
	if k == "" || !httpguts.ValidTrailerHeader(k) {
		return
	}
	if !slices.Contains(w.trailers, k) {
		w.trailers = append(w.trailers, k)
	}
}

// promoteTrailers declares the keys set with http.TrailerPrefix, which net/http sends as
// trailers whether declared or not.
func (w *responseWriter) promoteTrailers() {
	for k, vv := range w.handlerHeader {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			w.declareTrailer(name)
			w.handlerHeader[http.CanonicalHeaderKey(name)] = vv
		}
	}
	slices.Sort(w.trailers)
}

func (w *responseWriter) hasTrailers() bool {
	for _, k := range w.trailers {
		if _, ok := w.handlerHeader[k]; ok {
			return true
		}
	}
	return false
}

// send writes the headers if not yet sent, then p1 and p2 as DATA, and with end the end of
// the stream. It takes send window as the client opens it, waiting without the write lock,
// and writes each stretch of frames with one write to the socket.
func (w *responseWriter) send(p1, p2 []byte, end bool) error {
	st, c := w.st, w.c
	headers := !w.sentHeader
	var extra headerExtras
	if headers {
		extra = w.headerExtras(p1, p2, end)
	}
	if w.isHead || !w.bodyAllowed {
		p1, p2 = nil, nil
	}
	trailers := end && w.hasTrailers()
	left := len(p1) + len(p2)
	if !headers && left == 0 && !end {
		return nil
	}
	for {
		n := 0
		if left > 0 {
			var err error
			if n, err = c.reserve(st, left, headers); err != nil {
				return err
			}
		}
		last := n == left
		c.wmu.Lock()
		err := c.writeLocked(func(o *outBuf) error {
			c.mu.Lock()
			err := st.writeErrLocked()
			remoteOpen := !st.remoteClosed
			max := c.peerMaxFrame
			if err == nil && end && last {
				// The stream ends with this write: the frames the client sends once it has
				// read it must find it closed. Either the client ended its side, or the
				// RST_STREAM below ends it (and what it sent before it read that is ignored).
				st.localClosed = true
				st.resetSent = remoteOpen
				if st.writeTimer != nil {
					st.writeTimer.Stop()
				}
				c.forgetLocked(st)
				c.cond.Broadcast()
			}
			c.mu.Unlock()
			if err != nil {
				return err
			}
			endStream := end && last && !trailers
			if headers {
				if err := w.writeHeaders(o, extra, endStream && left == 0); err != nil {
					return err
				}
			}
			for rest := n; rest > 0; {
				chunk := min(rest, max)
				var frame []byte
				if len(p1) > 0 {
					chunk = min(chunk, len(p1))
					frame, p1 = p1[:chunk], p1[chunk:]
				} else {
					frame, p2 = p2[:chunk], p2[chunk:]
				}
				rest -= chunk
				if err := o.fr.WriteData(st.id, endStream && rest == 0, frame); err != nil {
					return err
				}
			}
			if endStream && n == 0 && !headers {
				if err := o.fr.WriteData(st.id, true, nil); err != nil {
					return err
				}
			}
			if end && last && trailers {
				if err := w.writeTrailers(o); err != nil {
					return err
				}
			}
			if end && last && remoteOpen {
				// RFC 9113, section 8.1: the response is complete, the rest of the request
				// is not needed.
				return o.fr.WriteRSTStream(st.id, http2.ErrCodeNo)
			}
			return nil
		})
		if err == nil && end && last && w.handlerDone {
			// Counted out once its frames went out, before the client can close the
			// connection in answer (c.close takes wmu): the connection is idle from here.
			c.mu.Lock()
			c.countOut(st)
			c.mu.Unlock()
		}
		c.wmu.Unlock()
		if err != nil {
			if n > 0 {
				c.unreserve(st, n)
			}
			return err
		}
		if headers {
			// The header went out as it was: a long stream does not keep its copy.
			headers, w.sentHeader, w.snapHeader = false, true, nil
		}
		left -= n
		if last {
			break
		}
	}
	return nil
}

// headerExtras are the fields net/http adds to a response's header.
type headerExtras struct {
	contentType, contentLength, date string
}

func (w *responseWriter) headerExtras(p1, p2 []byte, end bool) headerExtras {
	var x headerExtras
	h := w.snapHeader
	n := len(p1) + len(p2)
	if _, ok := h["Content-Length"]; !ok && end && w.bodyAllowed && (n > 0 || !w.isHead) {
		x.contentLength = strconv.Itoa(n)
	}
	if _, ok := h["Content-Type"]; !ok && h.Get("Content-Encoding") == "" && w.bodyAllowed && n > 0 {
		first := p1
		if len(first) == 0 {
			first = p2
		}
		x.contentType = http.DetectContentType(first)
	}
	if _, ok := h["Date"]; !ok {
		x.date = time.Now().UTC().Format(http.TimeFormat)
	}
	for _, v := range h["Trailer"] {
		for k := range strings.SplitSeq(v, ",") {
			w.declareTrailer(k)
		}
	}
	if v, ok := h["Connection"]; ok {
		delete(h, "Connection")
		if len(v) > 0 && v[0] == "close" {
			go w.c.shutdown()
		}
	}
	return x
}

// writeHeaders encodes the response's header into o (wmu held).
func (w *responseWriter) writeHeaders(o *outBuf, x headerExtras, endStream bool) error {
	return w.c.writeHeaderBlock(o, w.st.id, endStream, func(enc func(name, value string)) {
		enc(":status", strconv.Itoa(w.status))
		encodeHeader(enc, w.snapHeader, nil)
		if x.contentType != "" {
			enc("content-type", x.contentType)
		}
		if x.contentLength != "" {
			enc("content-length", x.contentLength)
		}
		if x.date != "" {
			enc("date", x.date)
		}
	})
}

func (w *responseWriter) writeTrailers(o *outBuf) error {
	return w.c.writeHeaderBlock(o, w.st.id, true, func(enc func(name, value string)) {
		encodeHeader(enc, w.handlerHeader, w.trailers)
	})
}

// encodeHeader encodes h's fields (only keys, if given), leaving out what HTTP/2 does not
// carry: connection-specific fields, invalid names and values, trailer-prefixed keys.
func encodeHeader(enc func(name, value string), h http.Header, keys []string) {
	each := func(k string, vv []string) {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			return
		}
		name := lowerHeader(k)
		if !validWireName(name) {
			return
		}
		switch name {
		case "connection", "keep-alive", "proxy-connection", "upgrade":
			return
		}
		isTE := name == "transfer-encoding"
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) || isTE && v != "trailers" {
				continue
			}
			enc(name, v)
		}
	}
	if keys != nil {
		for _, k := range keys {
			each(k, h[k])
		}
		return
	}
	for k, vv := range h {
		each(k, vv)
	}
}

func validWireName(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		b := v[i]
		if !httpguts.IsTokenRune(rune(b)) || 'A' <= b && b <= 'Z' {
			return false
		}
	}
	return true
}

// lowerHeader is the wire name of a header key; the common ones without an allocation.
func lowerHeader(k string) string {
	switch k {
	case "Content-Type":
		return "content-type"
	case "Content-Length":
		return "content-length"
	case "Grpc-Status":
		return "grpc-status"
	case "Grpc-Message":
		return "grpc-message"
	case "Connect-Content-Encoding":
		return "connect-content-encoding"
	case "Grpc-Encoding":
		return "grpc-encoding"
	case "Grpc-Accept-Encoding":
		return "grpc-accept-encoding"
	case "Connect-Accept-Encoding":
		return "connect-accept-encoding"
	case "Vary":
		return "vary"
	case "Cache-Control":
		return "cache-control"
	case "Date":
		return "date"
	}
	return strings.ToLower(k)
}

func hpackField(name, value string) hpack.HeaderField {
	return hpack.HeaderField{Name: name, Value: value}
}
