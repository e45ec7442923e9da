package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// h2Stream is one Subscribe stream read the way ircload reads IRC: over a cleartext HTTP/2
// connection of its own, by the goroutine that handles the events, with no other goroutine
// between the socket and the check. Go's HTTP/2 client hands every DATA frame from its
// connection's reader goroutine to the stream's reader through a pipe, and Connect's client
// copies it into an envelope buffer before decoding: on a machine shared with the server
// that was about 20 us of the tool's CPU per delivery against ircload's 12-16, CPU the server
// did not get, and every event went through two of the tool's goroutines, each waiting its
// turn behind the rest of a fan-out, before its arrival was timed. It speaks the Connect protocol with the binary codec
// over HTTP/2, prior-knowledge h2c or TLS (ALPN "h2", as a browser reaches a server); every
// other combination (HTTP/1.1, gRPC, gRPC-Web, JSON) is read with the Connect client.
type h2Stream struct {
	conn net.Conn
	w    *bufio.Writer
	fr   *http2.Framer
	// body holds what arrived of the stream's body; what is before off has been decoded.
	// unacked counts the bytes read since the last WINDOW_UPDATE.
	body    []byte
	off     int
	unacked int
	window  uint32
	status  string
	ended   bool
}

// h2Window is the flow-control window the reader gives the server, for the connection and
// the stream: large, so that the server never waits for the tool; it is topped up after every
// h2Window/2 bytes.
const h2Window = 16 << 20

// h2MaxEnvelope bounds one event: the server's messages are far smaller (8,000 characters of
// text at most), so a larger length is a broken stream, not a reason to buffer without end.
const h2MaxEnvelope = 4 << 20

// dialSubscribe opens a Subscribe stream to base (http://host:port over h2c, https://host:port
// over TLS with tlsConf) as the holder of token, from source (nil: any address), within ctx,
// with a flow-control window of window bytes (h2Window; at least HTTP/2's initial 65,535).
func dialSubscribe(ctx context.Context, base string, tlsConf *tls.Config, source net.IP, token string, req *svcv1.SubscribeRequest, window uint32) (*h2Stream, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if (u.Scheme == "https") != (tlsConf != nil) {
		return nil, fmt.Errorf("%s: TLS goes with https:// and only with it", base)
	}
	d := &net.Dialer{Timeout: 10 * time.Second}
	if source != nil {
		d.LocalAddr = &net.TCPAddr{IP: source}
	}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	s := &h2Stream{conn: conn, window: max(window, 65535)}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	if tlsConf != nil {
		err = s.handshake(u.Hostname(), tlsConf)
	}
	if err == nil {
		err = s.open(u.Scheme, u.Host, token, req)
	}
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return s, nil
}

// handshake puts TLS over the stream's connection, asking for HTTP/2 by ALPN as a browser
// does; a server that does not choose it gets no HTTP/2 preface.
func (s *h2Stream) handshake(host string, tlsConf *tls.Config) error {
	conf := tlsConf.Clone()
	conf.NextProtos = []string{http2.NextProtoTLS}
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	tc := tls.Client(s.conn, conf)
	if err := tc.Handshake(); err != nil {
		return err
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != http2.NextProtoTLS {
		tc.Close()
		return fmt.Errorf("the server chose %q by ALPN, not HTTP/2 (h2)", p)
	}
	s.conn = tc
	return nil
}

// open writes the preface, the settings and the request.
func (s *h2Stream) open(scheme, authority, token string, req *svcv1.SubscribeRequest) error {
	s.startFramer(s.conn, s.conn)
	if _, err := io.WriteString(s.w, http2.ClientPreface); err != nil {
		return err
	}
	err := s.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: s.window},
	)
	if err == nil && s.window > 65535 {
		err = s.fr.WriteWindowUpdate(0, s.window-65535)
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{
		{":method", "POST"},
		{":scheme", scheme},
		{":authority", authority},
		{":path", "/svc.v1.ChatService/Subscribe"},
		{"content-type", "application/connect+proto"},
		{"connect-protocol-version", "1"},
		{"authorization", "Bearer " + token},
		{"user-agent", "hearth-load"},
	} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err == nil {
		err = s.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true})
	}
	body, merr := proto.Marshal(req)
	if err == nil {
		err = merr
	}
	if err == nil {
		env := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(body)))
		err = s.fr.WriteData(1, true, append(env, body...))
	}
	return s.flush(err)
}

// startFramer puts the stream's framer over w and r (its connection), writes buffered. The
// framer reuses its frames: a DATA frame's payload is copied to body before the next read, so
// one frame serves every read. Without that every event read left a frame behind; in the
// standard run that garbage set the tool's collector going once or twice, and each collection's
// tens of milliseconds, on the cores it shares with the server, were counted in the server's
// delivery latency.
func (s *h2Stream) startFramer(w io.Writer, r io.Reader) {
	s.w = bufio.NewWriter(w)
	s.fr = http2.NewFramer(s.w, bufio.NewReader(r))
	s.fr.SetReuseFrames()
	s.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	s.fr.MaxHeaderListSize = 64 << 10
}

// Next reads the facts of the stream's next event into ev. At the stream's end it returns io.EOF, or the
// error the server ended it with (a *connect.Error with the server's code).
func (s *h2Stream) Next(ev *eventFacts) error {
	for {
		if done, err := s.decode(ev); done || err != nil {
			return err
		}
		if s.ended {
			if left := len(s.body) - s.off; left > 0 {
				return fmt.Errorf("the stream ended inside an event (%d bytes left)", left)
			}
			return io.EOF
		}
		if err := s.readFrame(); err != nil {
			return err
		}
	}
}

// decode takes one whole envelope off the body: an event (done), or the end of the stream
// with its error if it has one.
func (s *h2Stream) decode(ev *eventFacts) (bool, error) {
	b := s.body[s.off:]
	if len(b) < 5 {
		return false, nil
	}
	n := binary.BigEndian.Uint32(b[1:5])
	if n > h2MaxEnvelope {
		return false, fmt.Errorf("an envelope of %d bytes (at most %d are read)", n, h2MaxEnvelope)
	}
	if len(b) < 5+int(n) {
		return false, nil
	}
	flags, msg := b[0], b[5:5+n]
	s.off += 5 + int(n)
	switch {
	case flags&0x02 != 0:
		s.ended = true
		return true, endOfStream(msg)
	case flags != 0:
		return false, fmt.Errorf("an envelope with flags %#x (the tool asks for no compression)", flags)
	}
	return true, ev.decode(msg)
}

// endOfStream reads Connect's end-of-stream message: io.EOF, or the error it carries.
func endOfStream(msg []byte) error {
	var end struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &end); err != nil {
		return fmt.Errorf("the stream's end-of-stream message: %w", err)
	}
	if end.Error == nil {
		return io.EOF
	}
	var code connect.Code
	if err := code.UnmarshalText([]byte(end.Error.Code)); err != nil {
		code = connect.CodeUnknown
	}
	return connect.NewError(code, errors.New(end.Error.Message))
}

// readFrame reads one frame and does what it asks: body bytes go to buf, settings and pings
// are acknowledged, the window is topped up.
func (s *h2Stream) readFrame() error {
	f, err := s.fr.ReadFrame()
	if err != nil {
		return err
	}
	switch f := f.(type) {
	case *http2.DataFrame:
		if f.StreamID != 1 {
			return fmt.Errorf("DATA on stream %d", f.StreamID)
		}
		if s.status != "200" {
			return fmt.Errorf("a body before the response's headers (status %q)", s.status)
		}
		if s.off > 0 {
			// What was decoded goes; the start of an envelope still to come moves to the front.
			s.body = s.body[:copy(s.body, s.body[s.off:])]
			s.off = 0
		}
		s.body = append(s.body, f.Data()...)
		s.ended = f.StreamEnded()
		s.unacked += int(f.Length)
		if s.unacked >= int(s.window/2) {
			err = s.fr.WriteWindowUpdate(0, uint32(s.unacked))
			if err == nil {
				err = s.fr.WriteWindowUpdate(1, uint32(s.unacked))
			}
			s.unacked = 0
			return s.flush(err)
		}
	case *http2.MetaHeadersFrame:
		if s.status == "" {
			s.status = f.PseudoValue("status")
			if s.status != "200" {
				return statusError(f)
			}
		}
		if f.StreamEnded() {
			s.ended = true
		}
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return s.flush(s.fr.WriteSettingsAck())
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			return s.flush(s.fr.WritePing(true, f.Data))
		}
	case *http2.RSTStreamFrame:
		return fmt.Errorf("the server reset the stream: %v", f.ErrCode)
	case *http2.GoAwayFrame:
		if f.LastStreamID < 1 || f.ErrCode != http2.ErrCodeNo {
			return fmt.Errorf("the server went away: %v", f.ErrCode)
		}
	}
	return nil
}

// statusError is the error of an answer that is not 200: a Connect stream answers errors in
// its body with 200, so this is HTTP's own (a route, a method, a limit in front of it).
func statusError(f *http2.MetaHeadersFrame) error {
	status, _ := strconv.Atoi(f.PseudoValue("status"))
	return fmt.Errorf("the server answered the Subscribe request with HTTP status %d", status)
}

// flush sends what the framer wrote, unless writing it failed.
func (s *h2Stream) flush(err error) error {
	if err != nil {
		return err
	}
	return s.w.Flush()
}

// Close ends the stream and its connection; Next then fails.
func (s *h2Stream) Close() error { return s.conn.Close() }
