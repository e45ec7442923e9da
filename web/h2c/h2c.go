// Package h2c serves cleartext HTTP/2 with prior knowledge (h2c) straight from the listener,
// beside net/http's HTTP/1, with an HTTP/2 server of its own.
//
// net/http can serve h2c itself, but it recognises the client's preface by peeking through
// the HTTP/1 reader and writer it allocated for the connection (4 KB each) and keeps both for
// the whole life of the HTTP/2 connection; and its HTTP/2 server hands every DATA frame a
// handler writes to the connection's serve loop, which starts a goroutine for each flush. On a
// server holding thousands of event streams, one connection each, those hand-offs are most of
// a delivery's CPU and the buffers most of an idle stream's memory (docs/performance.md).
//
// Here the preface is read before net/http sees the connection: HTTP/1 connections go to
// net/http with the bytes already read put back in front, HTTP/2 ones to this package's
// server. It uses x/net's Framer and HPACK for the wire format; the connection's state
// machine (RFC 9113) is its own:
//   - one goroutine per connection reads frames and answers control frames (conn.go);
//   - each stream's handler runs in its own goroutine and writes its frames itself, under the
//     connection's write lock, with one write to the socket per flush (write.go,
//     response.go); no buffer is kept between flushes;
//   - a request body is buffered up to the window advertised for it and the window is given
//     back as the handler reads it (body.go).
//
// TLS connections stay with net/http, which chooses HTTP/2 by ALPN.
package h2c

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// preface opens every HTTP/2 connection (RFC 9113, section 3.4).
const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// Server is an http.Server whose listeners serve h2c connections themselves. Serve, Shutdown
// and Close take the place of the http.Server's.
type Server struct {
	HTTP *http.Server

	mu       sync.Mutex
	conns    map[*conn]struct{}
	stopping atomic.Bool
}

// New wraps srv; its Handler, ErrorLog, ReadHeaderTimeout, IdleTimeout, MaxHeaderBytes,
// BaseContext, ConnContext and ConnState hook apply to the h2c connections too.
func New(srv *http.Server) *Server {
	return &Server{HTTP: srv, conns: make(map[*conn]struct{})}
}

// Serve accepts connections on ln until Shutdown or Close: h2c ones are served here, the
// rest by the HTTP server.
func (s *Server) Serve(ln net.Listener) error {
	return s.HTTP.Serve(s.Listener(ln))
}

// Listener wraps ln for an HTTP server that serves it in its own way (as httptest does):
// Accept returns the connections that do not open with the HTTP/2 preface, the others are
// served here. Reading the first bytes is done off the accept loop, so a client that sends
// nothing holds up no other (it is closed after the HTTP server's ReadHeaderTimeout).
func (s *Server) Listener(ln net.Listener) net.Listener {
	l := &listener{Listener: ln, s: s, accepted: make(chan accepted), closed: make(chan struct{})}
	go l.acceptLoop()
	return l
}

// Shutdown shuts down gracefully: the listeners close, HTTP/2 clients are told (GOAWAY) to
// open no new stream, and it waits until every connection has finished its running handlers
// and closed, or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.shutdown()
	}
	err := s.HTTP.Shutdown(ctx)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for s.open() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return err
}

// Close closes the listeners and ends every connection at once: a socket written to without
// waiting is shut down, and its connection closes it as its reader meets the end.
func (s *Server) Close() error {
	s.stopping.Store(true)
	err := s.HTTP.Close()
	s.mu.Lock()
	for c := range s.conns {
		// Not Close: writes that do not wait use the bare descriptor under the
		// connection's write lock, which a writer waiting on a full socket may hold. The
		// shutdown fails that writer, and the connection closes itself (conn.close).
		if c.hasFD {
			c.shutdownSocket()
		} else {
			c.nc.Close()
		}
	}
	s.mu.Unlock()
	return err
}

func (s *Server) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// serveH2 serves one h2c connection whose preface has been read, until it closes. As
// net/http does for the connections it serves, it reports StateNew and StateClosed to the
// ConnState hook, and StateActive and StateIdle as handlers start and all end.
func (s *Server) serveH2(l *listener, nc net.Conn) {
	srv := s.HTTP
	ctx := context.Background()
	if srv.BaseContext != nil {
		ctx = srv.BaseContext(l)
	}
	ctx = context.WithValue(ctx, http.ServerContextKey, srv)
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, nc.LocalAddr())
	if srv.ConnContext != nil {
		ctx = srv.ConnContext(ctx, nc)
	}
	c := newConn(s, nc, ctx)
	s.mu.Lock()
	if s.stopping.Load() {
		s.mu.Unlock()
		nc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	if srv.ConnState != nil {
		srv.ConnState(nc, http.StateNew)
		defer srv.ConnState(nc, http.StateClosed)
	}
	c.serve()
}

type accepted struct {
	c   net.Conn
	err error
}

// listener passes on, through Accept, the connections its accept loop found not to be h2c,
// and the inner listener's errors.
type listener struct {
	net.Listener
	s         *Server
	accepted  chan accepted
	closed    chan struct{}
	closeOnce sync.Once
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.accepted:
		return a.c, a.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *listener) Close() error {
	err := net.ErrClosed
	l.closeOnce.Do(func() {
		close(l.closed)
		err = l.Listener.Close()
	})
	return err
}

// acceptLoop accepts until the listener closes. Errors go to Accept's caller, which decides
// whether to go on (net/http backs off on temporary ones, and this loop waits for it to call
// Accept again before it passes on the next).
func (l *listener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.accepted <- accepted{err: err}:
			case <-l.closed:
				return
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		go l.sniff(c)
	}
}

// sniff reads as much of the preface as the client sends before it differs, then serves the
// connection over HTTP/2 or hands it to Accept with those bytes put back.
func (l *listener) sniff(c net.Conn) {
	if t := l.s.HTTP.ReadHeaderTimeout; t > 0 {
		c.SetReadDeadline(time.Now().Add(t))
	}
	var got [len(preface)]byte
	n := 0
	for n < len(got) {
		m, err := c.Read(got[n:])
		n += m
		if string(got[:n]) != preface[:n] {
			break
		}
		if err != nil {
			// Closed, or silent until the deadline, before it said anything but a piece of
			// the preface.
			c.Close()
			return
		}
	}
	c.SetReadDeadline(time.Time{})
	if n == len(got) && string(got[:]) == preface {
		l.s.serveH2(l, c)
		return
	}
	rc := &replayConn{Conn: c, first: got[:n]}
	select {
	case l.accepted <- accepted{c: rc}:
	case <-l.closed:
		c.Close()
	}
}

// replayConn reads first before the rest of the connection.
type replayConn struct {
	net.Conn
	first []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// ReadFrom and CloseWrite pass on to the connection what net/http looks for on it: sendfile
// for responses copied from files, and a half close before it hangs up on a client.
func (c *replayConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

func (c *replayConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
